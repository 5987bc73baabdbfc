/**
 * The stage runner contract. Each stage is a list of strategies tried in order (an LLM strategy in
 * front of the classical one once LLMs land); the runner records which one ran, emits start/end trace
 * events with durations and summaries, and respects cancellation and the run's time budget.
 */
export interface TraceEventInput {
  stage: string;
  type: "START" | "END" | "ERROR" | "INFO";
  strategy?: string;
  durationMs?: number;
  summary: string;
  payload?: unknown;
  costUsd?: number;
}

export interface StageContext {
  /** Aborted when the user cancels or the run's time budget is spent. */
  signal: AbortSignal;
  /** Epoch ms by which the whole run must finish; stages shorten their own timeouts to fit. */
  deadline: number;
  trace(event: TraceEventInput): void;
}

export interface StageStrategy<I, O> {
  /** "classical", later "llm". */
  name: string;
  run(input: I, ctx: StageContext): Promise<O>;
}

export class RunCancelledError extends Error {
  constructor(reason = "The run was cancelled.") {
    super(reason);
    this.name = "RunCancelledError";
  }
}

export function remainingMs(ctx: StageContext, floor = 250): number {
  return Math.max(floor, ctx.deadline - Date.now());
}
