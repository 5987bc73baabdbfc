import { closeBackend, openBackend } from "../backends/registry";
import type { KbKind, SourceUnit } from "../backends/types";
import type { PrismaClient, Prisma } from "../db/generated/client";
import { AppError } from "../errors";
import type { CatalogDeps } from "../deps";
import { normalizeLabel } from "./normalize";

export const ENTITY_INDEX_LIMIT = 50_000;

export interface RefreshReport {
  status: "HEALTHY" | "UNREACHABLE" | "ERROR";
  /** Set when the KB was described: what the caller may need to do next depends on its kind (vectors for a collection's passages). */
  kind?: KbKind;
  message: string;
  /** The source answered but its connection may do more than read, and no admin accepted that. */
  refused?: boolean;
  descriptorVersion?: string;
  sourceObjects?: { created: number; updated: number; removed: number };
  entities?: number;
}

async function loadKb(prisma: PrismaClient, kbId: string) {
  const kb = await prisma.knowledgeBase.findUnique({ where: { id: kbId } });
  if (!kb) throw new AppError("NOT_FOUND", "That knowledge base no longer exists.");
  return { ...kb, kind: kb.kind as KbKind };
}

/**
 * Connection check only: updates status, last check and what the connection may do beyond reading. A
 * source that answered but is refused (a PostgreSQL role that can write, not accepted) is ERROR, not
 * UNREACHABLE: reaching it is not the problem.
 */
export async function checkKnowledgeBase(prisma: PrismaClient, deps: CatalogDeps, kbId: string) {
  const kb = await loadKb(prisma, kbId);
  let ok = false;
  let refused = false;
  let message: string;
  let privilegeRisks: string[] | undefined;
  try {
    const health = await openBackend(kb, deps).check();
    ok = health.ok;
    refused = !!health.refused;
    message = health.message;
    privilegeRisks = health.privilegeRisks;
  } catch (e) {
    message = (e as Error).message;
  }
  await prisma.knowledgeBase.update({
    where: { id: kbId },
    data: {
      status: ok ? "HEALTHY" : refused ? "ERROR" : "UNREACHABLE",
      lastCheckAt: new Date(),
      lastCheckMessage: message,
      ...(privilegeRisks ? { privilegeRisks } : {}),
    },
  });
  return { ok, message, refused, privilegeRisks: privilegeRisks ?? [] };
}

/**
 * Re-describe: check the connection, store the descriptor c_b, sync source objects with the KB's
 * units (analyst-edited descriptions and dynamic objects are kept), and rebuild the entity index.
 * A KB that cannot be reached is marked so and keeps its previous descriptor. Returns what happened;
 * what the new content needs next (vectors) is the caller's to ask for (lib/ingest/refresh.ts).
 */
export async function refreshCatalogEntry(
  prisma: PrismaClient,
  deps: CatalogDeps,
  kbId: string,
  parts: { describe?: boolean; index?: boolean } = { describe: true, index: true },
): Promise<RefreshReport> {
  const { ok, message, refused } = await checkKnowledgeBase(prisma, deps, kbId);
  if (!ok) return { status: refused ? "ERROR" : "UNREACHABLE", message, ...(refused ? { refused } : {}) };
  const kb = await loadKb(prisma, kbId);
  const backend = openBackend(kb, deps);
  try {
    const report: RefreshReport = { status: "HEALTHY", kind: kb.kind, message };
    if (parts.describe) {
      const descriptor = await backend.describe();
      await prisma.knowledgeBase.update({
        where: { id: kbId },
        data: {
          descriptor: descriptor.text,
          descriptorCompact: descriptor.compact,
          descriptorVersion: descriptor.version,
          describedAt: new Date(),
          stats: descriptor.stats as Prisma.InputJsonValue,
          status: "HEALTHY",
        },
      });
      report.descriptorVersion = descriptor.version;
    }
    if (parts.index) {
      // Source objects and the entity index are what source selection and entity linking search.
      const units = await backend.sourceUnits();
      const entities = await backend.entityIndex({ limit: ENTITY_INDEX_LIMIT });
      report.sourceObjects = await syncSourceObjects(prisma, kbId, units);
      await replaceEntityLabels(prisma, kbId, entities);
      await prisma.knowledgeBase.update({
        where: { id: kbId },
        data: { entityCount: entities.length, indexedAt: new Date(), status: "HEALTHY" },
      });
      report.entities = entities.length;
    }
    return report;
  } catch (e) {
    const msg = (e as Error).message;
    await prisma.knowledgeBase.update({ where: { id: kbId }, data: { status: "ERROR", lastCheckMessage: `Describing failed: ${msg}` } });
    await closeBackend(kbId);
    return { status: "ERROR", message: `Describing failed: ${msg}` };
  }
}

export async function syncSourceObjects(prisma: PrismaClient, kbId: string, units: SourceUnit[]) {
  const existing = await prisma.sourceObject.findMany({
    where: { kbId },
    select: { id: true, key: true, mode: true, descriptionEdited: true },
  });
  const byKey = new Map(existing.map((o) => [o.key, o]));
  let created = 0;
  let updated = 0;
  for (const unit of units) {
    const current = byKey.get(unit.key);
    const data = {
      name: unit.name,
      contentType: unit.contentType,
      tags: unit.tags,
      metadata: unit.metadata as Prisma.InputJsonValue,
    };
    if (!current) {
      await prisma.sourceObject.create({ data: { kbId, key: unit.key, description: unit.description, ...data } });
      created++;
    } else if (current.mode === "STATIC") {
      // An analyst's curation (name, description, tags) survives re-describing; content facts are refreshed.
      await prisma.sourceObject.update({
        where: { id: current.id },
        data: current.descriptionEdited
          ? { contentType: unit.contentType, metadata: data.metadata }
          : { ...data, description: unit.description },
      });
      updated++;
    }
  }
  const unitKeys = new Set(units.map((u) => u.key));
  const gone = existing.filter((o) => o.mode === "STATIC" && !unitKeys.has(o.key)).map((o) => o.id);
  if (gone.length) await prisma.sourceObject.deleteMany({ where: { id: { in: gone } } });
  return { created, updated, removed: gone.length };
}

async function replaceEntityLabels(
  prisma: PrismaClient,
  kbId: string,
  entries: { label: string; kind: string; ref: string; sourceObject: string | null }[],
) {
  await prisma.entityLabel.deleteMany({ where: { kbId } });
  const rows = entries
    .map((e) => {
      const normalized = normalizeLabel(e.label).slice(0, 500);
      return {
        kbId,
        label: e.label.slice(0, 500),
        normalized,
        head: normalized.split(" ")[0] ?? "",
        kind: e.kind,
        ref: e.ref.slice(0, 2000),
        sourceObject: e.sourceObject,
      };
    })
    .filter((r) => r.normalized.length > 0);
  for (let i = 0; i < rows.length; i += 2000) {
    await prisma.entityLabel.createMany({ data: rows.slice(i, i + 2000) });
  }
}
