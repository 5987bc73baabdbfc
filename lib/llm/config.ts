import { z } from "zod";

/**
 * What the LLM strategies need to know about the endpoint, resolved from the environment (defaults)
 * and the admin's Settings (overrides) by settings.ts. Plain data: the pipeline and the tests build
 * one directly.
 */

/** The stages that have an LLM strategy, in pipeline order. */
export const LLM_STAGES = ["understand", "select", "formulate", "select-evidence", "answer", "critique"] as const;
export type LlmStage = (typeof LLM_STAGES)[number];

export const LLM_STAGE_LABELS: Record<LlmStage, string> = {
  understand: "Understand the question",
  select: "Select sources",
  formulate: "Write native queries",
  "select-evidence": "Select evidence",
  answer: "Answer",
  critique: "Critique",
};

/** auto: JSON-schema structured outputs, then JSON mode, then prompted JSON, as the endpoint allows. */
export const STRUCTURED_OUTPUT_MODES = ["auto", "json_schema", "json_object", "prompt"] as const;
export type StructuredOutputMode = (typeof STRUCTURED_OUTPUT_MODES)[number];

/** USD per million tokens. */
export const modelPriceSchema = z.object({ input: z.number().min(0), output: z.number().min(0) });
export type ModelPrice = z.infer<typeof modelPriceSchema>;

export interface LlmConfig {
  /** OpenAI-compatible base URL, e.g. https://api.openai.com/v1 or http://localhost:11434/v1. */
  baseUrl: string;
  /** Empty for local servers that need none. */
  apiKey: string;
  /** The default model; per-stage models override it. */
  model: string;
  stages: Record<LlmStage, { enabled: boolean; model: string }>;
  timeoutMs: number;
  maxRetries: number;
  maxOutputTokens: number;
  /** Prompt budget (tokens) for the catalog in source selection. */
  contextTokens: number;
  structuredOutputs: StructuredOutputMode;
  /** Extra prices by model name, on top of the built-in table (pricing.ts). */
  prices: Record<string, ModelPrice>;
}

export const LLM_DEFAULTS = {
  timeoutMs: 20_000,
  maxRetries: 2,
  maxOutputTokens: 2_048,
  contextTokens: 12_000,
  structuredOutputs: "auto" as StructuredOutputMode,
} as const;

/** A config with every stage on and one model, for callers that build one by hand (tests, scripts). */
export function llmConfig(
  base: { baseUrl: string; model: string; apiKey?: string } & Partial<Omit<LlmConfig, "baseUrl" | "model" | "apiKey" | "stages">> & {
      stages?: Partial<Record<LlmStage, { enabled?: boolean; model?: string }>>;
    },
): LlmConfig {
  const stages = Object.fromEntries(
    LLM_STAGES.map((s) => [s, { enabled: base.stages?.[s]?.enabled ?? true, model: base.stages?.[s]?.model || base.model }]),
  ) as LlmConfig["stages"];
  return {
    baseUrl: base.baseUrl,
    apiKey: base.apiKey ?? "",
    model: base.model,
    stages,
    timeoutMs: base.timeoutMs ?? LLM_DEFAULTS.timeoutMs,
    maxRetries: base.maxRetries ?? LLM_DEFAULTS.maxRetries,
    maxOutputTokens: base.maxOutputTokens ?? LLM_DEFAULTS.maxOutputTokens,
    contextTokens: base.contextTokens ?? LLM_DEFAULTS.contextTokens,
    structuredOutputs: base.structuredOutputs ?? LLM_DEFAULTS.structuredOutputs,
    prices: base.prices ?? {},
  };
}

export function anyStageEnabled(config: LlmConfig): boolean {
  return LLM_STAGES.some((s) => config.stages[s].enabled);
}
