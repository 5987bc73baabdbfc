import { type ChildProcess, fork } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { BackendUnavailableError, QueryExecutionError, QueryRejectedError, QuerySyntaxError, QueryTimeoutError } from "../../errors";
import type { ExecuteOptions } from "../../types";
import type { RowsResult } from "../engine";

/**
 * Runs checked SELECTs against one SQLite file in a child process (query-child.mjs explains why a
 * process and not a thread), one query at a time. A query past its time limit, or whose signal aborts,
 * kills the process; the next query starts a fresh one. Between queries the process is unreferenced,
 * so it never keeps the server (or a test run) alive on its own.
 */
const CHILD_FILE = "query-child.mjs";
const START_TIMEOUT_MS = 15_000;

/** The child file as Node must load it: the repository copy first (Next.js bundles this module elsewhere), then this folder. */
function childPath(): string {
  const candidates = [path.join(process.cwd(), "lib", "backends", "sql", "sqlite", CHILD_FILE)];
  try {
    candidates.push(path.join(path.dirname(fileURLToPath(import.meta.url)), CHILD_FILE));
  } catch {
    // import.meta.url is not a file: URL in some bundles; the working-directory path is then the only one.
  }
  const found = candidates.find((p) => existsSync(p));
  if (!found) throw new BackendUnavailableError(`The SQLite query process file was not found (looked in ${candidates.join(", ")}).`);
  return found;
}

interface ChildFailure {
  kind: "rejected" | "failed" | "timeout";
  message: string;
  code: string | null;
}

type ChildReply = { id: number; ok: true; columns: string[]; rows: unknown[][]; truncated: boolean } | { id: number; ok: false; error: ChildFailure };

function errorFromChild(e: ChildFailure, sql: string, timeoutMs: number, file: string): Error {
  if (e.kind === "timeout") return new QueryTimeoutError(timeoutMs, sql);
  if (e.kind === "rejected") return new QueryRejectedError(e.message, sql);
  if (e.code === "SQLITE_CANTOPEN" || e.code === "SQLITE_NOTADB" || e.code === "SQLITE_CORRUPT") {
    return new BackendUnavailableError(`Cannot open ${file}: ${e.message}. Upload the database again.`);
  }
  // load_extension() and other refused calls fail with "not authorized" (SQLITE_AUTH or a plain SQLITE_ERROR).
  if (e.code === "SQLITE_READONLY" || e.code === "SQLITE_AUTH" || /not authorized|readonly database/i.test(e.message)) {
    return new QueryRejectedError(`SQLite refused it: ${e.message}`, sql);
  }
  if (/syntax error|incomplete input|unrecognized token/i.test(e.message)) return new QuerySyntaxError(`SQLite: ${e.message}`, sql);
  return new QueryExecutionError(`SQLite could not run the query: ${e.message}.`, sql);
}

export class SqliteQueryProcess {
  private child: ChildProcess | null = null;
  private starting: Promise<ChildProcess> | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private nextId = 1;
  private stderrTail = "";
  /** Bumped by close(), so a process that finishes starting after it is not kept. */
  private generation = 0;

  constructor(private readonly file: string) {}

  run(sql: string, options: ExecuteOptions): Promise<RowsResult> {
    const result = this.queue.then(() => this.runNow(sql, options));
    this.queue = result.catch(() => undefined);
    return result;
  }

  async close(): Promise<void> {
    this.generation++;
    this.stop();
  }

