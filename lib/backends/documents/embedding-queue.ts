import type { CatalogDeps } from "../../catalog/deps";
import type { PrismaClient } from "../../db/generated/client";
import { CATALOG_TEXTS_JOB_KEY, embedCatalogTextsJob, embedCollectionJob } from "../../jobs/definitions";
import { type EnqueueResult, type JobView, enqueueJob, latestJobsOfKb } from "../../jobs/queue";
import { drainJobs } from "../../jobs/processor";
import { log } from "../../log";
import { resolveModels } from "../../models/runtime";
import { readVectorState } from "./vector-store";

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

/**
 * For command-line tools that load collections (benchmark catalog, benchmarks): there is no server to
 * hand the embedding jobs to, so they run here, now. Collections whose vectors are missing or of another
 * model are queued first; progress is reported every `everyMs`. Returns what happened in words.
 */
export async function embedCollectionsNow(
  prisma: PrismaClient,
  deps: CatalogDeps,
  opts: { exclusive: boolean; log?: (line: string) => void; everyMs?: number },
): Promise<string> {
  const log = opts.log ?? (() => undefined);
  const models = await resolveModels(prisma);
  if (!models.embedder)
    return models.notes.length
      ? `Collections were not embedded: ${models.notes.join(" ")}`
      : "Collections were not embedded: models are switched off.";
  const queued = await reconcileCollectionEmbeddings(prisma, deps, models.embedder.info.id);
  await enqueueCatalogEmbedding(prisma);
  const pending = await prisma.job.count({
    where: { kind: { in: [embedCollectionJob.id, embedCatalogTextsJob.id] }, status: { in: ["QUEUED", "RUNNING"] } },
  });
  if (!queued && !pending) return `Every collection is embedded with ${models.embedder.info.id}.`;
  const started = Date.now();
  const timer = setInterval(() => {
    void prisma.job
      .findMany({
        where: { kind: { in: [embedCollectionJob.id, embedCatalogTextsJob.id] }, status: "RUNNING" },
        select: { message: true, kb: { select: { name: true } } },
      })
      .then((running) => running.forEach((j) => log(`${j.kb?.name ?? "catalog"}: ${j.message}`)))
      .catch(() => undefined);
  }, opts.everyMs ?? 15_000);
  try {
    await drainJobs({ prisma, deps }, { exclusive: opts.exclusive });
  } finally {
    clearInterval(timer);
  }
  const failed = await prisma.job.findMany({
    where: { kind: embedCollectionJob.id, status: "FAILED", finishedAt: { gte: new Date(started) } },
    select: { error: true, kb: { select: { name: true } } },
  });
  for (const f of failed) log(`${f.kb?.name ?? "collection"}: could not be embedded: ${f.error}`);
  return `Collections embedded with ${models.embedder.info.id} in ${((Date.now() - started) / 1000).toFixed(1)} s${failed.length ? ` (${failed.length} failed)` : ""}.`;
}
