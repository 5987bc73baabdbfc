import type { PrismaClient } from "../db/generated/client";
import { enqueueCatalogEmbedding, enqueueCollectionEmbedding } from "../ingest/documents/embedding-queue";
import type { ModelsEnv } from "../models-env";
import {
  type EffectiveModelSettings,
  loadModelSettings,
  MODEL_SETTING_KEY,
  parseStoredModelSettings,
  readModelSettingsRow,
  resolveModelSettings,
  type StoredModelSettings,
} from "../models/settings";
import type { Precision } from "../models/specs";
import type { ModelSettingsInput } from "./model-settings.validation";

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
  const row = await readModelSettingsRow(prisma);
  const stored = parseStoredModelSettings(row?.value);
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
