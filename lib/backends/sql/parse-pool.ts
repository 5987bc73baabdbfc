import { BackendUnavailableError } from "../errors";
import { ChildChannel, type ChildChannelOptions, helperFilePath, residentMb } from "../child-channel";

/**
 * Parses SQL texts in helper processes (parse-child.mjs), never on the server's main thread, each within
 * a time budget: a parse past its budget, or one that exhausts its process, kills that process and is
 * reported as over budget; the next parse starts a fresh one. Two processes, so one runaway parse does
 * not hold up every other check while it waits for its deadline.
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

interface Job {
  request: ParseRequest;
  timeoutMs: number;
  resolve: (o: ParseOutcome) => void;
  reject: (e: unknown) => void;
}

interface Slot {
  channel: ChildChannel | null;
  busy: boolean;
}

export class SqlParsePool {
  private readonly slots: Slot[];
  private readonly queue: Job[] = [];

  constructor(size = POOL_SIZE) {
    this.slots = Array.from({ length: size }, () => ({ channel: null, busy: false }));
  }

  parse(request: ParseRequest, timeoutMs: number): Promise<ParseOutcome> {
    return new Promise<ParseOutcome>((resolve, reject) => {
      this.queue.push({ request, timeoutMs, resolve, reject });
      this.dispatch();
    });
  }

  private dispatch(): void {
    for (const slot of this.slots) {
      if (slot.busy || this.queue.length === 0) continue;
      const job = this.queue.shift()!;
      slot.busy = true;
      void this.run(slot, job).finally(() => {
        slot.busy = false;
        this.dispatch();
      });
    }
  }

  private async run(slot: Slot, job: Job): Promise<void> {
    let channel: ChildChannel;
    try {
      channel = slot.channel?.alive ? slot.channel : await ChildChannel.start(helperOptions());
    } catch (e) {
      job.reject(new BackendUnavailableError(`The query checker could not start: ${e instanceof Error ? e.message : String(e)}`));
      return;
    }
    slot.channel = channel;
    const outcome = await channel.call({ ...job.request }, { timeoutMs: job.timeoutMs });
    switch (outcome.kind) {
      case "reply": {
        // A parse that grew the helper (its WebAssembly memory never shrinks) would get the next, innocent
        // query killed by the memory watch mid-parse and refused as too complex: start afresh instead.
        const rss = channel.pid ? residentMb(channel.pid) : null;
        if (rss !== null && rss > RECYCLE_ABOVE_MB) {
          channel.kill();
          slot.channel = null;
        }
        const reply = outcome.reply as { ok: boolean; grammar?: Grammar; json?: string; error?: ParseFailure };
        if (reply.ok)
          job.resolve({ kind: "parsed", grammar: reply.grammar ?? job.request.grammars[0]!, tree: JSON.parse(reply.json ?? "null") });
        else if (reply.error?.tooDeep) job.resolve({ kind: "over-budget", why: "memory" });
        else job.resolve({ kind: "syntax", error: reply.error ?? { message: "unreadable" } });
        return;
      }
      case "timeout":
        slot.channel = null;
        job.resolve({ kind: "over-budget", why: "time" });
        return;
      case "memory":
      case "crashed":
        slot.channel = null;
        job.resolve({ kind: "over-budget", why: "memory" });
        return;
      case "aborted":
        slot.channel = null;
        job.reject(new Error("aborted"));
        return;
    }
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
