import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { claimMapping, LEAST_ROLE } from "@/lib/auth/oidc-claims";
import { provisionOidcUser } from "@/lib/auth/oidc-provision";
import { authenticate } from "@/lib/auth/authenticate";
import { openAndBootstrap } from "@/lib/db/bootstrap";
import type { DatabaseHandle } from "@/lib/db/connect";
import { TARGET_ENGINE, createTestDatabase, type TestDatabase } from "../support/test-database";

const ISSUER = "https://idp.example.com";

describe(`single sign-on provisioning (${TARGET_ENGINE})`, () => {
  let db: TestDatabase;
  let handle: DatabaseHandle;
  beforeAll(async () => {
    db = await createTestDatabase();
    handle = (await openAndBootstrap(db.env)).handle;
  });
  afterAll(async () => {
    await handle.close();
    await db.cleanup();
  });
  const mapping = claimMapping({
    OIDC_ROLES_CLAIM: "realm_access.roles",
    OIDC_GROUPS_CLAIM: "groups",
    OIDC_ROLE_MAP: "mosaic-admins=ADMIN,data-team=ANALYST",
    OIDC_GROUP_MAP: "/staff=Everyone,/analytics=Analysts",
  });

  it("creates the user on first sign-in with the mapped role and groups, and no usable password", async () => {
    const out = await provisionOidcUser(
      handle.prisma,
      {
        issuer: ISSUER,
        claims: {
          sub: "u-1",
          email: "Carla@Example.com",
          name: "Carla",
          realm_access: { roles: ["data-team"] },
          groups: ["/staff", "/analytics", "/unknown"],
        },
      },
      mapping,
    );
    expect(out).toMatchObject({
      ok: true,
      created: true,
      after: { role: "ANALYST", groups: ["Analysts", "Everyone"] },
      unmappedGroups: [],
    });
    const user = await handle.prisma.user.findUniqueOrThrow({ where: { email: "carla@example.com" } });
    expect(user).toMatchObject({ role: "ANALYST", oidcSubject: `${ISSUER} u-1` });
    expect(await authenticate(handle.prisma, "carla@example.com", "")).toBeNull();
  });

  it("updates role and groups from changed claims at the next sign-in", async () => {
    const out = await provisionOidcUser(
      handle.prisma,
      {
        issuer: ISSUER,
        claims: { sub: "u-1", email: "carla@example.com", realm_access: { roles: ["mosaic-admins", "data-team"] }, groups: ["/staff"] },
      },
      mapping,
    );
    expect(out).toMatchObject({ ok: true, created: false, before: { role: "ANALYST" }, after: { role: "ADMIN", groups: ["Everyone"] } });
  });

  it(`gives the least role (${LEAST_ROLE}) when the claim is missing or maps to nothing`, async () => {
    for (const claims of [{}, { realm_access: { roles: ["admin", "superuser"] } }, { realm_access: { roles: 42 } }]) {
      const out = await provisionOidcUser(
        handle.prisma,
        { issuer: ISSUER, claims: { sub: "u-2", email: "dan@example.com", ...claims } },
        mapping,
      );
      expect(out).toMatchObject({ ok: true, user: { role: "USER" } });
    }
  });

  it("does not take over a local account whose email the provider has not verified, and refuses a deactivated user", async () => {
    const taken = await provisionOidcUser(handle.prisma, { issuer: ISSUER, claims: { sub: "evil", email: "admin@mosaic.local" } }, mapping);
    expect(taken).toMatchObject({ ok: false, reason: "email-taken" });
    expect((await handle.prisma.user.findUniqueOrThrow({ where: { email: "admin@mosaic.local" } })).oidcSubject).toBeNull();
    await handle.prisma.user.update({ where: { email: "dan@example.com" }, data: { active: false } });
    const off = await provisionOidcUser(handle.prisma, { issuer: ISSUER, claims: { sub: "u-2", email: "dan@example.com" } }, mapping);
    expect(off).toMatchObject({ ok: false, reason: "deactivated" });
    // A subject from another issuer is another person.
    const other = await provisionOidcUser(
      handle.prisma,
      { issuer: "https://other.example.com", claims: { sub: "u-1", email: "carla@example.com" } },
      mapping,
    );
    expect(other).toMatchObject({ ok: false, reason: "email-taken" });
  });
});
