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

/** The embedding jobs a successful refresh calls for (none when the KB could not be described). */
export async function queueEmbeddingsAfterRefresh(prisma: PrismaClient, kbId: string, report: RefreshReport): Promise<void> {
  if (report.status !== "HEALTHY") return;
  if (report.kind === "DOCUMENTS") await enqueueCollectionEmbedding(prisma, kbId);
  await enqueueCatalogEmbedding(prisma);
}
