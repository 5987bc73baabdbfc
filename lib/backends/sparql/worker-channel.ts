import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";

/**
 * Where the Oxigraph worker file is. A Worker starts from a file path that Node loads itself, so the
 * path must point at the source file, not at a bundled copy: Next.js bundles server code into .next/
 * (where import.meta.url no longer names this folder) but runs with the repository as its working
 * directory, while tsx and vitest run the source in place. So: the repository path first, then this
 * module's own folder. The joins are computed at run time so no bundler tries to follow them.
 */
const WORKER_FILE = "oxigraph-worker.mjs";

export function oxigraphWorkerPath(): string {
  const candidates = [path.join(process.cwd(), "lib", "backends", "sparql", WORKER_FILE)];
  try {
    candidates.push(path.join(path.dirname(fileURLToPath(import.meta.url)), WORKER_FILE));
  } catch {
    // import.meta.url is not a file: URL in some bundles; the working-directory path is then the only one.
  }
  const found = candidates.find((p) => existsSync(p));
  if (!found) throw new Error(`The Oxigraph worker file was not found (looked in ${candidates.join(", ")}).`);
  return found;
}

export interface WorkerFailure {
  message: string;
  name?: string;
  file?: string;
}

/** How a call ended when it did not get a reply. */
export type CallOutcome = { kind: "reply"; reply: Record<string, unknown> } | { kind: "timeout" } | { kind: "aborted" } | { kind: "crashed"; message: string };

/**
 * One Oxigraph worker and one call at a time. A call that runs past its time limit, or whose signal
 * aborts, terminates the worker: that is the only way to stop a synchronous wasm query. The channel is
 * then dead and its owner starts a new one.
 */
export class WorkerChannel {
  private readonly worker: Worker;
  private nextId = 1;
  private pending: { id: number; settle: (o: CallOutcome) => void } | null = null;
  private deadReason: string | null = null;

  constructor() {
    this.worker = new Worker(oxigraphWorkerPath());
    // An idle store must not keep the process alive; a call holds a reference while it runs.
    this.worker.unref();
    this.worker.on("message", (msg: { id: number }) => {
      if (this.pending && msg.id === this.pending.id) this.finish({ kind: "reply", reply: msg as unknown as Record<string, unknown> });
    });
    this.worker.on("error", (e) => this.die(`the store crashed: ${e.message}`));
    this.worker.on("exit", (code) => this.die(`the store stopped (exit code ${code})`));
  }

  get alive(): boolean {
    return this.deadReason === null;
  }

  call(message: Record<string, unknown>, timeoutMs: number, signal?: AbortSignal, transfer?: ArrayBuffer[]): Promise<CallOutcome> {
    if (this.deadReason) return Promise.resolve({ kind: "crashed", message: this.deadReason });
    if (this.pending) throw new Error("WorkerChannel runs one call at a time.");
    if (signal?.aborted) return Promise.resolve({ kind: "aborted" });
    const id = this.nextId++;
    return new Promise<CallOutcome>((resolve) => {
      const timer = setTimeout(() => {
        this.finish({ kind: "timeout" });
        void this.terminate();
      }, timeoutMs);
      const onAbort = () => {
        this.finish({ kind: "aborted" });
        void this.terminate();
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.pending = {
        id,
        settle: (outcome) => {
          clearTimeout(timer);
          signal?.removeEventListener("abort", onAbort);
          this.worker.unref();
          resolve(outcome);
        },
      };
      this.worker.ref();
      this.worker.postMessage({ ...message, id }, transfer ?? []);
    });
  }

  async terminate(): Promise<void> {
    this.die("the store was stopped");
    await this.worker.terminate();
  }

  private finish(outcome: CallOutcome): void {
    const p = this.pending;
    this.pending = null;
    p?.settle(outcome);
  }

  private die(reason: string): void {
    if (this.deadReason) return;
    this.deadReason = reason;
    this.finish({ kind: "crashed", message: reason });
  }
}
