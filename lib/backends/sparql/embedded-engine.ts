import { statSync } from "node:fs";
import { log } from "../../log";
import { ChildChannel, type CallOutcome, type ChildChannelOptions, helperFilePath } from "../child-channel";
import {
  BackendUnavailableError,
  QueryExecutionError,
  QueryMemoryError,
  QuerySyntaxError,
  QueryTimeoutError,
  ResultTooLargeError,
} from "../errors";
import { queryLimits, type QueryLimits } from "../limits";
import type { EngineForm, EngineResult, RunOptions, SparqlEngine } from "./engine";

/** Reloading a large upload may take a while; it is not the query's time. */
const LOAD_TIMEOUT_MS = 300_000;

function fileStamp(file: string): string {
  try {
    const s = statSync(file);
    return `${s.mtimeMs}:${s.size}`;
  } catch {
    return "missing";
  }
}

/** What a failure inside the store process said. */
export interface StoreFailure {
  message: string;
  name?: string;
  file?: string;
  tooLarge?: boolean;
}

/**
 * How the Oxigraph process starts: its WebAssembly memory (where the store and every value a query
 * computes live) and its JavaScript heap are capped by Node itself, and its resident memory is watched.
 */
export function oxigraphProcessOptions(limits: QueryLimits): ChildChannelOptions {
  const heapMb = Math.max(64, Math.floor(limits.engineMemoryMb / 2));
  return {
    file: helperFilePath(["lib", "backends", "sparql"], "oxigraph-child.mjs", import.meta.url),
    label: "the embedded RDF store",
    // 64 KiB pages: the store's WebAssembly memory may grow to the engine's memory limit, no further.
    execArgv: [`--max-old-space-size=${heapMb}`, `--wasm-max-mem-pages=${limits.engineMemoryMb * 16}`],
    memoryLimitMb: limits.engineMemoryMb + heapMb,
  };
}

/** A WebAssembly trap: Oxigraph ran out of its memory (or broke); the process is replaced. */
export function isStoreTrap(failure: StoreFailure): boolean {
  return failure.name === "RuntimeError" || /unreachable|out of memory|memory access out of bounds/i.test(failure.message);
}

/**
 * The embedded Oxigraph store, kept in its own process (see oxigraph-child.mjs for why). Queries run one
 * at a time; each one's time limit starts when it reaches the process. A query past its limit, or past
 * the memory limit, kills the process; the next query starts a fresh one that reloads the stored data.
 * The stored file is also reloaded when it changes (an upload after the backend was opened).
 */
export class OxigraphEngine implements SparqlEngine {
  readonly target = "the embedded Oxigraph store";
  private channel: ChildChannel | null = null;
  private loadedStamp: string | null = null;
  private loadedTriples = 0;
  private tail: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly dataFile: string,
    private readonly limits: () => QueryLimits = queryLimits,
  ) {}

  run(query: string, form: EngineForm, options: RunOptions): Promise<EngineResult> {
    return this.serialized(() => this.runNow(query, form, options));
  }

  /** Number of triples in the store (loads it if needed). */
  size(): Promise<number> {
    return this.serialized(async () => (await this.ensureLoaded()).triples);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.discard();
  }

  private serialized<T>(job: () => Promise<T>): Promise<T> {
    const next = this.tail.then(job, job);
    this.tail = next.catch(() => undefined);
    return next;
  }

  private async runNow(query: string, form: EngineForm, options: RunOptions): Promise<EngineResult> {
    const limits = this.limits();
    const { channel } = await this.ensureLoaded();
    const outcome = await channel.call(
      {
        op: "query",
        text: query,
        form,
        variables: options.variables,
        maxValueBytes: limits.maxValueBytes,
        maxResultBytes: limits.maxResultBytes,
      },
      { timeoutMs: options.timeoutMs, signal: options.signal },
    );
    const reply = this.replyOf(outcome, query, options.timeoutMs, limits);
    if (!reply.ok) {
      const failure = reply.error as StoreFailure;
      if (failure.tooLarge) throw new ResultTooLargeError(limits.maxResultBytes, query);
      if (isStoreTrap(failure)) {
        this.discard();
        throw new QueryMemoryError(limits.engineMemoryMb, query);
      }
      log.warn({ detail: failure.message }, "the embedded RDF store could not run a query");
      // Oxigraph's own parse errors, for syntax sparqljs accepted (rare: extensions, limits).
      if (/^error at \d+:\d+|pars(e|ing) error|syntax/i.test(failure.message)) {
        throw new QuerySyntaxError(
          "the embedded RDF store cannot read this query (it uses syntax the store does not support). Write it in standard SPARQL 1.1.",
          query,
        );
      }
      throw new QueryExecutionError(
        "The embedded RDF store could not run the query. Check it against the graph's classes and properties.",
        query,
      );
    }
    if (reply.kind === "boolean") return { kind: "boolean", value: reply.value === true };
    if (reply.kind === "triples") return { kind: "triples", triples: reply.triples as never };
    return { kind: "bindings", vars: reply.vars as string[], rows: reply.rows as never };
  }

  private replyOf(outcome: CallOutcome, query: string, timeoutMs: number, limits: QueryLimits): Record<string, unknown> {
    if (outcome.kind !== "reply") this.discard();
    switch (outcome.kind) {
      case "reply":
        return outcome.reply;
      case "timeout":
        throw new QueryTimeoutError(timeoutMs, query);
      case "memory":
        throw new QueryMemoryError(limits.engineMemoryMb, query);
      case "aborted":
        throw new QueryExecutionError("The query was cancelled.", query);
      case "crashed":
        log.warn({ reason: outcome.message }, "the embedded RDF store stopped while running a query");
        throw new QueryExecutionError(
          "The embedded RDF store stopped while running the query; it has been restarted. Try again, or simplify the query.",
          query,
        );
    }
  }

  private async ensureLoaded(): Promise<{ channel: ChildChannel; triples: number }> {
    if (this.closed) throw new BackendUnavailableError("This knowledge base was closed.");
    const stamp = fileStamp(this.dataFile);
    if (this.channel?.alive && this.loadedStamp === stamp) return { channel: this.channel, triples: this.loadedTriples };
    this.discard();
    const limits = this.limits();
    let channel: ChildChannel;
    try {
      channel = await ChildChannel.start(oxigraphProcessOptions(limits));
    } catch (e) {
      throw new BackendUnavailableError(`The embedded RDF store could not start: ${e instanceof Error ? e.message : String(e)}`);
    }
    const outcome = await channel.call({ op: "load", file: this.dataFile }, { timeoutMs: LOAD_TIMEOUT_MS });
    if (outcome.kind !== "reply" || !outcome.reply.ok) {
      channel.kill();
      const failure = outcome.kind === "reply" ? (outcome.reply.error as StoreFailure) : null;
      log.warn({ outcome: outcome.kind, detail: failure?.message }, "the embedded RDF store could not load its data");
      if (outcome.kind === "memory" || (failure && isStoreTrap(failure))) {
        throw new BackendUnavailableError(
          `The stored RDF data needs more than the ${limits.engineMemoryMb} MB the embedded store may use. Raise QUERY_ENGINE_MEMORY_MB or upload a smaller graph.`,
        );
      }
      throw new BackendUnavailableError("The stored RDF data could not be loaded. Upload the RDF files again.");
    }
    this.channel = channel;
    this.loadedStamp = stamp;
    this.loadedTriples = Number(outcome.reply.triples);
    return { channel, triples: this.loadedTriples };
  }

  private discard(): void {
    this.channel?.kill();
    this.channel = null;
    this.loadedStamp = null;
  }
}
