import { log } from "../../log";
import { RunCancelledError, type StageContext, type StageStrategy, type TraceEventInput } from "../stage";
import { strategyLabel } from "../strategies";
import type { ScoredEvidence } from "../contracts";
import { BudgetSpent, raceAbort } from "./budget";
import type { TraceStore } from "./persistence";
import type { RunEvent, RunOutcome, RunRequest } from "./types";

/**
 * Runs the stages of one run: each call is timed, traced (START / END / ERROR events, streamed to the
 * caller as they happen and stored after the stage), raced against the run's budget and the caller's
 * cancellation, and labelled with the strategy that actually ran (llm, or its classical fallback).
 */
export class StageRunner {
  readonly trace: RunOutcome["trace"] = [];
  readonly timings: Record<string, number> = {};
  readonly ctx: StageContext;
  private seq = 0;
  private readonly controller = new AbortController();
  private readonly budgetTimer: NodeJS.Timeout;
  private readonly onCancel = () => this.controller.abort(new RunCancelledError());

  constructor(
    private readonly runId: string,
    private readonly store: TraceStore,
    private readonly req: Pick<RunRequest, "onEvent" | "observeRanking" | "signal">,
    readonly budgetMs: number,
    startedAt: number,
  ) {
    this.budgetTimer = setTimeout(() => this.controller.abort(new Error("time budget spent")), budgetMs);
    if (req.signal?.aborted) this.onCancel();
    else req.signal?.addEventListener("abort", this.onCancel, { once: true });
    this.ctx = { signal: this.controller.signal, deadline: startedAt + budgetMs, trace: (e) => this.emit(e) };
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Streams an event to the caller and queues it for storage. */
  emit(e: TraceEventInput): void {
    const event: RunEvent = { ...e, runId: this.runId, seq: this.seq++, at: new Date().toISOString() };
    this.store.add(event.seq, e);
    try {
      this.req.onEvent?.(event);
    } catch (err) {
      log.warn({ err }, "run event listener failed");
    }
  }

  /** Shows a ranking of the evidence to the caller's observer (evaluation's answer presence). */
  observe(round: number, label: string, ranked: ScoredEvidence[]): void {
    try {
      this.req.observeRanking?.({ round, label, ranked });
    } catch (err) {
      log.warn({ err }, "ranking observer failed");
    }
  }

  get observing(): boolean {
    return !!this.req.observeRanking;
  }

  cancelled(e?: unknown): boolean {
    return e instanceof RunCancelledError || (this.controller.signal.aborted && this.controller.signal.reason instanceof RunCancelledError);
  }

  budgetSpent(): boolean {
    return this.controller.signal.aborted && !(this.controller.signal.reason instanceof RunCancelledError);
  }

  async flush(): Promise<void> {
    await this.store.flush().catch((err) => log.warn({ err }, "could not store trace events"));
  }

  async stage<I, O>(
    name: string,
    strategy: StageStrategy<I, O>,
    input: I,
    summarize: (o: O) => string,
    payload?: (o: O) => unknown,
  ): Promise<O> {
    const signal = this.controller.signal;
    const stopped = () => (signal.reason instanceof RunCancelledError ? signal.reason : new BudgetSpent(name));
    if (signal.aborted) throw stopped();
    this.emit({ stage: name, type: "START", strategy: strategy.name, summary: `${name} started` });
    // Let the stream flush: a stage that never waits on I/O would otherwise reach the browser in one burst with the next.
    await new Promise((resolve) => setImmediate(resolve));
    const t = performance.now();
    const record = () => {
      const ms = performance.now() - t;
      // The strategy that actually ran: "llm", or "classical (fallback: <reason>)" (strategies.ts).
      const ran = strategyLabel(strategy as StageStrategy<unknown, unknown>);
      this.timings[name] = Math.round((this.timings[name] ?? 0) + ms);
      this.trace.push({ stage: name, strategy: ran, ms: Math.round(ms) });
      return { ms, ran };
    };
    try {
      // The stage's own work honours ctx.signal; racing it with the signal bounds a stage that does not.
      const out = await raceAbort(strategy.run(input, this.ctx), signal, stopped);
      const { ms, ran } = record();
      this.emit({ stage: name, type: "END", strategy: ran, durationMs: ms, summary: summarize(out), payload: payload?.(out) });
      return out;
    } catch (e) {
      const { ms, ran } = record();
      this.emit({ stage: name, type: "ERROR", strategy: ran, durationMs: ms, summary: `Failed: ${(e as Error).message}` });
      throw e;
    } finally {
      await this.flush();
    }
  }

  close(): void {
    clearTimeout(this.budgetTimer);
    this.req.signal?.removeEventListener("abort", this.onCancel);
  }
}
