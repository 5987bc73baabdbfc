import { z } from "zod";
import { enqueueCatalogEmbedding, enqueueCollectionEmbedding } from "../backends/documents/embedding-queue";
import type { PrismaClient } from "../db/generated/client";
import type { ModelsEnv } from "../models/env";
import type { Precision } from "../models/specs";
import type { ModelSettingsInput } from "./model-settings.validation";

/**
 * Which models run: the environment (MODELS_*, EMBEDDING_MODEL, CROSS_ENCODER_MODEL) gives defaults,
 * the admin's Settings override them. Stored in the `Setting` row "models" (no secrets). Every app
 * instance reads the row, so a change made on one instance reaches the others at their next run.
 */

export const MODEL_SETTING_KEY = "models";

const storedSchema = z.object({
  enabled: z.boolean().nullable().default(null),
  precision: z.enum(["int8", "fp32"]).nullable().default(null),
  embedder: z.string().nullable().default(null),
  crossEncoder: z.string().nullable().default(null),
});
export type StoredModelSettings = z.infer<typeof storedSchema>;

const EMPTY: StoredModelSettings = storedSchema.parse({});

function parseStored(value: unknown): StoredModelSettings {
  const parsed = storedSchema.safeParse(value ?? {});
  return parsed.success ? parsed.data : EMPTY;
}

export interface EffectiveModelSettings {
  enabled: boolean;
  precision: Precision;
  embedder: string;
  crossEncoder: string | null;
}

export function resolveModelSettings(stored: StoredModelSettings, env: ModelsEnv): EffectiveModelSettings {
  return {
    enabled: stored.enabled ?? env.MODELS_ENABLED,
    precision: stored.precision ?? env.MODELS_PRECISION,
    embedder: stored.embedder || env.EMBEDDING_MODEL,
    crossEncoder: stored.crossEncoder || env.CROSS_ENCODER_MODEL || null,
  };
}

async function readRow(prisma: PrismaClient) {
  return prisma.setting.findUnique({ where: { key: MODEL_SETTING_KEY }, select: { value: true, updatedAt: true } });
}

export async function loadModelSettings(prisma: PrismaClient, env: ModelsEnv): Promise<EffectiveModelSettings> {
  return resolveModelSettings(parseStored((await readRow(prisma))?.value), env);
}

export interface ModelSettingsForm {
  enabled: boolean;
  precision: Precision;
  /** The admin's own values; "" = the environment's default. */
  embedder: string;
  crossEncoder: string;
  defaults: { enabled: boolean; precision: Precision; embedder: string; crossEncoder: string };
  updatedAt: string | null;
}

export async function getModelSettingsForm(prisma: PrismaClient, env: ModelsEnv): Promise<ModelSettingsForm> {
  const row = await readRow(prisma);
  const stored = parseStored(row?.value);
  return {
    enabled: stored.enabled ?? env.MODELS_ENABLED,
    precision: stored.precision ?? env.MODELS_PRECISION,
    embedder: stored.embedder ?? "",
    crossEncoder: stored.crossEncoder ?? "",
    defaults: {
      enabled: env.MODELS_ENABLED,
      precision: env.MODELS_PRECISION,
      embedder: env.EMBEDDING_MODEL,
      crossEncoder: env.CROSS_ENCODER_MODEL ?? "",
    },
    updatedAt: row?.updatedAt.toISOString() ?? null,
  };
}

/** Saves the admin's choices; returns what changed for the embeddings (a new embedder or precision means collections are embedded again). */
export async function saveModelSettings(
  prisma: PrismaClient,
  env: ModelsEnv,
  input: ModelSettingsInput,
): Promise<{ before: EffectiveModelSettings; after: EffectiveModelSettings }> {
  const before = await loadModelSettings(prisma, env);
  const value: StoredModelSettings = {
    enabled: input.enabled,
    precision: input.precision,
    embedder: input.embedder || null,
    crossEncoder: input.crossEncoder || null,
  };
  await prisma.setting.upsert({ where: { key: MODEL_SETTING_KEY }, create: { key: MODEL_SETTING_KEY, value }, update: { value } });
  return { before, after: resolveModelSettings(value, env) };
}

/**
 * Saves the admin's choices; when the embedder, its precision or the on/off switch changed, every
 * document collection gets an embedding job (it re-embeds what belongs to another model and skips
 * what is already current). Returns how many collections were queued.
 */
export async function applyModelSettings(prisma: PrismaClient, env: ModelsEnv, input: ModelSettingsInput): Promise<{ queued: number }> {
  const { before, after } = await saveModelSettings(prisma, env, input);
  const vectorsChange = after.enabled && (!before.enabled || before.embedder !== after.embedder || before.precision !== after.precision);
  if (!vectorsChange) return { queued: 0 };
  const collections = await prisma.knowledgeBase.findMany({ where: { kind: "DOCUMENTS" }, select: { id: true } });
  for (const kb of collections) await enqueueCollectionEmbedding(prisma, kb.id);
  await enqueueCatalogEmbedding(prisma);
  return { queued: collections.length };
}
