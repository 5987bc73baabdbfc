import { type ChildProcess, fork } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * One helper process and one call at a time: what the engines use for work that must be stoppable
 * whatever it is doing (SQLite queries, the embedded RDF store, parsing query texts). A call past its
 * time limit, over its memory limit, or whose signal aborts kills the process; the owner starts a new one.
 *
 * Why processes and not worker threads: a worker cannot be stopped while native code runs (better-sqlite3
 * never returns to JavaScript during a runaway query), its `resourceLimits` bound only the JavaScript
 * heap (Oxigraph's WebAssembly memory grew to 3.3 GB in a worker limited to 128 MB), and a worker that
 * reaches its heap limit can abort the whole server ("FATAL ERROR: Reached heap limit", measured with
 * node-sql-parser's exponential backtracking). A process that dies takes nothing else with it.
 */

/**
 * The helper files, each at its repository path spelled out: Next.js traces the files a server module
 * reads, and a path joined from arguments onto the working directory made it trace (and warn about)
 * the whole project. A new helper gets its line here.
 */
const HELPER_FILES: Record<string, () => string> = {
  "lib/backends/sql/parse-child.mjs": () => path.join(process.cwd(), "lib", "backends", "sql", "parse-child.mjs"),
  "lib/backends/sql/sqlite/query-child.mjs": () => path.join(process.cwd(), "lib", "backends", "sql", "sqlite", "query-child.mjs"),
  "lib/ingest/documents/parsers/parse-child.mjs": () =>
    path.join(process.cwd(), "lib", "ingest", "documents", "parsers", "parse-child.mjs"),
  "lib/backends/sparql/oxigraph-child.mjs": () => path.join(process.cwd(), "lib", "backends", "sparql", "oxigraph-child.mjs"),
};

/** Resolves a helper file the way Node must load it: the repository copy first (Next.js bundles server code elsewhere), then the caller's folder. */
export function helperFilePath(repoFolder: string[], fileName: string, moduleUrl: string): string {
  const repoPath = [...repoFolder, fileName].join("/");
  const inRepository = HELPER_FILES[repoPath];
  if (!inRepository) throw new Error(`${repoPath} is not a known helper file (lib/backends/child-channel.ts lists them).`);
  const candidates = [inRepository()];
  try {
    candidates.push(path.join(path.dirname(fileURLToPath(moduleUrl)), fileName));
  } catch {
    // import.meta.url is not a file: URL in some bundles; the working-directory path is then the only one.
  }
  const found = candidates.find((p) => existsSync(p));
  if (!found) throw new Error(`The helper file ${fileName} was not found (looked in ${candidates.join(", ")}).`);
  return found;
}

export interface ChildChannelOptions {
  /** Absolute path of the plain-JavaScript helper (see helperFilePath). */
  file: string;
  /** For messages and logs: "the SQLite query process". */
  label: string;
  /** Node and V8 flags of the helper, e.g. --max-old-space-size. */
  execArgv?: string[];
  /** The helper's whole environment: nothing is inherited unless listed, so no secret reaches it. */
  env?: NodeJS.ProcessEnv;
  /** Resident memory the helper may use while a call runs; past it the helper is killed (Linux: /proc). */
  memoryLimitMb?: number;
  startTimeoutMs?: number;
}

export type CallOutcome =
  | { kind: "reply"; reply: Record<string, unknown> }
  | { kind: "timeout" }
  | { kind: "aborted" }
  | { kind: "memory"; limitMb: number }
  | { kind: "crashed"; message: string };

const DEFAULT_START_TIMEOUT_MS = 15_000;
/** How often a running call's memory is looked at: growth between looks stays small against any sane limit. */
const MEMORY_POLL_MS = 20;

/** The environment variables a helper may see: where temporary files go, and nothing else. */
export function helperEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { NODE_ENV: process.env.NODE_ENV };
  for (const key of ["PATH", "TMPDIR", "SQLITE_TMPDIR"]) if (process.env[key]) env[key] = process.env[key];
  return env;
}

/** Resident set size of a process in MB, or null where /proc is not available. */
export function residentMb(pid: number): number | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const m = /VmRSS:\s+(\d+)\s+kB/.exec(status);
    return m ? Number(m[1]) / 1024 : null;
  } catch {
    return null;
  }
}

export class ChildChannel {
  private nextId = 1;
  private pending: { id: number; settle: (o: CallOutcome) => void } | null = null;
  private deadReason: string | null = null;
  private stderrTail = "";

