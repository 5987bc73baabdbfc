import path from "node:path";
import type { PrismaClient } from "../db/generated/client";
import { log } from "../log";
import { type EffectiveModelSettings, loadModelSettings } from "./settings";
import { defaultWorkerCount, type ModelsEnv, parseModelsEnv } from "../models-env";
import { LocalModelRuntime, type LocalRuntimeConfig } from "./local-runtime";
import { type GuideMatcher, guideMatcherThresholds } from "./guide-matcher";
import { RemoteModelRuntime } from "./remote-runtime";
import type { CrossEncoder, Embedder, ModelRuntime, RuntimeStatus } from "./types";

/**
 * The process's model runtime: in-process worker threads, or the inference service at INFERENCE_URL.
 * One per process (kept on globalThis: Next.js may load this module more than once), rebuilt when the
 * settings that shape it change (precision, models, service URL), the old one closed.
 */

export interface RuntimeChoice {
  settings: EffectiveModelSettings;
  inferenceUrl: string | null;
  local: LocalRuntimeConfig;
}

export function runtimeChoice(settings: EffectiveModelSettings, env: ModelsEnv, dataDir: string): RuntimeChoice {
  return {
    settings,
    inferenceUrl: env.INFERENCE_URL ?? null,
    local: {
      precision: settings.precision,
      embedder: settings.embedder,
      crossEncoder: settings.crossEncoder,
      schemaLinker: env.SCHEMA_LINKER,
      guideMatcher: env.GUIDE_MATCHER,
      locations: { modelsDir: path.resolve(env.MODELS_DIR), cacheDir: path.resolve(dataDir, "models"), hubUrl: env.MODELS_HUB_URL ?? null },
      threads: defaultWorkerCount(env),
      threadsPerWorker: env.MODEL_THREADS_PER_WORKER,
      fuseAttention: env.MODELS_FUSE_ATTENTION,
      batchWaitMs: env.MODEL_BATCH_WAIT_MS,
      batchSize: env.MODEL_BATCH_SIZE,
      queueLimit: env.MODEL_QUEUE_LIMIT,
      timeoutMs: env.MODEL_TIMEOUT_MS,
    },
  };
}

function signature(choice: RuntimeChoice): string {
  return JSON.stringify([choice.inferenceUrl, choice.local]);
}

const g = globalThis as unknown as { __mosaicModels?: { signature: string; runtime: ModelRuntime } | null };

/** The runtime for `choice`; null when models are switched off. */
export function runtimeFor(choice: RuntimeChoice): ModelRuntime | null {
  if (!choice.settings.enabled) return null;
  const sig = signature(choice);
  if (g.__mosaicModels?.signature === sig) return g.__mosaicModels.runtime;
  const previous = g.__mosaicModels?.runtime;
  if (previous) void previous.close().catch((err) => log.warn({ err }, "closing the previous model runtime failed"));
  const runtime: ModelRuntime = choice.inferenceUrl
    ? new RemoteModelRuntime({
        url: choice.inferenceUrl,
        precision: choice.local.precision,
        embedder: choice.local.embedder,
        crossEncoder: choice.local.crossEncoder,
        timeoutMs: choice.local.timeoutMs,
      })
    : new LocalModelRuntime(choice.local);
  g.__mosaicModels = { signature: sig, runtime };
  return runtime;
}

/** The runtime as it is now, without creating one (status pages, shutdown). */
export function currentRuntime(): ModelRuntime | null {
  return g.__mosaicModels?.runtime ?? null;
}

export async function shutdownModels(): Promise<void> {
  const current = g.__mosaicModels;
  g.__mosaicModels = null;
  await current?.runtime.close();
}

/**
 * The models one run (or job) uses. Null fields mean "rank classically": switched off, not installed,
 * or failed to load; `notes` says why in words for the trace and the degradations.
 */
export interface ModelHandles {
  embedder: Embedder | null;
  crossEncoder: CrossEncoder | null;
  /** The question–schema scorer for schema linking (lib/models/schema-linker.ts); absent = the embedder alone. */
  schemaLinker?: CrossEncoder | null;
  /** The guide matcher (lib/models/guide-matcher.ts); absent = a guide answers only a question close in words. */
  guideMatcher?: GuideMatcher | null;
  notes: string[];
}

