import { type RefreshReport, refreshCatalogEntry } from "../catalog/refresh";
import type { PrismaClient } from "../db/generated/client";
import type { CatalogDeps } from "../deps";
import { enqueueCatalogEmbedding, enqueueCollectionEmbedding } from "./documents/embedding-queue";

/**
 * Re-describes a knowledge base (the catalog's descriptor, source objects and entity index), then asks
 * for what its new content needs: vectors for a collection's new or changed passages, and for the
 * catalog's new texts, in the background (semantic signals use them once there).
 */
export async function refreshKnowledgeBase(
  prisma: PrismaClient,
  deps: CatalogDeps,
  kbId: string,
  parts?: { describe?: boolean; index?: boolean },
): Promise<RefreshReport> {
  const report = await refreshCatalogEntry(prisma, deps, kbId, parts);
  await queueEmbeddingsAfterRefresh(prisma, kbId, report);
  return report;
}

/**
 * The embedding jobs a successful refresh calls for (none when the KB could not be described); returns
 * their ids, the collection's own job first, so a caller can say where the work continues.
 */
export async function queueEmbeddingsAfterRefresh(prisma: PrismaClient, kbId: string, report: RefreshReport): Promise<string[]> {
  if (report.status !== "HEALTHY") return [];
  const ids: string[] = [];
  if (report.kind === "DOCUMENTS") ids.push((await enqueueCollectionEmbedding(prisma, kbId)).id);
  ids.push((await enqueueCatalogEmbedding(prisma)).id);
  return ids;
}