  private constructor(
    private readonly child: ChildProcess,
    private readonly options: ChildChannelOptions,
  ) {
    child.stderr?.on("data", (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString("utf8")).slice(-2000);
    });
    child.on("message", (msg: { id?: number }) => {
      if (this.pending && msg?.id === this.pending.id) this.finish({ kind: "reply", reply: msg as Record<string, unknown> });
    });
    child.on("error", (e) => this.die(`${options.label} failed: ${e.message}`));
    child.on("exit", (code, signal) => this.die(`${options.label} stopped (${signal ?? `exit code ${code}`})`));
    this.release();
  }

  /** Starts the helper and waits for its `{ type: "ready" }` (loading libraries is not a call's time). */
  static start(options: ChildChannelOptions): Promise<ChildChannel> {
    return new Promise<ChildChannel>((resolve, reject) => {
      const child = fork(options.file, [], {
        serialization: "advanced",
        execArgv: options.execArgv ?? [],
        env: options.env ?? helperEnv(),
        stdio: ["ignore", "ignore", "pipe", "ipc"],
      });
      let stderr = "";
      const onData = (chunk: Buffer) => {
        stderr = (stderr + chunk.toString("utf8")).slice(-2000);
      };
      child.stderr?.on("data", onData);
      // The stderr pipe would otherwise keep the parent alive as surely as the process itself.
      (child.stderr as unknown as { unref?: () => void } | null)?.unref?.();
      const cleanup = () => {
        clearTimeout(timer);
        child.off("error", onError);
        child.off("exit", onExit);
        child.off("message", onMessage);
        child.stderr?.off("data", onData);
      };
      const fail = (message: string) => {
        cleanup();
        child.kill("SIGKILL");
        reject(new Error(`Could not start ${options.label}: ${message}`));
      };
      const onError = (e: Error) => fail(e.message);
      const onExit = (code: number | null) => fail(`it exited with code ${code}${stderr ? `: ${stderr.trim()}` : ""}`);
      const onMessage = (msg: { type?: string }) => {
        if (msg?.type !== "ready") return fail("unexpected first message");
        cleanup();
        resolve(new ChildChannel(child, options));
      };
      const timeoutMs = options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
      const timer = setTimeout(() => fail(`no answer within ${timeoutMs / 1000} s`), timeoutMs);
      child.once("error", onError);
      child.once("exit", onExit);
      child.on("message", onMessage);
    });
  }

  get alive(): boolean {
    return this.deadReason === null;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** The last lines the helper wrote to stderr: for the log, never for people. */
  get diagnostics(): string {
    return this.stderrTail.trim();
  }

  call(message: Record<string, unknown>, { timeoutMs, signal }: { timeoutMs: number; signal?: AbortSignal }): Promise<CallOutcome> {
    if (this.deadReason) return Promise.resolve({ kind: "crashed", message: this.deadReason });
    if (this.pending) throw new Error(`${this.options.label} runs one call at a time.`);
    if (signal?.aborted) return Promise.resolve({ kind: "aborted" });
    const id = this.nextId++;
    return new Promise<CallOutcome>((resolve) => {
      const stopWith = (outcome: CallOutcome) => {
        this.finish(outcome);
        this.kill();
      };
      // The deadline that truly stops runaway work: the process is killed, whatever it is doing.
      const timer = setTimeout(() => stopWith({ kind: "timeout" }), timeoutMs);
      const limitMb = this.options.memoryLimitMb;
      const memoryTimer =
        limitMb && this.child.pid
          ? setInterval(() => {
              const rss = residentMb(this.child.pid!);
              if (rss !== null && rss > limitMb) stopWith({ kind: "memory", limitMb });
            }, MEMORY_POLL_MS)
          : null;
      const onAbort = () => stopWith({ kind: "aborted" });
      signal?.addEventListener("abort", onAbort, { once: true });
      this.pending = {
        id,
        settle: (outcome) => {
          clearTimeout(timer);
          if (memoryTimer) clearInterval(memoryTimer);
          signal?.removeEventListener("abort", onAbort);
          this.release();
          resolve(outcome);
        },
      };
      this.hold();
      try {
        this.child.send({ ...message, id });
      } catch (e) {
        this.die(`${this.options.label} could not be reached: ${e instanceof Error ? e.message : String(e)}`);
      }
    });
  }

  /** Stops the helper at once; a pending call ends as crashed (unless it already ended otherwise). */
  kill(): void {
    this.die(`${this.options.label} was stopped`);
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill("SIGKILL");
  }

  private hold(): void {
    this.child.ref();
    this.child.channel?.ref();
  }

  /** Between calls the helper never keeps the server (or a test run) alive on its own. */
  private release(): void {
    this.child.unref();
    this.child.channel?.unref();
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
