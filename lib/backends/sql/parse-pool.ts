import { BackendUnavailableError } from "../errors";
import { type ChildChannelOptions, helperFilePath, residentMb } from "../child-channel";
import { ChildPool } from "../child-pool";

/**
 * Parses SQL texts in helper processes (parse-child.mjs, two of them in a ChildPool), never on the
 * server's main thread, each within a time budget: a parse past its budget, or one that exhausts its
 * process, kills that process and is reported as over budget; the next parse starts a fresh one.
 */

/** node-sql-parser's grammars ("sqlite", "postgresql") and PostgreSQL's own parser ("libpg-query"), tried in order. */
export type Grammar = "sqlite" | "postgresql" | "libpg-query";

export interface ParseRequest {
  sql: string;
  grammars: Grammar[];
}

export interface ParseFailure {
  message: string;
  found?: string | null;
  location?: { start: { line: number; column: number } };
  cursorPosition?: number;
  tooDeep?: boolean;
}

export type ParseOutcome =
  | { kind: "parsed"; grammar: Grammar; tree: unknown }
  | { kind: "syntax"; error: ParseFailure }
  /** Ran out of time, memory or stack: the text is too complex to check, whatever it says. */
  | { kind: "over-budget"; why: "time" | "memory" };

const POOL_SIZE = 2;
/** The helper's own heap cap; the resident-memory watch below stops it a little later at the latest. */
const HEAP_MB = 256;
const MEMORY_LIMIT_MB = 384;
/** A helper this large after a reply is replaced before the next query (see run()). */
const RECYCLE_ABOVE_MB = Math.floor(MEMORY_LIMIT_MB * 0.6);

export class SqlParsePool {
  private readonly pool: ChildPool;

  constructor(size = POOL_SIZE) {
    this.pool = new ChildPool({
      size,
      helper: helperOptions,
      startFailure: (e) => new BackendUnavailableError(`The query checker could not start: ${e instanceof Error ? e.message : String(e)}`),
    });
  }

  parse(request: ParseRequest, timeoutMs: number): Promise<ParseOutcome> {
    return this.pool.use(async ({ channel, retire }): Promise<ParseOutcome> => {
      const outcome = await channel.call({ ...request }, { timeoutMs });
      switch (outcome.kind) {
        case "reply": {
          // A parse that grew the helper (its WebAssembly memory never shrinks) would get the next, innocent
          // query killed by the memory watch mid-parse and refused as too complex: start afresh instead.
          const rss = channel.pid ? residentMb(channel.pid) : null;
          if (rss !== null && rss > RECYCLE_ABOVE_MB) retire();
          const reply = outcome.reply as { ok: boolean; grammar?: Grammar; json?: string; error?: ParseFailure };
          if (reply.ok) return { kind: "parsed", grammar: reply.grammar ?? request.grammars[0]!, tree: JSON.parse(reply.json ?? "null") };
          if (reply.error?.tooDeep) return { kind: "over-budget", why: "memory" };
          return { kind: "syntax", error: reply.error ?? { message: "unreadable" } };
        }
        // The helper was killed at its deadline or memory watch (the pool starts a fresh one).
        case "timeout":
          return { kind: "over-budget", why: "time" };
        case "memory":
        case "crashed":
          return { kind: "over-budget", why: "memory" };
        case "aborted":
          throw new Error("aborted");
      }
    });
  }
}

function helperOptions(): ChildChannelOptions {
  return {
    file: helperFilePath(["lib", "backends", "sql"], "parse-child.mjs", import.meta.url),
    label: "the query checker",
    execArgv: [`--max-old-space-size=${HEAP_MB}`],
    memoryLimitMb: MEMORY_LIMIT_MB,
  };
}

/** One pool per process (a production bundle may hold several copies of this module). */
const globalForPool = globalThis as unknown as { __mosaicSqlParsePool?: SqlParsePool };
export function sqlParsePool(): SqlParsePool {
  globalForPool.__mosaicSqlParsePool ??= new SqlParsePool();
  return globalForPool.__mosaicSqlParsePool;
}
