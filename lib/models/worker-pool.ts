import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Piscina } from "piscina";

/**
 * The inference worker threads (workers/inference-worker.mjs), managed by Piscina: sized to the cores;
 * a thread that dies is replaced and the tasks it was running are rejected (their callers fall back).
 * A running batch is never aborted from outside: terminating a thread while onnxruntime's native run
 * is in flight aborts the whole process (its completion lands on a torn-down thread), so callers are
 * bounded by their own time limits (batcher.ts) instead, and shutdown waits for running batches.
 */

const WORKER_FILE = path.join("workers", "inference-worker.mjs");

/**
 * Node loads a worker from a file path, so the path must name the source file: Next.js bundles this
 * module into .next/ but runs from the repository, while tsx and vitest run the source in place (the
 * same rule as the Oxigraph worker in lib/backends/sparql/worker-channel.ts).
 */
export function inferenceWorkerPath(): string {
  const candidates = [path.join(process.cwd(), WORKER_FILE)];
  try {
    candidates.push(path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", WORKER_FILE));
  } catch {
    // import.meta.url is not a file: URL in some bundles; the working-directory path is then the only one.
  }
  const found = candidates.find((p) => existsSync(p));
  if (!found) throw new Error(`The inference worker file was not found (looked in ${candidates.join(", ")}).`);
  return found;
}

export interface PoolStatus {
  threads: number;
  maxThreads: number;
  /** Tasks waiting for a free thread (batches, not texts). */
  queuedTasks: number;
  /** 0..1: the share of time the threads were busy since the pool started. */
  utilization: number;
  completedTasks: number;
  /** Threads that died and were replaced. */
  replacedThreads: number;
}

export class InferencePool {
  private readonly pool: Piscina;
  private replaced = 0;
  private closing = false;

  constructor(opts: { threads: number; idleTimeoutMs?: number }) {
    this.pool = new Piscina({
      filename: inferenceWorkerPath(),
      minThreads: opts.threads,
      maxThreads: opts.threads,
      // Loaded models live in the threads: keep them for the life of the pool.
      idleTimeout: opts.idleTimeoutMs ?? Number.POSITIVE_INFINITY,
      // One batch at a time per thread; the batcher upstream decides what waits.
      concurrentTasksPerWorker: 1,
      // The worker loads onnxruntime's native library; a thread must not inherit tsx/vitest loaders it does not need.
      execArgv: [],
    });
    this.pool.on("workerDestroy", () => {
      if (!this.closing) this.replaced++;
    });
    // An error outside any task (a thread that failed to start) must not crash the server.
    this.pool.on("error", () => undefined);
  }

  run<T>(task: Record<string, unknown>): Promise<T> {
    return this.pool.run(task) as Promise<T>;
  }

  /** The live worker threads (tests end one to check that its tasks fail over and it is replaced). */
  get threads() {
    return this.pool.threads;
  }

  status(): PoolStatus {
    return {
      threads: this.pool.threads.length,
      maxThreads: this.pool.maxThreads,
      queuedTasks: this.pool.queueSize,
      utilization: Number.isFinite(this.pool.utilization) ? this.pool.utilization : 0,
      completedTasks: this.pool.completed,
      replacedThreads: this.replaced,
    };
  }

  /** Lets running and queued batches finish (see above), then stops the threads. */
  async close(): Promise<void> {
    this.closing = true;
    await this.pool.close();
  }
}
