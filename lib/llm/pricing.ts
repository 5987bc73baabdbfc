import type { ModelPrice } from "./config";

/**
 * Estimated cost of a call from its token counts. Built-in list prices (USD per million tokens,
 * standard tier, as published by OpenAI in 2025); an admin adds or corrects entries in Settings or
 * LLM_PRICES. A model not in the table (a local Llama, a new release) costs 0 and is reported as
 * "price unknown", never guessed.
 */
export const BUILT_IN_PRICES: Readonly<Record<string, ModelPrice>> = {
  "gpt-5": { input: 1.25, output: 10 },
  "gpt-5-mini": { input: 0.25, output: 2 },
  "gpt-5-nano": { input: 0.05, output: 0.4 },
  "gpt-4.1": { input: 2, output: 8 },
  "gpt-4.1-mini": { input: 0.4, output: 1.6 },
  "gpt-4.1-nano": { input: 0.1, output: 0.4 },
  "gpt-4o": { input: 2.5, output: 10 },
  "gpt-4o-mini": { input: 0.15, output: 0.6 },
  o3: { input: 2, output: 8 },
  "o3-mini": { input: 1.1, output: 4.4 },
  "o4-mini": { input: 1.1, output: 4.4 },
  "gpt-3.5-turbo": { input: 0.5, output: 1.5 },
};

/** Dated snapshots and aliases of a listed model share its price: gpt-4o-2024-08-06, gpt-4o-latest. */
const SNAPSHOT_SUFFIX = /^-(?:\d{4}-\d{2}-\d{2}|\d{4}|latest)$/;

export interface PriceLookup {
  price: ModelPrice | null;
  /** The table entry used, when it differs from the model name. */
  matched: string | null;
}

export function priceFor(model: string, overrides: Record<string, ModelPrice> = {}): PriceLookup {
  const table: Record<string, ModelPrice> = { ...BUILT_IN_PRICES };
  for (const [k, v] of Object.entries(overrides)) table[k.toLowerCase()] = v;
  const name = model.trim().toLowerCase();
  // "openai/gpt-4o-mini" (routers, vLLM served names) prices as "gpt-4o-mini" when that is listed.
  const candidates = [name, name.includes("/") ? name.slice(name.lastIndexOf("/") + 1) : null].filter((n): n is string => !!n);
  for (const n of candidates) if (table[n]) return { price: table[n], matched: n === model ? null : n };
  for (const n of candidates) {
    const key = Object.keys(table)
      .filter((k) => n.startsWith(k) && SNAPSHOT_SUFFIX.test(n.slice(k.length)))
      .sort((a, b) => b.length - a.length)[0];
    if (key) return { price: table[key], matched: key };
  }
  return { price: null, matched: null };
}

export interface CostEstimate {
  costUsd: number;
  priceKnown: boolean;
}

export function estimateCost(
  model: string,
  promptTokens: number,
  completionTokens: number,
  overrides: Record<string, ModelPrice> = {},
): CostEstimate {
  const { price } = priceFor(model, overrides);
  if (!price) return { costUsd: 0, priceKnown: false };
  const cost = (promptTokens * price.input + completionTokens * price.output) / 1_000_000;
  return { costUsd: Number(cost.toFixed(8)), priceKnown: true };
}
