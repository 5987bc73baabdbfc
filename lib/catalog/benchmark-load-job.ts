import { existsSync } from "node:fs";
import { Prisma, type PrismaClient } from "../db/generated/client";
import { AppError } from "../errors";
import { log } from "../log";
import { type BenchmarkLoadOptions, loadBenchmarkCatalog } from "./benchmarks";
import type { CatalogDeps } from "./deps";

/**
 * Loading the benchmark catalog from the Evaluation page: one load at a time across every instance on
 * the database, run in the background in the instance that was asked, its progress kept in the
 * database (a settings row with a heartbeat) so that any instance answers the page's polling. A load
 * whose instance stopped is shown as stopped; started again, it skips what is already registered.
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

/** The status row every instance reads (the load runs in the instance that was asked to start it). */
const STATUS_KEY = "benchmark-catalog.load";
/** A running load writes its status at least this often; older than STALE_MS, its instance stopped. */
const HEARTBEAT_MS = 10_000;
const STALE_MS = 60_000;

type StoredStatus = BenchmarkLoadStatus & { heartbeatAt: string };

const g = globalThis as unknown as { __mosaicBenchmarkLoad?: { done: Promise<void> } };

async function readStored(prisma: PrismaClient): Promise<{ status: StoredStatus; updatedAt: Date } | null> {
  const row = await prisma.setting.findUnique({ where: { key: STATUS_KEY }, select: { value: true, updatedAt: true } });
  return row ? { status: row.value as unknown as StoredStatus, updatedAt: row.updatedAt } : null;
}

function isStale(status: StoredStatus): boolean {
  return Date.now() - new Date(status.heartbeatAt).getTime() > STALE_MS;
}

function publicStatus(stored: StoredStatus): BenchmarkLoadStatus {
  const { heartbeatAt, ...status } = stored;
  if (status.state === "running" && isStale({ ...status, heartbeatAt })) {
    return { ...status, state: "failed", current: null, error: "The load stopped when the server running it stopped. Start it again: what is already loaded is skipped." };
  }
  return status;
}

/** The latest load, whichever instance runs or ran it; null when none ran. */
export async function benchmarkLoadStatus(prisma: PrismaClient): Promise<BenchmarkLoadStatus | null> {
  const stored = await readStored(prisma);
  return stored ? publicStatus(stored.status) : null;
}

/**
 * Starts loading the benchmark catalog in this instance unless a load is going on in any instance;
 * returns its status at once. The status row is claimed with a conditional write, so two instances
 * asked at the same moment do not both start.
 */
export async function startBenchmarkLoad(prisma: PrismaClient, deps: CatalogDeps, opts: Pick<BenchmarkLoadOptions, "neo4j"> = {}): Promise<BenchmarkLoadStatus> {
  const busy = new AppError("CONFLICT", "The benchmark catalog is already loading. Its progress is shown on this page.");
  const previous = await readStored(prisma);
  if (previous && previous.status.state === "running" && !isStale(previous.status)) throw busy;
  if (!existsSync(deps.datasetsDir)) {
    throw new AppError("UNAVAILABLE", `The datasets folder was not found at ${deps.datasetsDir}. Set DATASETS_DIR to the folder that holds the benchmark datasets and restart Mosaic.`);
  }
  const now = () => new Date().toISOString();
  const status: StoredStatus = { state: "running", startedAt: now(), finishedAt: null, done: 0, total: 0, current: null, registered: 0, skipped: 0, failed: [], error: null, heartbeatAt: now() };
  const value = () => ({ ...status, heartbeatAt: now() }) as unknown as Prisma.InputJsonValue;
  if (previous) {
    const claimed = await prisma.setting.updateMany({ where: { key: STATUS_KEY, updatedAt: previous.updatedAt }, data: { value: value() } });
    if (claimed.count === 0) throw busy;
  } else {
    try {
      await prisma.setting.create({ data: { key: STATUS_KEY, value: value() } });
    } catch (e) {
      if (e instanceof Prisma.PrismaClientKnownRequestError && e.code === "P2002") throw busy;
      throw e;
    }
  }
  // Writes are chained so the row never goes back to an older state.
  let writes = Promise.resolve();
  const save = () => {
    writes = writes.then(() => prisma.setting.update({ where: { key: STATUS_KEY }, data: { value: value() } }).then(() => undefined)).catch((err) => log.warn({ err }, "could not record the benchmark load's progress"));
    return writes;
  };
  const heartbeat = setInterval(() => void save(), HEARTBEAT_MS);
  heartbeat.unref();
  const done = loadBenchmarkCatalog(prisma, deps, {
    neo4j: opts.neo4j,
    progress: (p) => {
      Object.assign(status, p);
      void save();
    },
    log: (line) => log.info({ job: "benchmark-load" }, line),
  })
    .then((report) => {
      Object.assign(status, { state: "done", registered: report.registered.length, skipped: report.skipped.length, failed: report.failed });
    })
    .catch((e: Error) => {
      log.error({ err: e }, "loading the benchmark catalog failed");
      Object.assign(status, { state: "failed", error: e.message });
    })
    .finally(async () => {
      clearInterval(heartbeat);
      status.current = null;
      status.finishedAt = now();
      await save();
    });
  g.__mosaicBenchmarkLoad = { done };
  return publicStatus({ ...status, heartbeatAt: now() });
}

/** For tests and shutdown: waits for the load going on, if any. */
export async function waitForBenchmarkLoad(): Promise<void> {
  await g.__mosaicBenchmarkLoad?.done;
}
