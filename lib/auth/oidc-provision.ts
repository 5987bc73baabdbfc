import type { PrismaClient } from "../db/generated/client";
import type { Role } from "../db/generated/enums";
import { type ClaimMapping, mappedGroupNames, mappedRole } from "./oidc-claims";

export interface OidcIdentity {
  issuer: string;
  claims: Record<string, unknown>;
}

export type ProvisionOutcome =
  | {
      ok: true;
      created: boolean;
      user: { id: string; email: string; name: string; role: Role };
      before: { role: Role; groups: string[] } | null;
      after: { role: Role; groups: string[] };
      unmappedGroups: string[];
    }
  | { ok: false; reason: "no-email" | "deactivated" | "email-taken"; email?: string; userId?: string };

/**
 * Just-in-time provisioning for a single sign-on: finds the user by the provider's subject (or, the
 * first time, by an email the provider says it verified), creates one when there is none, and sets
 * role and groups from the claims. The identity provider is the authority: each sign-in replaces the
 * role and the group memberships with what the claims map to. Groups are never created here; a claim
 * naming no Mosaic group is reported (unmappedGroups) and ignored. A local account with the same email
 * whose email the provider did not verify is not taken over.
 */
export async function provisionOidcUser(prisma: PrismaClient, identity: OidcIdentity, mapping: ClaimMapping): Promise<ProvisionOutcome> {
  const { claims } = identity;
  const sub = typeof claims.sub === "string" ? claims.sub : "";
  const email = typeof claims.email === "string" ? claims.email.trim().toLowerCase() : "";
  if (!sub || !email) return { ok: false, reason: "no-email" };
  const subject = `${identity.issuer} ${sub}`;
  const name =
    (typeof claims.name === "string" && claims.name.trim()) ||
    (typeof claims.preferred_username === "string" && claims.preferred_username.trim()) ||
    email;
  const { role } = mappedRole(claims, mapping);
  const wanted = mappedGroupNames(claims, mapping);
  return prisma.$transaction(async (tx) => {
    const groups = await tx.group.findMany({ select: { id: true, name: true } });
    const byName = new Map(groups.map((g) => [g.name.toLowerCase(), g]));
    const chosen = wanted.map((n) => byName.get(n)).filter((g): g is { id: string; name: string } => !!g);
    const unmappedGroups = wanted.filter((n) => !byName.has(n));

    let existing = await tx.user.findUnique({
      where: { oidcSubject: subject },
      select: { id: true, active: true, role: true, memberships: { select: { group: { select: { name: true } } } } },
    });
    if (!existing) {
      const byEmail = await tx.user.findUnique({
        where: { email },
        select: { id: true, active: true, role: true, oidcSubject: true, memberships: { select: { group: { select: { name: true } } } } },
      });
      if (byEmail) {
        if (byEmail.oidcSubject || claims.email_verified !== true)
          return { ok: false as const, reason: "email-taken" as const, email, userId: byEmail.id };
        await tx.user.update({ where: { id: byEmail.id }, data: { oidcSubject: subject } });
        existing = byEmail;
      }
    }
    if (existing && !existing.active) return { ok: false as const, reason: "deactivated" as const, email, userId: existing.id };

    const after = { role, groups: chosen.map((g) => g.name).sort() };
    if (!existing) {
      const created = await tx.user.create({
        data: {
          email,
          name,
          role,
          // No local password: an empty hash verifies nothing (lib/crypto/password.ts).
          passwordHash: "",
          oidcSubject: subject,
          lastSignInAt: new Date(),
          memberships: { create: chosen.map((g) => ({ groupId: g.id })) },
        },
        select: { id: true, email: true, name: true, role: true },
      });
      return { ok: true as const, created: true, user: created, before: null, after, unmappedGroups };
    }
    const before = { role: existing.role, groups: existing.memberships.map((m) => m.group.name).sort() };
    const ids = chosen.map((g) => g.id);
    await tx.groupMembership.deleteMany({ where: { userId: existing.id, groupId: { notIn: ids } } });
    await tx.groupMembership.createMany({ data: ids.map((groupId) => ({ userId: existing.id, groupId })), skipDuplicates: true });
    const user = await tx.user.update({
      where: { id: existing.id },
      data: { role, name, lastSignInAt: new Date() },
      select: { id: true, email: true, name: true, role: true },
    });
    return { ok: true as const, created: false, user, before, after, unmappedGroups };
  });
}
