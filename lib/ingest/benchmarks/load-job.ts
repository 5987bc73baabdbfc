import { existsSync } from "node:fs";
import type { PrismaClient } from "../../db/generated/client";
import { AppError } from "../../errors";
import { loadBenchmarksJob } from "../../jobs/definitions";
import { type JobView, cancelJob, enqueueJob, getJob, latestJobOfKind } from "../../jobs/queue";
import type { CatalogDeps } from "../../deps";

/**
 * Loading the benchmark catalog from the Evaluation page, as a job on the app database's queue (like
 * embedding a collection): it survives a restart and resumes (what is registered is skipped), it can be
 * cancelled between knowledge bases, and its progress is the job's. Its handler is
 * lib/catalog/benchmark-load-handler.ts; this module only starts, reads and cancels it.
 */

/** One load at a time: the job's key while it is unfinished. */
export const BENCHMARK_LOAD_KEY = loadBenchmarksJob.id;

/** The latest benchmark catalog load (running, or how the last one ended); null when none ran. */
export function benchmarkLoadStatus(prisma: PrismaClient): Promise<JobView | null> {
  return latestJobOfKind(prisma, loadBenchmarksJob.id);
}

/** Queues a load unless one is waiting or running; returns its job at once. */
export async function startBenchmarkLoad(prisma: PrismaClient, deps: CatalogDeps): Promise<JobView> {
  if (!existsSync(deps.datasetsDir)) {
    throw new AppError(
      "UNAVAILABLE",
      `The datasets folder was not found at ${deps.datasetsDir}. Set DATASETS_DIR to the folder that holds the benchmark datasets and restart Mosaic.`,
    );
  }
  const { id, created } = await enqueueJob(prisma, loadBenchmarksJob, {}, { activeKey: BENCHMARK_LOAD_KEY, message: "Waiting to start." });
  if (!created) throw new AppError("CONFLICT", "The benchmark catalog is already loading. Its progress is shown on this page.");
  const job = await getJob(prisma, id);
  if (!job) throw new AppError("NOT_FOUND", "The benchmark catalog load could not be started. Try again.");
  return job;
}

/** Stops the load going on before its next knowledge base; what it registered stays. */
export async function cancelBenchmarkLoad(prisma: PrismaClient): Promise<JobView | null> {
  const job = await benchmarkLoadStatus(prisma);
  if (!job || (job.status !== "QUEUED" && job.status !== "RUNNING"))
    throw new AppError("CONFLICT", "No benchmark catalog load is going on.");
  await cancelJob(prisma, job.id, "Cancelled. What was loaded stays; loading again skips it.");
  return getJob(prisma, job.id);
}
