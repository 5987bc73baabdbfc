import type { PrismaClient } from "../db/generated/client";

/**
 * What the audit log keeps of a target before and after a change: the fields a reviewer asks about,
 * never a secret (connection secrets and password hashes are named only by whether they are set).
 */

export async function userSnapshot(prisma: PrismaClient, id: string) {
  const u = await prisma.user.findUnique({
    where: { id },
    select: {
      email: true,
      name: true,
      role: true,
      active: true,
      oidcSubject: true,
      memberships: { select: { group: { select: { name: true } } } },
    },
  });
  if (!u) return null;
  return {
    email: u.email,
    name: u.name,
    role: u.role,
    active: u.active,
    singleSignOn: !!u.oidcSubject,
    groups: u.memberships.map((m) => m.group.name).sort(),
  };
}

export async function groupSnapshot(prisma: PrismaClient, id: string) {
  return prisma.group.findUnique({ where: { id }, select: { name: true, description: true } });
}

export async function kbSnapshot(prisma: PrismaClient, id: string) {
  const kb = await prisma.knowledgeBase.findUnique({
    where: { id },
    select: {
      name: true,
      kind: true,
      description: true,
      config: true,
      secretsCiphertext: true,
      riskAcceptedAt: true,
      groupAccess: { select: { group: { select: { name: true } } } },
    },
  });
  if (!kb) return null;
  return {
    name: kb.name,
    kind: kb.kind,
    description: kb.description,
    config: kb.config,
    secrets: kb.secretsCiphertext ? "set" : "none",
    riskAccepted: !!kb.riskAcceptedAt,
    // Access: no groups = every signed-in user (the catalog's rule).
    groups: kb.groupAccess.map((g) => g.group.name).sort(),
  };
}

export async function guideSnapshot(prisma: PrismaClient, id: string) {
  const g = await prisma.extractionGuide.findUnique({
    where: { id },
    select: {
      question: true,
      answer: true,
      notes: true,
      sources: { select: { kb: { select: { name: true } }, actions: { select: { kind: true, params: true } } } },
    },
  });
  if (!g) return null;
  return {
    question: g.question,
    answer: g.answer,
    notes: g.notes,
    sources: g.sources.map((s) => ({ kb: s.kb.name, actions: s.actions.map((a) => ({ kind: a.kind, params: a.params })) })),
  };
}

export async function sourceObjectSnapshot(prisma: PrismaClient, id: string) {
  return prisma.sourceObject.findUnique({
    where: { id },
    select: { name: true, key: true, description: true, tags: true, mode: true, refreshQuery: true, annotations: true },
  });
}

/** A Setting row: its value, and whether a secret is stored (never the secret). */
export async function settingSnapshot(prisma: PrismaClient, key: string) {
  const s = await prisma.setting.findUnique({ where: { key }, select: { value: true, secretCiphertext: true } });
  if (!s) return null;
  return { value: s.value, secret: s.secretCiphertext ? "set" : "none" };
}
