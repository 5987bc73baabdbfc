import { existsSync } from "node:fs";
import type { PrismaClient } from "../db/generated/client";
import { AppError } from "../errors";
import { log } from "../log";
import { type BenchmarkLoadOptions, loadBenchmarkCatalog } from "./benchmarks";
import type { CatalogDeps } from "./deps";

/**
 * Loading the benchmark catalog from the Evaluation page: one job per server, run in the background
 * in the server process, its progress read by polling. Everything outside this module goes through
 * startBenchmarkLoad / benchmarkLoadStatus, so the job can move onto the app database's job queue
 * without its callers changing. The state lives on globalThis because Next.js may load this module
 * more than once; it is lost on restart, and a restarted load skips what is already registered.
 */
export interface BenchmarkLoadStatus {
  state: "running" | "done" | "failed";
  startedAt: string;
  finishedAt: string | null;
  /** Knowledge bases handled so far (loaded, already there or failed) out of total. */
  done: number;
  total: number;
  /** The knowledge base being loaded now. */
  current: string | null;
  registered: number;
  skipped: number;
  failed: { name: string; error: string }[];
  /** Why the whole job stopped, when it did. */
  error: string | null;
}

const g = globalThis as unknown as { __mosaicBenchmarkLoad?: { status: BenchmarkLoadStatus; done: Promise<void> } };

export function benchmarkLoadStatus(): BenchmarkLoadStatus | null {
  return g.__mosaicBenchmarkLoad ? { ...g.__mosaicBenchmarkLoad.status } : null;
}

/** Starts loading the benchmark catalog unless a load is already going; returns its status at once. */
export function startBenchmarkLoad(prisma: PrismaClient, deps: CatalogDeps, opts: Pick<BenchmarkLoadOptions, "neo4j"> = {}): BenchmarkLoadStatus {
  if (g.__mosaicBenchmarkLoad?.status.state === "running") throw new AppError("CONFLICT", "The benchmark catalog is already loading. Its progress is shown on this page.");
  if (!existsSync(deps.datasetsDir)) {
    throw new AppError("UNAVAILABLE", `The datasets folder was not found at ${deps.datasetsDir}. Set DATASETS_DIR to the folder that holds the benchmark datasets and restart Mosaic.`);
  }
  const status: BenchmarkLoadStatus = { state: "running", startedAt: new Date().toISOString(), finishedAt: null, done: 0, total: 0, current: null, registered: 0, skipped: 0, failed: [], error: null };
  const done = loadBenchmarkCatalog(prisma, deps, {
    neo4j: opts.neo4j,
    progress: (p) => Object.assign(status, p),
    log: (line) => log.info({ job: "benchmark-load" }, line),
  })
    .then((report) => {
      Object.assign(status, { state: "done", registered: report.registered.length, skipped: report.skipped.length, failed: report.failed });
    })
    .catch((e: Error) => {
      log.error({ err: e }, "loading the benchmark catalog failed");
      Object.assign(status, { state: "failed", error: e.message });
    })
    .finally(() => {
      status.current = null;
      status.finishedAt = new Date().toISOString();
    });
  g.__mosaicBenchmarkLoad = { status, done };
  return { ...status };
}

/** For tests and shutdown: waits for the load going on, if any. */
export async function waitForBenchmarkLoad(): Promise<void> {
  await g.__mosaicBenchmarkLoad?.done;
}
