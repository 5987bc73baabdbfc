import { readVectorState } from "../../backends/documents/vector-store";
import type { PrismaClient } from "../../db/generated/client";
import type { CatalogDeps } from "../../deps";
import { CATALOG_TEXTS_JOB_KEY, embedCatalogTextsJob, embedCollectionJob } from "../../jobs/definitions";
import { type EnqueueResult, type JobView, enqueueJob, latestJobsOfKb } from "../../jobs/queue";
import { log } from "../../log";

/** Asks for the catalog's new or changed texts to be embedded (one job for the whole catalog). */
export function enqueueCatalogEmbedding(prisma: PrismaClient): Promise<EnqueueResult> {
  return enqueueJob(
    prisma,
    embedCatalogTextsJob,
    {},
    { activeKey: CATALOG_TEXTS_JOB_KEY, message: "Waiting to embed the catalog's descriptions for source selection." },
  );
}

/** One unfinished embedding job per collection. */
export function embeddingJobKey(kbId: string): string {
  return `${embedCollectionJob.id}:${kbId}`;
}

/** Asks for the collection's new or changed passages to be embedded (a job already waiting or running covers it). */
export function enqueueCollectionEmbedding(prisma: PrismaClient, kbId: string): Promise<EnqueueResult> {
  return enqueueJob(
    prisma,
    embedCollectionJob,
    { kbId },
    { activeKey: embeddingJobKey(kbId), kbId, message: "Waiting to embed the collection for semantic search." },
  );
}

export interface CollectionVectors {
  rows: number;
  embedded: number;
  /** The model the vectors belong to ("" = none yet). */
  model: string;
}

type VectorDeps = Pick<CatalogDeps, "dataDir" | "encryptionKey">;

/** The vector state of a collection in its engine (SQLite file or OpenSearch); null when it has no index yet. */
export async function collectionVectors(
  prisma: PrismaClient,
  deps: VectorDeps,
  kb: { id: string; name: string },
): Promise<CollectionVectors | null> {
  const row = await prisma.knowledgeBase.findUnique({ where: { id: kb.id }, select: { config: true, secretsCiphertext: true } });
  if (!row) return null;
  const s = await readVectorState({ ...kb, ...row }, deps);
  return s && { rows: s.rows, embedded: s.embedded, model: s.model };
}

/**
 * Gives every collection whose vectors are missing, incomplete or of another model than `embedderId`
 * an embedding job: run at start (a model changed while the app was down, a job was never queued)
 * and after the model settings change. Returns how many jobs were asked for.
 */
export async function reconcileCollectionEmbeddings(prisma: PrismaClient, deps: VectorDeps, embedderId: string): Promise<number> {
  const kbs = await prisma.knowledgeBase.findMany({ where: { kind: "DOCUMENTS" }, select: { id: true, name: true } });
  let asked = 0;
  for (const kb of kbs) {
    try {
      const v = await collectionVectors(prisma, deps, kb);
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
export async function collectionEmbeddingStatus(
  prisma: PrismaClient,
  deps: VectorDeps,
  kb: { id: string; name: string },
): Promise<EmbeddingStatus> {
  const [job] = (await latestJobsOfKb(prisma, kb.id)).filter((j) => j.kind === embedCollectionJob.id);
  let vectors: CollectionVectors | null = null;
  try {
    vectors = await collectionVectors(prisma, deps, kb);
  } catch {
    // An unreadable index is reported by the KB's health check; here it just has no vectors.
  }
  return { job: job ?? null, rows: vectors?.rows ?? 0, embedded: vectors?.embedded ?? 0, model: vectors?.model ?? "" };
}
