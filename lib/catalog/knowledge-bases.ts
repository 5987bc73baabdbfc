import { closeBackend, openBackend } from "../backends/registry";
import type { KbKind, Preview } from "../backends/types";
import type { PrismaClient } from "../db/generated/client";
import { AppError } from "../errors";
import { type AccessSubject, kbAccessWhere } from "./access";
import { withBackendErrors } from "./backend-errors";
import { connectionSummary } from "./connection";
import type { CatalogDeps } from "../deps";
import { removeKbData } from "./kb-data";
import { privilegeRiskSchema, updateKbSchema } from "./knowledge-bases.validation";
import { checkKnowledgeBase } from "./refresh";

export interface KbListItem {
  id: string;
  name: string;
  kind: KbKind;
  description: string;
  origin: string;
  status: string;
  lastCheckAt: string | null;
  lastCheckMessage: string | null;
  connection: string;
  sourceObjectCount: number;
  groups: { id: string; name: string }[];
  /** Open to every signed-in user; otherwise admins and the members of `groups` (none = admins only). */
  openToEveryone: boolean;
  stats: Record<string, number>;
}

interface KbListRow {
  id: string;
  name: string;
  kind: string;
  description: string;
  origin: string;
  status: string;
  lastCheckAt: Date | null;
  lastCheckMessage: string | null;
  config: unknown;
  stats: unknown;
  _count: { sourceObjects: number };
  groupAccess: { group: { id: string; name: string } }[];
  openToEveryone: boolean;
}

/** The list view of a KB row (also the head of the detail view); never touches secrets. */
function toListItem(r: KbListRow): KbListItem {
  return {
    id: r.id,
    name: r.name,
    kind: r.kind as KbKind,
    description: r.description,
    origin: r.origin,
    status: r.status,
    lastCheckAt: r.lastCheckAt?.toISOString() ?? null,
    lastCheckMessage: r.lastCheckMessage,
    connection: connectionSummary(r.kind, (r.config ?? {}) as Record<string, unknown>),
    sourceObjectCount: r._count.sourceObjects,
    groups: r.groupAccess.map((g) => g.group),
    openToEveryone: r.openToEveryone,
    stats: (r.stats ?? {}) as Record<string, number>,
  };
}

/** KBs the caller may use, newest first, with health. Secrets are never selected. */
export async function listKnowledgeBases(
  prisma: PrismaClient,
  user: AccessSubject,
  filter: { kind?: KbKind; q?: string } = {},
): Promise<KbListItem[]> {
  const rows = await prisma.knowledgeBase.findMany({
    where: {
      AND: [
        kbAccessWhere(user),
        filter.kind ? { kind: filter.kind } : {},
        filter.q
          ? { OR: [{ name: { contains: filter.q, mode: "insensitive" } }, { description: { contains: filter.q, mode: "insensitive" } }] }
          : {},
      ],
    },
    orderBy: [{ origin: "asc" }, { name: "asc" }],
    select: {
      id: true,
      name: true,
      kind: true,
      description: true,
      origin: true,
      status: true,
      lastCheckAt: true,
      lastCheckMessage: true,
      config: true,
      stats: true,
      _count: { select: { sourceObjects: true } },
      groupAccess: { select: { group: { select: { id: true, name: true } } } },
      openToEveryone: true,
    },
  });
  return rows.map(toListItem);
}

export interface KbDetail extends KbListItem {
  descriptor: string | null;
  descriptorCompact: string | null;
  descriptorVersion: string | null;
  describedAt: string | null;
  indexedAt: string | null;
  entityCount: number;
  /** Non-secret settings only; `hasSecrets` says whether a password is stored. */
  config: Record<string, unknown>;
  hasSecrets: boolean;
  /** What the connection may do beyond reading (PostgreSQL roles), from the last check. */
  privilegeRisks: string[];
  /** When and by whom an admin accepted those risks, if they did. */
  riskAcceptedAt: string | null;
  riskAcceptedBy: string | null;
}

