import { ChildChannel, type CallOutcome, helperFilePath } from "../../child-channel";
import {
  BackendUnavailableError,
  QueryExecutionError,
  QueryMemoryError,
  QueryRejectedError,
  QuerySyntaxError,
  QueryTimeoutError,
  ResultTooLargeError,
} from "../../errors";
import { queryLimits, type QueryLimits } from "../../limits";
import type { ExecuteOptions } from "../../types";
import { ALLOWED_FUNCTIONS } from "../allow-list";
import type { RowsResult } from "../engine";
import { notAllowedFunction } from "./query-tree";
import { log } from "../../../log";

/**
 * Runs checked SELECTs against one SQLite file in a child process (query-child.mjs explains why a
 * process and not a thread), one query at a time. A query past its time limit, past the engine's
 * memory limit, or whose signal aborts, kills the process; the next query starts a fresh one. Each
 * result is bounded in bytes while it streams (per value and in total) inside the child, so a huge
 * value never crosses into the server.
 */

interface ChildFailure {
  kind: "rejected" | "failed" | "timeout" | "function" | "too-large";
  message: string;
  code: string | null;
}

type ChildReply = { ok: true; columns: string[]; rows: unknown[][]; truncated: boolean } | { ok: false; error: ChildFailure };

/** SQLite's own words, turned into typed errors a person can act on; the raw text goes to the log. */
export function errorFromChild(e: ChildFailure, sql: string, timeoutMs: number, file: string): Error {
  if (e.kind === "timeout") return new QueryTimeoutError(timeoutMs, sql);
  if (e.kind === "rejected") return new QueryRejectedError(e.message, sql);
  if (e.kind === "function")
    return new QueryRejectedError(
      `SQLite would call ${e.message}(): ${notAllowedFunction(e.message).replace(/^the function \S+ /, "it ")}`,
      sql,
    );
  if (e.kind === "too-large") return new ResultTooLargeError(Number(e.message), sql);
  if (e.code === "SQLITE_CANTOPEN" || e.code === "SQLITE_NOTADB" || e.code === "SQLITE_CORRUPT") {
    log.warn({ code: e.code, detail: e.message, file }, "SQLite could not open a knowledge base file");
    return new BackendUnavailableError(
      "The database file of this knowledge base cannot be opened (missing or damaged). Upload the database again.",
    );
  }
  // load_extension() and other refused calls fail with "not authorized" (SQLITE_AUTH or a plain SQLITE_ERROR).
  if (e.code === "SQLITE_READONLY" || e.code === "SQLITE_AUTH" || /not authorized|readonly database/i.test(e.message)) {
    return new QueryRejectedError("SQLite refused it: the query tried to change the database or reach outside it", sql);
  }
  if (e.code === "SQLITE_NOMEM" || e.code === "SQLITE_TOOBIG" || /string or blob too big|out of memory/i.test(e.message)) {
    return new QueryExecutionError(
      "The query builds a value too large for SQLite to hold, so it was stopped. Select fewer or shorter values.",
      sql,
    );
  }
  // Syntax and name errors are about the query the reader wrote: SQLite's short message helps them fix it.
  if (/syntax error|incomplete input|unrecognized token/i.test(e.message)) return new QuerySyntaxError(`SQLite: ${e.message}`, sql);
  if (/^no such (column|table|function)|ambiguous column|misuse of|wrong number of arguments|not supported/i.test(e.message)) {
    return new QueryExecutionError(`SQLite could not run the query: ${e.message}.`, sql);
  }
  log.warn({ code: e.code, detail: e.message }, "SQLite failed to run a query");
  return new QueryExecutionError("SQLite could not run the query. Check the query against the knowledge base's tables and columns.", sql);
}

export class SqliteQueryProcess {
  private channel: ChildChannel | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  /** Bumped by close(), so a process that finishes starting after it is not kept. */
  private generation = 0;

  constructor(
    private readonly file: string,
    private readonly limits: () => QueryLimits = queryLimits,
  ) {}

  run(sql: string, options: ExecuteOptions): Promise<RowsResult> {
    const result = this.queue.then(() => this.runNow(sql, options));
    this.queue = result.catch(() => undefined);
    return result;
  }

  async close(): Promise<void> {
    this.generation++;
    this.channel?.kill();
    this.channel = null;
  }

  private async runNow(sql: string, { timeoutMs, maxRows, signal }: ExecuteOptions): Promise<RowsResult> {
    signal?.throwIfAborted();
    const limits = this.limits();
    const channel = await this.start(limits);
    const outcome = await channel.call(
      {
        type: "query",
        file: this.file,
        sql,
        maxRows,
        timeoutMs,
        maxValueBytes: limits.maxValueBytes,
        maxResultBytes: limits.maxResultBytes,
        allowedFunctions: [...ALLOWED_FUNCTIONS.sqlite],
      },
      { timeoutMs, signal },
    );
    return this.resultOf(outcome, channel, sql, timeoutMs, limits, signal);
  }

  private resultOf(
    outcome: CallOutcome,
    channel: ChildChannel,
    sql: string,
    timeoutMs: number,
    limits: QueryLimits,
    signal?: AbortSignal,
  ): RowsResult {
    if (outcome.kind !== "reply") this.forget(channel);
    switch (outcome.kind) {
      case "reply": {
        const msg = outcome.reply as ChildReply;
        if (msg.ok) return { columns: msg.columns, rows: msg.rows, truncated: msg.truncated };
        throw errorFromChild(msg.error, sql, timeoutMs, this.file);
      }
      case "timeout":
        throw new QueryTimeoutError(timeoutMs, sql);
      case "memory":
        throw new QueryMemoryError(limits.engineMemoryMb, sql);
      case "aborted":
        throw signal?.reason ?? new Error("aborted");
      case "crashed":
        log.warn({ detail: channel.diagnostics, reason: outcome.message }, "the SQLite query process stopped unexpectedly");
        throw new QueryExecutionError(
          "The SQLite query process stopped unexpectedly while running the query. Try again; if it happens again, simplify the query.",
          sql,
        );
    }
  }

  private forget(channel: ChildChannel): void {
    if (this.channel === channel) this.channel = null;
    channel.kill();
  }

  private async start(limits: QueryLimits): Promise<ChildChannel> {
    if (this.channel?.alive) return this.channel;
    const generation = this.generation;
    let channel: ChildChannel;
    try {
      channel = await ChildChannel.start({
        file: helperFilePath(["lib", "backends", "sql", "sqlite"], "query-child.mjs", import.meta.url),
        label: "the SQLite query process",
        // The JavaScript heap and the whole process (SQLite's own memory included) stay under the limit.
        execArgv: [`--max-old-space-size=${limits.engineMemoryMb}`],
        memoryLimitMb: limits.engineMemoryMb,
      });
    } catch (e) {
      throw new BackendUnavailableError(`Could not start the SQLite query process: ${e instanceof Error ? e.message : String(e)}`);
    }
    if (generation !== this.generation) {
      channel.kill();
      throw new BackendUnavailableError("This knowledge base was closed while its query process started.");
    }
    this.channel = channel;
    return channel;
  }
}
