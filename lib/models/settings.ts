import { z } from "zod";
import type { PrismaClient } from "../db/generated/client";
import type { ModelsEnv } from "../models-env";
import type { Precision } from "./specs";

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

export function parseStoredModelSettings(value: unknown): StoredModelSettings {
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

export async function readModelSettingsRow(prisma: PrismaClient) {
  return prisma.setting.findUnique({ where: { key: MODEL_SETTING_KEY }, select: { value: true, updatedAt: true } });
}

export async function loadModelSettings(prisma: PrismaClient, env: ModelsEnv): Promise<EffectiveModelSettings> {
  return resolveModelSettings(parseStoredModelSettings((await readModelSettingsRow(prisma))?.value), env);
}