  private async runNow(sql: string, { timeoutMs, maxRows, signal }: ExecuteOptions): Promise<RowsResult> {
    signal?.throwIfAborted();
    const child = await this.start();
    const id = this.nextId++;
    return new Promise<RowsResult>((resolve, reject) => {
      let settled = false;
      const finish = (settle: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        child.off("message", onMessage);
        child.off("exit", onExit);
        signal?.removeEventListener("abort", onAbort);
        this.release(child);
        settle();
      };
      const onMessage = (msg: ChildReply) => {
        if (msg?.id !== id) return;
        if (msg.ok) finish(() => resolve({ columns: msg.columns, rows: msg.rows, truncated: msg.truncated }));
        else finish(() => reject(errorFromChild(msg.error, sql, timeoutMs, this.file)));
      };
      const onExit = (code: number | null, sig: string | null) => {
        this.forget(child);
        const detail = this.stderrTail.trim().split("\n").pop() ?? "";
        finish(() => reject(new QueryExecutionError(`The SQLite query process stopped unexpectedly (${sig ?? `exit code ${code}`})${detail ? `: ${detail}` : ""}.`, sql)));
      };
      const onAbort = () => {
        finish(() => reject(signal?.reason ?? new Error("aborted")));
        this.stop();
      };
      // The deadline that truly stops a runaway query: the process is killed, whatever SQLite is doing.
      const timer = setTimeout(() => {
        finish(() => reject(new QueryTimeoutError(timeoutMs, sql)));
        this.stop();
      }, timeoutMs);
      child.on("message", onMessage);
      child.once("exit", onExit);
      signal?.addEventListener("abort", onAbort, { once: true });
      this.hold(child);
      child.send({ type: "query", id, file: this.file, sql, maxRows, timeoutMs });
    });
  }

  private start(): Promise<ChildProcess> {
    if (this.child) return Promise.resolve(this.child);
    const generation = this.generation;
    this.starting ??= new Promise<ChildProcess>((resolve, reject) => {
      // Only what SQLite may use (where to spill large sorts): no secrets, and no NODE_OPTIONS loader
      // hooks from a test runner or tsx in this plain-JavaScript process.
      const env: NodeJS.ProcessEnv = { NODE_ENV: process.env.NODE_ENV };
      for (const key of ["PATH", "TMPDIR", "SQLITE_TMPDIR"]) if (process.env[key]) env[key] = process.env[key];
      const child = fork(childPath(), [], { serialization: "advanced", execArgv: [], env, stdio: ["ignore", "ignore", "pipe", "ipc"] });
      this.stderrTail = "";
      child.stderr?.on("data", (chunk: Buffer) => {
        this.stderrTail = (this.stderrTail + chunk.toString("utf8")).slice(-2000);
      });
      // The stderr pipe would otherwise keep the parent alive as surely as the process itself.
      (child.stderr as unknown as { unref?: () => void } | null)?.unref?.();
      const fail = (message: string) => {
        clearTimeout(timer);
        child.kill("SIGKILL");
        this.starting = null;
        reject(new BackendUnavailableError(`Could not start the SQLite query process: ${message}`));
      };
      const timer = setTimeout(() => fail(`no answer within ${START_TIMEOUT_MS / 1000} s`), START_TIMEOUT_MS);
      child.once("error", (e) => fail(e.message));
      child.once("exit", (code) => fail(`it exited with code ${code}${this.stderrTail ? `: ${this.stderrTail.trim()}` : ""}`));
      child.once("message", (msg: { type?: string }) => {
        if (msg?.type !== "ready") return fail("unexpected first message");
        if (generation !== this.generation) return fail("the knowledge base was closed while it started");
        clearTimeout(timer);
        child.removeAllListeners("exit");
        child.removeAllListeners("error");
        child.on("error", () => this.forget(child));
        child.on("exit", () => this.forget(child));
        this.child = child;
        this.starting = null;
        this.release(child);
        resolve(child);
      });
    });
    return this.starting;
  }

  private hold(child: ChildProcess) {
    child.ref();
    child.channel?.ref();
  }

  private release(child: ChildProcess) {
    child.unref();
    child.channel?.unref();
  }

  private forget(child: ChildProcess) {
    if (this.child === child) this.child = null;
  }

  private stop() {
    const child = this.child;
    this.child = null;
    if (child && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  }
}
