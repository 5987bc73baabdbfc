import type { Prisma, PrismaClient } from "../db/generated/client";
import { type LlmEnv } from "../env";
import { LLM_DEFAULTS, LLM_STAGES, LLM_STAGE_LABELS, type LlmStage, type StructuredOutputMode } from "../llm/config";
import {
  type ApiKeySource,
  ENV_STAGE_MODEL,
  LLM_FAILURE_KEY,
  LLM_SETTING_KEY,
  type LlmFailure,
  type ResolvedLlmSettings,
  type StoredLlmSettings,
  decryptStoredKey,
  envStages,
  failureSchema,
  parseStored,
  readLlmSettingsRow,
  resolveLlmSettings,
} from "../llm/settings";
import { encryptSecret } from "../crypto/secrets";
import type { ApiKeyChange, LlmSettingsInput } from "./llm-settings.validation";

/**
 * The Settings page's view of the LLM configuration and its edits. What a run uses is read by
 * lib/llm/settings.ts (environment defaults, these Settings over them).
 */

// ---------------------------------------------------------------------------------------------
// The Settings page

export interface LlmSettingsView {
  enabled: boolean;
  /** The admin's own values; "" = the environment's default applies. */
  baseUrl: string;
  model: string;
  apiKey: { set: boolean; source: ApiKeySource };
  stages: { stage: LlmStage; label: string; enabled: boolean; model: string; defaultModel: string }[];
  timeoutMs: number | null;
  maxRetries: number | null;
  structuredOutputs: StructuredOutputMode;
  prices: { model: string; input: number; output: number }[];
  /** What the environment provides, shown as placeholders. */
  defaults: { baseUrl: string; model: string; timeoutMs: number; maxRetries: number; structuredOutputs: StructuredOutputMode };
  effective: { status: ResolvedLlmSettings["status"]; problems: string[]; baseUrl: string; model: string };
  /** A configuration failure a run met since the settings were last saved. */
  lastFailure: LlmFailure | null;
  updatedAt: string | null;
}

export async function getLlmSettingsView(prisma: PrismaClient, encryptionKey: Buffer, env: LlmEnv): Promise<LlmSettingsView> {
  const [row, failureRow] = await Promise.all([
    readLlmSettingsRow(prisma),
    prisma.setting.findUnique({ where: { key: LLM_FAILURE_KEY }, select: { value: true } }),
  ]);
  const failure = failureSchema.safeParse(failureRow?.value).data ?? null;
  // Saving the settings answers the failures met before: only newer ones are shown.
  const lastFailure = failure && (!row || failure.at > row.updatedAt.toISOString()) ? failure : null;
  const stored = parseStored(row?.value);
  const key = decryptStoredKey(row?.secretCiphertext ?? null, encryptionKey);
  const resolved = resolveLlmSettings(stored, key, env);
  const fromEnv = envStages(env);
  const model = stored.model ?? "";
  return {
    enabled: stored.enabled,
    baseUrl: stored.baseUrl ?? "",
    model,
    apiKey: {
      set: !!(key.value || row?.secretCiphertext || env.LLM_API_KEY),
      source: row?.secretCiphertext ? "settings" : env.LLM_API_KEY ? "environment" : null,
    },
    stages: LLM_STAGES.map((s) => ({
      stage: s,
      label: LLM_STAGE_LABELS[s],
      enabled: stored.stages[s]?.enabled ?? fromEnv.enabled.has(s),
      model: stored.stages[s]?.model ?? "",
      defaultModel: env[ENV_STAGE_MODEL[s]] ?? (model || env.LLM_MODEL || ""),
    })),
    timeoutMs: stored.timeoutMs,
    maxRetries: stored.maxRetries,
    structuredOutputs: stored.structuredOutputs ?? "auto",
    prices: Object.entries(stored.prices).map(([m, p]) => ({ model: m, input: p.input, output: p.output })),
    defaults: {
      baseUrl: env.LLM_BASE_URL ?? "",
      model: env.LLM_MODEL ?? "",
      timeoutMs: env.LLM_TIMEOUT_MS ?? LLM_DEFAULTS.timeoutMs,
      maxRetries: env.LLM_MAX_RETRIES ?? LLM_DEFAULTS.maxRetries,
      structuredOutputs: env.LLM_STRUCTURED_OUTPUTS ?? LLM_DEFAULTS.structuredOutputs,
    },
    effective: {
      status: resolved.status,
      problems: resolved.problems,
      baseUrl: resolved.config?.baseUrl ?? (stored.baseUrl || env.LLM_BASE_URL || ""),
      model: resolved.config?.model ?? (stored.model || env.LLM_MODEL || ""),
    },
    lastFailure,
    updatedAt: row?.updatedAt.toISOString() ?? null,
  };
}

/** The key a change leaves stored: kept, replaced (encrypted) or cleared. */
function nextCiphertext(current: string | null, change: ApiKeyChange, encryptionKey: Buffer): string | null {
  if (change.action === "keep") return current;
  if (change.action === "clear") return null;
  return encryptSecret(change.value, encryptionKey);
}

export async function saveLlmSettings(prisma: PrismaClient, encryptionKey: Buffer, input: LlmSettingsInput): Promise<void> {
  const row = await readLlmSettingsRow(prisma);
  const stages: StoredLlmSettings["stages"] = {};
  for (const s of input.stages) stages[s.stage] = { enabled: s.enabled, model: s.model || null };
  const value: StoredLlmSettings = {
    enabled: input.enabled,
    baseUrl: input.baseUrl || null,
    model: input.model || null,
    stages,
    timeoutMs: input.timeoutMs,
    maxRetries: input.maxRetries,
    structuredOutputs: input.structuredOutputs === "auto" ? null : input.structuredOutputs,
    prices: Object.fromEntries(input.prices.map((p) => [p.model, { input: p.input, output: p.output }])),
  };
  const secretCiphertext = nextCiphertext(row?.secretCiphertext ?? null, input.apiKey, encryptionKey);
  await prisma.setting.upsert({
    where: { key: LLM_SETTING_KEY },
    create: { key: LLM_SETTING_KEY, value: value as unknown as Prisma.InputJsonValue, secretCiphertext },
    update: { value: value as unknown as Prisma.InputJsonValue, secretCiphertext },
  });
}

/** The key "Test connection" uses: the one typed in the form, else the stored one, else the environment's. */
export async function keyForTest(prisma: PrismaClient, encryptionKey: Buffer, env: LlmEnv, change: ApiKeyChange): Promise<string> {
  if (change.action === "replace") return change.value;
  if (change.action === "clear") return env.LLM_API_KEY ?? "";
  const row = await readLlmSettingsRow(prisma);
  const stored = decryptStoredKey(row?.secretCiphertext ?? null, encryptionKey);
  return stored.value ?? env.LLM_API_KEY ?? "";
}
