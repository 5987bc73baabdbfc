import { z } from "zod";
import { SecretDecryptionError, decryptSecret } from "../crypto/secrets";
import type { PrismaClient } from "../db/generated/client";
import { type LlmEnv } from "../env";
import {
  LLM_DEFAULTS,
  LLM_STAGES,
  type LlmConfig,
  type LlmStage,
  type ModelPrice,
  type StructuredOutputMode,
  STRUCTURED_OUTPUT_MODES,
  modelPriceSchema,
} from "./config";

/**
 * The LLM configuration a run uses: the environment (LLM_*) gives defaults, the admin's Settings
 * (edited through lib/settings/llm-settings.ts) override them. Stored in the `Setting` row "llm":
 * plain values in `value`, the API key encrypted (AES-256-GCM with the app's encryption key) in
 * `secretCiphertext`. The key never leaves the server: the view for the browser says only whether one
 * is set and where it comes from.
 */

export const LLM_SETTING_KEY = "llm";
/** The last configuration failure a run met (wrong key, wrong URL, unknown model, unreachable). */
export const LLM_FAILURE_KEY = "llm.lastFailure";

/** Failures that a change of settings fixes; rate limits, timeouts and 5xx are the endpoint's weather. */
const CONFIGURATION_FAILURES = new Set(["config", "auth", "not_found", "connection"]);

export const failureSchema = z.object({ at: z.string(), kind: z.string(), message: z.string() });
export type LlmFailure = z.infer<typeof failureSchema>;

/**
 * Records a configuration failure a run met, so Settings can show it next to the values that cause
 * it. Other failures are not recorded. Best effort: a run never fails because this write did.
 */
export async function recordLlmFailure(prisma: PrismaClient, error: { kind: string; message: string }): Promise<void> {
  if (!CONFIGURATION_FAILURES.has(error.kind)) return;
  const value = { at: new Date().toISOString(), kind: error.kind, message: error.message.slice(0, 500) } satisfies LlmFailure;
  await prisma.setting.upsert({ where: { key: LLM_FAILURE_KEY }, create: { key: LLM_FAILURE_KEY, value }, update: { value } });
}

const stageOverrideSchema = z.object({ enabled: z.boolean().nullable().default(null), model: z.string().nullable().default(null) });

const storedSchema = z.object({
  enabled: z.boolean().default(true),
  baseUrl: z.string().nullable().default(null),
  model: z.string().nullable().default(null),
  stages: z.partialRecord(z.enum(LLM_STAGES), stageOverrideSchema).default({}),
  timeoutMs: z.number().int().nullable().default(null),
  maxRetries: z.number().int().nullable().default(null),
  structuredOutputs: z.enum(STRUCTURED_OUTPUT_MODES).nullable().default(null),
  prices: z.record(z.string(), modelPriceSchema).default({}),
});
export type StoredLlmSettings = z.infer<typeof storedSchema>;

const EMPTY: StoredLlmSettings = storedSchema.parse({});

export function parseStored(value: unknown): StoredLlmSettings {
  const parsed = storedSchema.safeParse(value ?? {});
  // A row written by an older version or edited by hand: start from the defaults rather than fail every run.
  return parsed.success ? parsed.data : EMPTY;
}

export async function readLlmSettingsRow(prisma: PrismaClient) {
  return prisma.setting.findUnique({ where: { key: LLM_SETTING_KEY }, select: { value: true, secretCiphertext: true, updatedAt: true } });
}

type StageModelKey =
  | "LLM_MODEL_UNDERSTAND"
  | "LLM_MODEL_SELECT"
  | "LLM_MODEL_FORMULATE"
  | "LLM_MODEL_SELECT_EVIDENCE"
  | "LLM_MODEL_ANSWER"
  | "LLM_MODEL_CRITIQUE";

export const ENV_STAGE_MODEL: Record<LlmStage, StageModelKey> = {
  understand: "LLM_MODEL_UNDERSTAND",
  select: "LLM_MODEL_SELECT",
  formulate: "LLM_MODEL_FORMULATE",
  "select-evidence": "LLM_MODEL_SELECT_EVIDENCE",
  answer: "LLM_MODEL_ANSWER",
  critique: "LLM_MODEL_CRITIQUE",
};

/** LLM_STAGES: "all" (or unset), "none", or a list of stage names; unknown names are reported. */
export function envStages(env: LlmEnv): { enabled: Set<LlmStage>; unknown: string[] } {
  const raw = env.LLM_STAGES?.trim().toLowerCase();
  if (!raw || raw === "all") return { enabled: new Set(LLM_STAGES), unknown: [] };
  if (raw === "none") return { enabled: new Set(), unknown: [] };
  const names = raw
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  const known = names.filter((n): n is LlmStage => (LLM_STAGES as readonly string[]).includes(n));
  return { enabled: new Set(known), unknown: names.filter((n) => !known.includes(n as LlmStage)) };
}

/** LLM_PRICES: {"model": [input, output]} or {"model": {"input": x, "output": y}}, USD per million tokens. */
export function envPrices(env: LlmEnv): Record<string, ModelPrice> {
  if (!env.LLM_PRICES) return {};
  const out: Record<string, ModelPrice> = {};
  const parsed = JSON.parse(env.LLM_PRICES) as Record<string, unknown>;
  for (const [model, v] of Object.entries(parsed)) {
    const price = Array.isArray(v) ? { input: Number(v[0]), output: Number(v[1]) } : modelPriceSchema.safeParse(v).data;
    if (price && Number.isFinite(price.input) && Number.isFinite(price.output) && price.input >= 0 && price.output >= 0) out[model] = price;
  }
  return out;
}

