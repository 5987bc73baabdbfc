import { statSync } from "node:fs";
import { BackendUnavailableError, QueryExecutionError, QuerySyntaxError, QueryTimeoutError } from "../errors";
import { type EngineForm, type EngineResult, type RunOptions, type SparqlEngine, parseSparqlJsonResults } from "./engine";
import type { RdfTriple } from "./rdf-terms";
import { type CallOutcome, WorkerChannel, type WorkerFailure } from "./worker-channel";

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

/**
 * The embedded Oxigraph store, kept in a worker thread (see oxigraph-worker.mjs for why). Queries run
 * one at a time; each one's time limit starts when it reaches the worker. A query past its limit kills
 * the worker; the next query starts a fresh one that reloads the stored data. The stored file is also
 * reloaded when it changes (an upload after the backend was opened).
 */
export class OxigraphEngine implements SparqlEngine {
  readonly target = "the embedded Oxigraph store";
  private channel: WorkerChannel | null = null;
  private loadedStamp: string | null = null;
  private loadedTriples = 0;
  private tail: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(private readonly dataFile: string) {}

  run(query: string, form: EngineForm, options: RunOptions): Promise<EngineResult> {
    return this.serialized(() => this.runNow(query, form, options));
  }

  /** Number of triples in the store (loads it if needed). */
  size(): Promise<number> {
    return this.serialized(async () => (await this.ensureLoaded()).triples);
  }

  async close(): Promise<void> {
    this.closed = true;
    const channel = this.channel;
    this.channel = null;
    await channel?.terminate();
  }

  private serialized<T>(job: () => Promise<T>): Promise<T> {
    const next = this.tail.then(job, job);
    this.tail = next.catch(() => undefined);
    return next;
  }

  private async runNow(query: string, form: EngineForm, options: RunOptions): Promise<EngineResult> {
    const { channel } = await this.ensureLoaded();
    const outcome = await channel.call({ op: "query", text: query, form: form === "triples" ? "triples" : "results" }, options.timeoutMs, options.signal);
    const reply = this.replyOf(outcome, query, options.timeoutMs);
    if (!reply.ok) {
      const failure = reply.error as WorkerFailure;
      if (failure.name === "RuntimeError") await this.discard();
      // Oxigraph reports its own parse errors for syntax sparqljs accepted (rare: extensions, limits).
      if (/^error at \d+:\d+|pars(e|ing) error|syntax/i.test(failure.message)) throw new QuerySyntaxError(failure.message, query);
      throw new QueryExecutionError(`The embedded store could not run the query: ${failure.message}`, query);
    }
    if (form === "triples") return { kind: "triples", triples: reply.triples as RdfTriple[] };
    return parseSparqlJsonResults(String(reply.body), form, query);
  }

  private replyOf(outcome: CallOutcome, query: string, timeoutMs: number): Record<string, unknown> {
    switch (outcome.kind) {
      case "reply":
        return outcome.reply;
      case "timeout":
        this.channel = null;
        throw new QueryTimeoutError(timeoutMs, query);
      case "aborted":
        this.channel = null;
        throw new QueryExecutionError("The query was cancelled.", query);
      case "crashed":
        this.channel = null;
        throw new QueryExecutionError(`The embedded store failed while running the query: ${outcome.message}.`, query);
    }
  }

  private async ensureLoaded(): Promise<{ channel: WorkerChannel; triples: number }> {
    if (this.closed) throw new BackendUnavailableError("This knowledge base was closed.");
    const stamp = fileStamp(this.dataFile);
    if (this.channel?.alive && this.loadedStamp === stamp) return { channel: this.channel, triples: this.loadedTriples };
    await this.discard();
    const channel = new WorkerChannel();
    const outcome = await channel.call({ op: "load", file: this.dataFile }, LOAD_TIMEOUT_MS);
    if (outcome.kind !== "reply" || !outcome.reply.ok) {
      await channel.terminate();
      const why = outcome.kind === "reply" ? (outcome.reply.error as WorkerFailure).message : outcome.kind;
      throw new BackendUnavailableError(`The stored RDF data could not be loaded (${why}). Upload the RDF files again.`);
    }
    this.channel = channel;
    this.loadedStamp = stamp;
    this.loadedTriples = Number(outcome.reply.triples);
    return { channel, triples: this.loadedTriples };
  }

  private async discard(): Promise<void> {
    const channel = this.channel;
    this.channel = null;
    this.loadedStamp = null;
    await channel?.terminate();
  }
}
