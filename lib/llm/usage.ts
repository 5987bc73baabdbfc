import type { LlmStage } from "./config";

/** One LLM request as the trace records it (TraceEvent payload `llm`, cost in TraceEvent.costUsd). */
export interface LlmCallRecord {
  stage: LlmStage;
  /** The prompt kind: "understand", "formulate.sql", "formulate.repair", "critique.validator"... */
  task: string;
  model: string;
  promptTokens: number;
  completionTokens: number;
  /** True when the endpoint reported no usage and the counts are estimated from the text. */
  tokensEstimated: boolean;
  /** Wall time of the call, retries and backoff included. */
  latencyMs: number;
  /** HTTP requests sent for this call (1 + retries + structured-output downgrades). */
  attempts: number;
  costUsd: number;
  priceKnown: boolean;
  /** json_schema, json_object or prompt: how the JSON was asked for. */
  mode: string;
  ok: boolean;
  /** Why the call failed or its output was rejected. */
  error?: string;
}

export interface LlmStageTotals {
  calls: number;
  failed: number;
  promptTokens: number;
  completionTokens: number;
  costUsd: number;
  latencyMs: number;
}

/** What a run spent on the LLM: RunOutcome.llm and `npm run ask -- --json`. */
export interface LlmUsageTotals {
  endpoint: string;
  model: string;
  /** Every call made; `failed` of them gave no usable result (an error, or output that failed validation). */
  calls: number;
  failed: number;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  costUsd: number;
  /** Models used whose price is not in the table: their calls count 0 USD. */
  priceUnknown: string[];
  byStage: Partial<Record<LlmStage, LlmStageTotals>>;
}

export class LlmUsageLedger {
  readonly records: LlmCallRecord[] = [];

  constructor(
    private readonly endpoint: string,
    private readonly model: string,
  ) {}

  add(record: LlmCallRecord): void {
    this.records.push(record);
  }

  totals(): LlmUsageTotals {
    const byStage: LlmUsageTotals["byStage"] = {};
    const unknown = new Set<string>();
    let promptTokens = 0;
    let completionTokens = 0;
    let cost = 0;
    let failed = 0;
    for (const r of this.records) {
      const s = (byStage[r.stage] ??= { calls: 0, failed: 0, promptTokens: 0, completionTokens: 0, costUsd: 0, latencyMs: 0 });
      s.calls++;
      if (!r.ok) {
        s.failed++;
        failed++;
      }
      s.promptTokens += r.promptTokens;
      s.completionTokens += r.completionTokens;
      s.costUsd += r.costUsd;
      s.latencyMs += r.latencyMs;
      promptTokens += r.promptTokens;
      completionTokens += r.completionTokens;
      cost += r.costUsd;
      if (!r.priceKnown && r.promptTokens + r.completionTokens > 0) unknown.add(r.model);
    }
    for (const s of Object.values(byStage)) s.costUsd = roundUsd(s.costUsd);
    return {
      endpoint: this.endpoint,
      model: this.model,
      calls: this.records.length,
      failed,
      promptTokens,
      completionTokens,
      totalTokens: promptTokens + completionTokens,
      costUsd: roundUsd(cost),
      priceUnknown: [...unknown].sort(),
      byStage,
    };
  }
}

export function roundUsd(x: number): number {
  return Number(x.toFixed(6));
}

export function formatUsd(x: number): string {
  if (x === 0) return "$0";
  return x < 0.01 ? `$${x.toFixed(5)}` : `$${x.toFixed(4)}`;
}