/** Hosted endpoints refuse requests without a key; local servers (Ollama, llama.cpp, vLLM) usually need none. */
export function endpointNeedsKey(baseUrl: string): boolean {
  let host: string;
  try {
    host = new URL(baseUrl).hostname.toLowerCase().replace(/^\[|\]$/g, "");
  } catch {
    return false;
  }
  if (host === "localhost" || host.endsWith(".localhost") || host.endsWith(".local") || host.endsWith(".internal") || !host.includes("."))
    return false;
  if (/^(127\.|10\.|192\.168\.|172\.(1[6-9]|2\d|3[01])\.|0\.0\.0\.0$|::1$|fc|fd)/.test(host)) return false;
  return true;
}

export type ApiKeySource = "settings" | "environment" | null;

export interface ResolvedLlmSettings {
  /** Null: the stages run classically. */
  config: LlmConfig | null;
  /** off: nothing configured or switched off; ready: usable; misconfigured: configured but unusable (see problems). */
  status: "off" | "ready" | "misconfigured";
  /** Configuration errors for Settings and for the run's degradations. */
  problems: string[];
  apiKeySource: ApiKeySource;
}

/** Effective configuration: Settings over environment, with every problem named. */
export function resolveLlmSettings(
  stored: StoredLlmSettings,
  storedKey: { value: string | null; error: string | null },
  env: LlmEnv,
): ResolvedLlmSettings {
  const problems: string[] = [];
  const baseUrl = (stored.baseUrl || env.LLM_BASE_URL || "").trim();
  const model = (stored.model || env.LLM_MODEL || "").trim();
  if (storedKey.error) problems.push(storedKey.error);
  const apiKey = storedKey.value ?? env.LLM_API_KEY ?? "";
  const apiKeySource: ApiKeySource = storedKey.value ? "settings" : env.LLM_API_KEY ? "environment" : null;
  const fromEnv = envStages(env);
  if (fromEnv.unknown.length)
    problems.push(`LLM_STAGES names unknown stages (${fromEnv.unknown.join(", ")}); known: ${LLM_STAGES.join(", ")}.`);
  let prices: Record<string, ModelPrice> = {};
  try {
    prices = { ...envPrices(env), ...stored.prices };
  } catch {
    problems.push("LLM_PRICES is not valid JSON; the built-in price table is used.");
    prices = { ...stored.prices };
  }
  const stages = Object.fromEntries(
    LLM_STAGES.map((s) => {
      const o = stored.stages[s];
      return [s, { enabled: o?.enabled ?? fromEnv.enabled.has(s), model: o?.model || env[ENV_STAGE_MODEL[s]] || model }];
    }),
  ) as LlmConfig["stages"];

  if (!stored.enabled) return { config: null, status: "off", problems, apiKeySource };
  if (!baseUrl && !model) return { config: null, status: "off", problems, apiKeySource };
  if (!baseUrl)
    problems.push(
      "No endpoint: set the base URL of an OpenAI-compatible server (e.g. https://api.openai.com/v1 or http://localhost:11434/v1).",
    );
  if (!model && LLM_STAGES.some((s) => stages[s].enabled && !stages[s].model))
    problems.push("No model: name the default model (e.g. gpt-4o-mini or llama3.1:8b).");
  if (baseUrl && !apiKey && endpointNeedsKey(baseUrl))
    problems.push(`No API key: ${new URL(baseUrl).host} is a hosted endpoint and will refuse requests without one.`);
  if (!LLM_STAGES.some((s) => stages[s].enabled)) return { config: null, status: "off", problems, apiKeySource };
  if (problems.some((p) => /^No (endpoint|model|API key)|could not be decrypted/.test(p)))
    return { config: null, status: "misconfigured", problems, apiKeySource };
  return {
    config: {
      baseUrl,
      apiKey,
      model,
      stages,
      timeoutMs: stored.timeoutMs ?? env.LLM_TIMEOUT_MS ?? LLM_DEFAULTS.timeoutMs,
      maxRetries: stored.maxRetries ?? env.LLM_MAX_RETRIES ?? LLM_DEFAULTS.maxRetries,
      maxOutputTokens: env.LLM_MAX_OUTPUT_TOKENS ?? LLM_DEFAULTS.maxOutputTokens,
      contextTokens: env.LLM_CONTEXT_TOKENS ?? LLM_DEFAULTS.contextTokens,
      structuredOutputs: (stored.structuredOutputs ?? env.LLM_STRUCTURED_OUTPUTS ?? LLM_DEFAULTS.structuredOutputs) as StructuredOutputMode,
      prices,
    },
    status: "ready",
    problems,
    apiKeySource,
  };
}

export function decryptStoredKey(ciphertext: string | null, encryptionKey: Buffer): { value: string | null; error: string | null } {
  if (!ciphertext) return { value: null, error: null };
  try {
    return { value: decryptSecret(ciphertext, encryptionKey), error: null };
  } catch (e) {
    return {
      value: null,
      error:
        e instanceof SecretDecryptionError
          ? "The stored API key could not be decrypted (the encryption key changed); enter the key again."
          : "The stored API key could not be read; enter it again.",
    };
  }
}

/** The configuration a run uses now. */
export async function loadLlmSettings(prisma: PrismaClient, encryptionKey: Buffer, env: LlmEnv): Promise<ResolvedLlmSettings> {
  const row = await readLlmSettingsRow(prisma);
  return resolveLlmSettings(parseStored(row?.value), decryptStoredKey(row?.secretCiphertext ?? null, encryptionKey), env);
}