export const NO_MODELS: ModelHandles = { embedder: null, crossEncoder: null, schemaLinker: null, guideMatcher: null, notes: [] };

export function modelsEnv(): ModelsEnv {
  return parseModelsEnv(process.env);
}

export async function currentChoice(prisma: PrismaClient): Promise<RuntimeChoice> {
  const env = modelsEnv();
  return runtimeChoice(await loadModelSettings(prisma, env), env, process.env.DATA_DIR || ".data");
}

/** The models for a run, from the environment and the admin's settings; never throws. */
export async function resolveModels(prisma: PrismaClient): Promise<ModelHandles> {
  let choice: RuntimeChoice;
  try {
    choice = await currentChoice(prisma);
  } catch (e) {
    return { ...NO_MODELS, notes: [`Model settings could not be read (${(e as Error).message}); ranking is classical.`] };
  }
  return handlesFrom(runtimeFor(choice));
}

/** Query texts whose vectors are kept (a run embeds its question for guides, selection, search and re-ranking). */
const QUERY_CACHE = 512;
const queryCaches = new WeakMap<Embedder, Embedder>();

/**
 * The embedder with a small memory of query vectors: one question is compared with guides, sources,
 * passages and evidence within a run, and asked again in evaluation and follow-ups; it is embedded once.
 */
export function withQueryCache(embedder: Embedder): Embedder {
  const known = queryCaches.get(embedder);
  if (known) return known;
  const cache = new Map<string, Promise<Float32Array>>();
  const cached: Embedder = {
    info: embedder.info,
    embed(texts, kind, options) {
      if (kind !== "query") return embedder.embed(texts, kind, options);
      const missing = [...new Set(texts.filter((t) => !cache.has(t)))];
      if (missing.length) {
        const batch = embedder.embed(missing, kind, options);
        missing.forEach((t, i) => {
          const one = batch.then((v) => v[i]);
          one.catch(() => cache.delete(t));
          cache.set(t, one);
        });
        while (cache.size > QUERY_CACHE) cache.delete(cache.keys().next().value!);
      }
      return Promise.all(texts.map((t) => cache.get(t)!));
    },
  };
  queryCaches.set(embedder, cached);
  return cached;
}

export async function handlesFrom(runtime: ModelRuntime | null): Promise<ModelHandles> {
  if (!runtime) return NO_MODELS;
  const notes: string[] = [];
  const [embedder, crossEncoder, schemaLinker, guideMatcher] = await Promise.all([
    runtime.embedder().catch((e: Error) => {
      notes.push(`The embedding model is unavailable, so ranking is lexical only: ${e.message}`);
      return null;
    }),
    runtime.crossEncoder().catch((e: Error) => {
      notes.push(`The re-ranking model is unavailable, so the last re-ranking round uses the classical fusion: ${e.message}`);
      return null;
    }),
    (runtime.schemaLinker?.() ?? Promise.resolve(null)).catch((e: Error) => {
      notes.push(`The schema linker is unavailable, so columns are matched by the embedder's closeness alone: ${e.message}`);
      return null;
    }),
    (runtime.guideMatcher?.() ?? Promise.resolve(null)).catch((e: Error) => {
      notes.push(`The guide matcher is unavailable, so a guide answers only a question that agrees with it in words: ${e.message}`);
      return null;
    }),
  ]);
  let matcher: GuideMatcher | null = null;
  if (guideMatcher) {
    try {
      matcher = { scorer: guideMatcher, thresholds: guideMatcherThresholds() };
    } catch (e) {
      notes.push(`The guide matcher's threshold could not be read, so a guide answers only a question that agrees with it in words: ${(e as Error).message}`);
    }
  }
  return { embedder: embedder ? withQueryCache(embedder) : null, crossEncoder, schemaLinker, guideMatcher: matcher, notes };
}

export interface ModelsOverview {
  settings: EffectiveModelSettings;
  inferenceUrl: string | null;
  status: RuntimeStatus | null;
}

/** What Settings and health show: the settings in force and the runtime's state (loading the models if they were not yet). */
export async function modelsOverview(prisma: PrismaClient): Promise<ModelsOverview> {
  const choice = await currentChoice(prisma);
  const runtime = runtimeFor(choice);
  if (runtime) await handlesFrom(runtime);
  return { settings: choice.settings, inferenceUrl: choice.inferenceUrl, status: runtime ? await runtime.status() : null };
}