export async function getKnowledgeBase(prisma: PrismaClient, user: AccessSubject, id: string): Promise<KbDetail> {
  const r = await prisma.knowledgeBase.findFirst({
    where: { AND: [{ id }, kbAccessWhere(user)] },
    include: { _count: { select: { sourceObjects: true } }, groupAccess: { select: { group: { select: { id: true, name: true } } } } },
  });
  if (!r) throw new AppError("NOT_FOUND", "That knowledge base does not exist or is not shared with you.");
  return {
    ...toListItem(r),
    descriptor: r.descriptor,
    descriptorCompact: r.descriptorCompact,
    descriptorVersion: r.descriptorVersion,
    describedAt: r.describedAt?.toISOString() ?? null,
    indexedAt: r.indexedAt?.toISOString() ?? null,
    entityCount: r.entityCount,
    config: (r.config ?? {}) as Record<string, unknown>,
    hasSecrets: !!r.secretsCiphertext,
    privilegeRisks: Array.isArray(r.privilegeRisks) ? r.privilegeRisks.map(String) : [],
    riskAcceptedAt: r.riskAcceptedAt?.toISOString() ?? null,
    riskAcceptedBy: r.riskAcceptedBy,
  };
}

/**
 * An admin accepts (or withdraws acceptance of) the risk of a connection that may do more than read,
 * then the connection is checked again so the status says what now holds.
 */
export async function setPrivilegeRiskAcceptance(
  prisma: PrismaClient,
  deps: CatalogDeps,
  actor: { email: string },
  raw: { id: string; accept: boolean },
) {
  const input = privilegeRiskSchema.parse(raw);
  const kb = await prisma.knowledgeBase.findUnique({ where: { id: input.id }, select: { id: true } });
  if (!kb) throw new AppError("NOT_FOUND", "That knowledge base no longer exists.");
  await prisma.knowledgeBase.update({
    where: { id: input.id },
    data: input.accept ? { riskAcceptedAt: new Date(), riskAcceptedBy: actor.email } : { riskAcceptedAt: null, riskAcceptedBy: null },
  });
  await closeBackend(input.id);
  return checkKnowledgeBase(prisma, deps, input.id);
}

export async function updateKnowledgeBase(
  prisma: PrismaClient,
  raw: { id: string; name: string; description?: string; groupIds?: string[]; openToEveryone?: boolean },
) {
  const input = updateKbSchema.parse(raw);
  const exists = await prisma.knowledgeBase.findUnique({ where: { id: input.id }, select: { id: true } });
  if (!exists) throw new AppError("NOT_FOUND", "That knowledge base no longer exists.");
  const clash = await prisma.knowledgeBase.findFirst({ where: { name: input.name, id: { not: input.id } }, select: { id: true } });
  if (clash) throw new AppError("CONFLICT", `A knowledge base named "${input.name}" already exists.`, { name: "This name is taken." });
  if (input.groupIds.length) {
    const found = await prisma.group.count({ where: { id: { in: input.groupIds } } });
    if (found !== new Set(input.groupIds).size)
      throw new AppError("VALIDATION", "One of the chosen groups no longer exists.", { groupIds: "Unknown group." });
  }
  await prisma.$transaction([
    prisma.kbGroupAccess.deleteMany({ where: { kbId: input.id } }),
    prisma.kbGroupAccess.createMany({ data: [...new Set(input.groupIds)].map((groupId) => ({ kbId: input.id, groupId })) }),
    prisma.knowledgeBase.update({
      where: { id: input.id },
      data: { name: input.name, description: input.description, openToEveryone: input.openToEveryone },
    }),
  ]);
}

/** Deletes the KB and everything derived from it: source objects, guide sources, entity labels, files. */
export async function deleteKnowledgeBase(prisma: PrismaClient, deps: CatalogDeps, id: string) {
  const kb = await prisma.knowledgeBase.findUnique({
    where: { id },
    select: { id: true, name: true, kind: true, config: true, secretsCiphertext: true },
  });
  if (!kb) throw new AppError("NOT_FOUND", "That knowledge base no longer exists.");
  await closeBackend(id);
  await prisma.knowledgeBase.delete({ where: { id } });
  await removeKbData(kb, deps);
  return { name: kb.name };
}

export async function previewSourceUnit(
  prisma: PrismaClient,
  deps: CatalogDeps,
  user: AccessSubject,
  kbId: string,
  key: string,
  limit = 20,
): Promise<Preview> {
  const kb = await prisma.knowledgeBase.findFirst({ where: { AND: [{ id: kbId }, kbAccessWhere(user)] } });
  if (!kb) throw new AppError("NOT_FOUND", "That knowledge base does not exist or is not shared with you.");
  return withBackendErrors(() => openBackend({ ...kb, kind: kb.kind as KbKind }, deps).preview(key, { limit }));
}
