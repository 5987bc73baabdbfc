import type { z } from "zod";
import { LlmClient } from "./client";
import type { LlmConfig, LlmStage } from "./config";
import { LlmError, type LlmErrorKind } from "./errors";
import { type LlmCallRecord, LlmUsageLedger, type LlmUsageTotals, formatUsd } from "./usage";

/**
 * The LLM as one run sees it: the configured client, the usage ledger whose totals go on the
 * RunOutcome, and a circuit breaker. Every call is traced (model, tokens, latency, cost) as it
 * finishes. A failure that will repeat (wrong key, unknown model, endpoint down or timing out after
 * its retries) opens the breaker: later stages of the run skip the call and fall back at once instead
 * of spending the run's budget on the same failure.
 */

/** Time kept back from the run's deadline for the classical fallback of the stage that called. */
export const FALLBACK_RESERVE_MS = 1_000;

const BREAKS_ENDPOINT = new Set<LlmErrorKind>([
  "config",
  "auth",
  "not_found",
  "connection",
  "unavailable",
  "timeout",
  "server",
  "rate_limited",
]);

/**
 * What a call needs from its caller: cancellation, the deadline to fit in, and where to trace the call.
 * The pipeline's stage context is one.
 */
export interface LlmCallContext {
  signal: AbortSignal;
  /** Epoch ms by which the caller must finish. */
  deadline: number;
  trace(event: { stage: string; type: "INFO"; strategy: "llm"; summary: string; costUsd: number; payload: { llm: LlmCallRecord } }): void;
}

export interface LlmCall<T> {
  task: string;
  system: string;
  user: string;
  schema: z.ZodType<T>;
  maxTokens?: number;
}

export class LlmSession {
  readonly ledger: LlmUsageLedger;
  private readonly client: LlmClient;
  private broken: LlmError | null = null;

  constructor(
    readonly config: LlmConfig,
    /** Told once when the breaker opens (Settings records configuration failures seen in runs). */
    private readonly onBroken?: (error: LlmError) => void,
  ) {
    this.client = new LlmClient(config);
    this.ledger = new LlmUsageLedger(config.baseUrl, config.model);
  }

  enabled(stage: LlmStage): boolean {
    return this.config.stages[stage].enabled;
  }

  model(stage: LlmStage): string {
    return this.config.stages[stage].model;
  }

  /** Why calls are skipped for the rest of the run, or null while the endpoint is usable. */
  get unavailableReason(): string | null {
    return this.broken ? this.broken.message : null;
  }

  totals(): LlmUsageTotals {
    return this.ledger.totals();
  }

  /**
   * One validated completion. Throws LlmError (the caller falls back) or the run's cancellation
   * (propagated as is). The call and its cost are recorded either way.
   */
  async call<T>(stage: LlmStage, ctx: LlmCallContext, req: LlmCall<T>): Promise<T> {
    if (this.broken) throw new LlmError("unavailable", `skipped, the endpoint failed earlier in this run: ${this.broken.message}`);
    const model = this.model(stage);
    const outcome = await this.client.complete({
      task: req.task,
      model,
      system: req.system,
      user: req.user,
      schema: req.schema,
      maxTokens: req.maxTokens,
      signal: ctx.signal,
      deadline: ctx.deadline - FALLBACK_RESERVE_MS,
    });
    const record: LlmCallRecord = {
      stage,
      task: req.task,
      ...outcome.usage,
      ok: outcome.ok,
      ...(outcome.ok ? {} : { error: outcome.error.message }),
    };
    // A call that never sent a request (no time left) is not a call: it is traced, not counted.
    if (record.attempts > 0) this.ledger.add(record);
    const tokens =
      record.promptTokens + record.completionTokens > 0
        ? `${record.promptTokens}+${record.completionTokens} tokens${record.tokensEstimated ? " (estimated)" : ""}, `
        : "";
    const cost = record.priceKnown ? formatUsd(record.costUsd) : "price unknown";
    ctx.trace({
      stage,
      type: "INFO",
      strategy: "llm",
      summary: `${req.task} · ${record.model}: ${tokens}${record.latencyMs} ms, ${cost}${record.attempts > 1 ? `, ${record.attempts} attempts` : ""}${outcome.ok ? "" : ` · failed: ${outcome.error.message}`}`,
      costUsd: record.costUsd,
      payload: { llm: record },
    });
    if (!outcome.ok) {
      if (BREAKS_ENDPOINT.has(outcome.error.kind) && !this.broken) {
        this.broken = outcome.error;
        this.onBroken?.(outcome.error);
      }
      throw outcome.error;
    }
    return outcome.value;
  }
}
