import { existsSync } from "node:fs";
import type { CatalogDeps } from "../../catalog/deps";
import type { PrismaClient } from "../../db/generated/client";
import { embedCollectionJob } from "../../jobs/definitions";
import { type EnqueueResult, type JobView, enqueueJob, latestJobsOfKb } from "../../jobs/queue";
import { log } from "../../log";
import { kbStorageDir } from "../registry";
import { indexPath, openIndexForRead } from "./index-db";
import { vectorState } from "./vectors";

/** One unfinished embedding job per collection. */
export function embeddingJobKey(kbId: string): string {
  return `${embedCollectionJob.id}:${kbId}`;
}

/** Asks for the collection's new or changed passages to be embedded (a job already waiting or running covers it). */
export function enqueueCollectionEmbedding(prisma: PrismaClient, kbId: string): Promise<EnqueueResult> {
  return enqueueJob(prisma, embedCollectionJob, { kbId }, { activeKey: embeddingJobKey(kbId), kbId, message: "Waiting to embed the collection for semantic search." });
}

export interface CollectionVectors {
  rows: number;
  embedded: number;
  /** The model the vectors belong to ("" = none yet). */
  model: string;
}

/** The vector state of a collection on disk; null when it has no index yet. */
export function collectionVectors(deps: Pick<CatalogDeps, "dataDir">, kb: { id: string; name: string }): CollectionVectors | null {
  const ctx = { kbId: kb.id, kbName: kb.name, storageDir: kbStorageDir(deps.dataDir, kb.id) };
  if (!existsSync(indexPath(ctx))) return null;
  const db = openIndexForRead(ctx);
  try {
    const s = vectorState(db);
    return { rows: s.rows, embedded: s.embedded, model: s.model };
  } finally {
    db.close();
  }
}

/**
 * Gives every collection whose vectors are missing, incomplete or of another model than `embedderId`
 * an embedding job: run at start (a model changed while the app was down, a job was never queued)
 * and after the model settings change. Returns how many jobs were asked for.
 */
export async function reconcileCollectionEmbeddings(prisma: PrismaClient, deps: Pick<CatalogDeps, "dataDir">, embedderId: string): Promise<number> {
  const kbs = await prisma.knowledgeBase.findMany({ where: { kind: "DOCUMENTS" }, select: { id: true, name: true } });
  let asked = 0;
  for (const kb of kbs) {
    try {
      const v = collectionVectors(deps, kb);
      if (!v || v.rows === 0 || (v.model === embedderId && v.embedded >= v.rows)) continue;
      await enqueueCollectionEmbedding(prisma, kb.id);
      asked++;
    } catch (err) {
      log.warn({ err, kb: kb.name }, "could not check a collection's vectors");
    }
  }
  return asked;
}

export interface EmbeddingStatus {
  /** The collection's latest embedding job (null: none yet). */
  job: JobView | null;
  /** Passages and table rows, and how many have a vector of `model`. */
  rows: number;
  embedded: number;
  model: string;
}

/** What a collection's page shows about its vectors. */
export async function collectionEmbeddingStatus(prisma: PrismaClient, deps: Pick<CatalogDeps, "dataDir">, kb: { id: string; name: string }): Promise<EmbeddingStatus> {
  const [job] = (await latestJobsOfKb(prisma, kb.id)).filter((j) => j.kind === embedCollectionJob.id);
  let vectors: CollectionVectors | null = null;
  try {
    vectors = collectionVectors(deps, kb);
  } catch {
    // An unreadable index is reported by the KB's health check; here it just has no vectors.
  }
  return { job: job ?? null, rows: vectors?.rows ?? 0, embedded: vectors?.embedded ?? 0, model: vectors?.model ?? "" };
}
