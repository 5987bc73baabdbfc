import type { PrismaClient } from "../db/generated/client";
import type { CatalogDeps } from "../deps";
import { embedCatalogTextsJob, embedCollectionJob } from "../jobs/definitions";
import { resolveModels } from "../models/runtime";
import { drainJobs } from "./job-processor";
import { enqueueCatalogEmbedding, reconcileCollectionEmbeddings } from "../ingest/documents/embedding-queue";

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
