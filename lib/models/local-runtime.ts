import { readFileSync } from "node:fs";
import path from "node:path";
import { DynamicBatcher } from "./batcher";
import { type ModelFiles, type ModelLocations, locateModel } from "./files";
import { GUIDE_MATCHER_SPEC, guideMatcherFiles } from "./guide-matcher";
import { SCHEMA_LINKER_SPEC, schemaLinkerFiles } from "./schema-linker";
import { type CrossEncoderSpec, type EmbedderSpec, type ModelSpec, type Precision, crossEncoderSpec, embedderSpec } from "./specs";
import type { CrossEncoder, Embedder, LoadedModelInfo, ModelCallOptions, ModelRuntime, ModelSlotStatus, RuntimeStatus } from "./types";
import { InferencePool } from "./worker-pool";

/** A model file that exists but is not the model it should be (corrupt, wrong inputs, wrong width). */
export class ModelLoadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ModelLoadError";
  }
}

export interface LocalRuntimeConfig {
  precision: Precision;
  embedder: string;
  crossEncoder: string | null;
  /** Load the shipped question–schema scorer (schema-linker.ts) for schema linking; default on. */
  schemaLinker?: boolean;
  /** Load the shipped guide matcher (guide-matcher.ts) to tell whether a guide's question is the new one; default on. */
  guideMatcher?: boolean;
  locations: ModelLocations;
  threads: number;
  /**
   * onnxruntime intra-op threads in each worker's session (default 1). One thread per worker keeps
   * the cores busy with independent batches and never has a session wait at a barrier for a thread
   * the OS gave to another process (measured: a 2-thread session loses most of its speed on a busy
   * machine); more suits a machine with spare cores and few concurrent requests.
   */
  threadsPerWorker?: number;
  /**
   * Run embedders with their self-attention fused into onnxruntime's MultiHeadAttention operator
   * (workers/inference/attention-fusion.mjs) when the rewrite applies and checks out (default on).
   */
  fuseAttention?: boolean;
  batchWaitMs: number;
  batchSize: number;
  queueLimit: number;
  timeoutMs: number;
}

/** After a failed load, the next use tries again after this long (a hub that was down may be back). */
const RETRY_AFTER_MS = 60_000;

/** What the worker receives to load a model (workers/inference/model.mjs ModelDescriptor). */
interface ModelDescriptor {
  key: string;
  task: "embedding" | "cross-encoder";
  name: string;
  onnxPath: string;
  tokenizerPath: string;
  tokenizerConfigPath: string | null;
  maxTokens: number;
  pooling?: "mean" | "cls";
  dimensions?: number;
  threads: number;
  fuseAttention?: boolean;
}

interface Slot<T> {
  loading: Promise<T> | null;
  info: LoadedModelInfo | null;
  failure: { message: string; at: number } | null;
}

function describeFiles(
  spec: ModelSpec,
  files: ModelFiles,
  dimensions: number | null,
  maxTokens: number,
  graph: string | null,
): LoadedModelInfo {
  return {
    task: spec.task,
    name: spec.name,
    precision: files.precision,
    sha256: files.sha256,
    bytes: files.bytes,
    source: files.source,
    file: files.onnxPath,
    dimensions,
    maxTokens,
    id: `${spec.name}@${files.precision}:${files.sha256.slice(0, 12)}`,
    note: files.note,
    graph,
  };
}

function readMaxTokens(spec: ModelSpec, files: ModelFiles): number {
  if (spec.task === "embedding" || !files.tokenizerConfigPath) return spec.maxTokens;
  // A cross-encoder's own limit (tokenizer_config.json model_max_length), within the position limit.
  try {
    const config = JSON.parse(readFileSync(files.tokenizerConfigPath, "utf8")) as { model_max_length?: number };
    const n = Number(config.model_max_length);
    return Number.isFinite(n) && n > 8 ? Math.min(n, spec.maxTokens) : spec.maxTokens;
  } catch {
    return spec.maxTokens;
  }
}

/**
 * Models in worker threads of this process: files located (and downloaded) here, sessions loaded in
 * the threads, requests batched across callers. Nothing runs on the calling thread but tokenisation-
 * free bookkeeping.
 */
export class LocalModelRuntime implements ModelRuntime {
  private pool: InferencePool | null = null;
  private readonly embedderSlot: Slot<Embedder> = { loading: null, info: null, failure: null };
  private readonly crossSlot: Slot<CrossEncoder> = { loading: null, info: null, failure: null };
  private readonly linkerSlot: Slot<CrossEncoder> = { loading: null, info: null, failure: null };
  private readonly matcherSlot: Slot<CrossEncoder> = { loading: null, info: null, failure: null };
  private readonly batchers: {
    embedder: DynamicBatcher<string, Float32Array> | null;
    crossEncoder: DynamicBatcher<[string, string], number> | null;
    schemaLinker: DynamicBatcher<[string, string], number> | null;
    guideMatcher: DynamicBatcher<[string, string], number> | null;
  } = {
    embedder: null,
    crossEncoder: null,
    schemaLinker: null,
    guideMatcher: null,
  };
  private closed = false;

  constructor(readonly config: LocalRuntimeConfig) {}

  private workers(): InferencePool {
    if (this.closed) throw new Error("The model runtime was stopped.");
    this.pool ??= new InferencePool({ threads: this.config.threads });
    return this.pool;
  }

  /** The worker pool (tests end one of its threads to check failover). */
  get inferencePool(): InferencePool | null {
    return this.pool;
  }

  private load<T>(slot: Slot<T>, open: () => Promise<T>): Promise<T> {
    if (slot.failure && Date.now() - slot.failure.at >= RETRY_AFTER_MS) {
      slot.failure = null;
      slot.loading = null;
    }
    if (!slot.loading) {
      slot.loading = open().catch((e: Error) => {
        slot.failure = { message: e.message, at: Date.now() };
        throw e;
      });
      // Callers that only look at the status must not see an unhandled rejection.
      slot.loading.catch(() => undefined);
    }
    return slot.loading;
  }

  private async loadInWorker(
    spec: ModelSpec,
    files: ModelFiles,
    extra: Partial<ModelDescriptor>,
  ): Promise<{ descriptor: ModelDescriptor; graph: string | null }> {
    const descriptor: ModelDescriptor = {
      key: `${spec.task}:${files.onnxPath}:${files.sha256}`,
      task: spec.task,
      name: spec.name,
      onnxPath: files.onnxPath,
      tokenizerPath: files.tokenizerPath,
      tokenizerConfigPath: files.tokenizerConfigPath,
      maxTokens: readMaxTokens(spec, files),
      threads: this.config.threadsPerWorker ?? 1,
      ...extra,
    };
    const reply = await this.workers().run<{ ok: boolean; error?: string; graph?: string }>({ op: "load", model: descriptor });
    if (!reply.ok) throw new ModelLoadError(reply.error ?? `${path.basename(files.onnxPath)} could not be loaded.`);
    return { descriptor, graph: reply.graph ?? null };
  }

  embedder(): Promise<Embedder> {
    return this.load(this.embedderSlot, async () => {
      const spec: EmbedderSpec = embedderSpec(this.config.embedder);
      const files = await locateModel(spec, this.config.precision, this.config.locations);
      const { descriptor, graph } = await this.loadInWorker(spec, files, {
        pooling: spec.pooling,
        dimensions: spec.dimensions,
        fuseAttention: this.config.fuseAttention ?? true,
      });
      const info = describeFiles(spec, files, spec.dimensions, descriptor.maxTokens, graph);
      const batcher = new DynamicBatcher<string, Float32Array>({
        label: `The embedding model (${spec.name})`,
        maxWaitMs: this.config.batchWaitMs,
        maxBatch: this.config.batchSize,
        queueLimit: this.config.queueLimit,
        concurrency: this.config.threads + 1,
        // int8 vectors depend on their batch (see BatcherOptions.mixRequests): one request per batch.
        mixRequests: this.config.precision !== "int8",
        sizeOf: (t) => t.length,
        run: async (texts) => {
          const flat = await this.workers().run<Float32Array>({ op: "embed", model: descriptor, texts });
          const d = spec.dimensions;
          return texts.map((_, i) => flat.subarray(i * d, (i + 1) * d));
        },
      });
      this.batchers.embedder = batcher;
      this.embedderSlot.info = info;
      const timeoutMs = this.config.timeoutMs;
      return {
        info,
        embed(texts: string[], kind: "query" | "passage", options: ModelCallOptions = {}) {
          const prefix = kind === "query" ? spec.queryPrefix : spec.passagePrefix;
          return batcher.submit(prefix ? texts.map((t) => prefix + t) : texts, {
            timeoutMs: options.timeoutMs ?? timeoutMs,
            signal: options.signal,
          });
        },
      } satisfies Embedder;
    });
  }

  crossEncoder(): Promise<CrossEncoder | null> {
    const name = this.config.crossEncoder;
    if (!name) return Promise.resolve(null);
    return this.load(this.crossSlot, async () => {
      const spec: CrossEncoderSpec = crossEncoderSpec(name);
      const files = await locateModel(spec, this.config.precision, this.config.locations);
      return this.openCrossEncoder(spec, files, "crossEncoder", `The re-ranking model (${spec.name})`, this.crossSlot);
    });
  }

  schemaLinker(): Promise<CrossEncoder | null> {
    if (this.config.schemaLinker === false) return Promise.resolve(null);
    return this.load(this.linkerSlot, async () =>
      this.openCrossEncoder(SCHEMA_LINKER_SPEC, await schemaLinkerFiles(), "schemaLinker", "The schema linker", this.linkerSlot),
    );
  }

  guideMatcher(): Promise<CrossEncoder | null> {
    if (this.config.guideMatcher === false) return Promise.resolve(null);
    return this.load(this.matcherSlot, async () =>
      this.openCrossEncoder(GUIDE_MATCHER_SPEC, await guideMatcherFiles(), "guideMatcher", "The guide matcher", this.matcherSlot),
    );
  }

  private async openCrossEncoder(
    spec: CrossEncoderSpec,
    files: ModelFiles,
    which: "crossEncoder" | "schemaLinker" | "guideMatcher",
    label: string,
    slot: Slot<CrossEncoder>,
  ): Promise<CrossEncoder> {
    const { descriptor, graph } = await this.loadInWorker(spec, files, {});
    const info = describeFiles(spec, files, null, descriptor.maxTokens, graph);
    const batcher = new DynamicBatcher<[string, string], number>({
      label,
      maxWaitMs: this.config.batchWaitMs,
      maxBatch: this.config.batchSize,
      queueLimit: this.config.queueLimit,
      concurrency: this.config.threads + 1,
      mixRequests: files.precision !== "int8",
      sizeOf: ([q, p]) => q.length + p.length,
      run: async (pairs) => [...(await this.workers().run<Float32Array>({ op: "score", model: descriptor, pairs }))],
    });
    this.batchers[which] = batcher;
    slot.info = info;
    const timeoutMs = this.config.timeoutMs;
    return {
      info,
      score: (pairs: [string, string][], options: ModelCallOptions = {}) =>
        batcher.submit(pairs, { timeoutMs: options.timeoutMs ?? timeoutMs, signal: options.signal }),
    } satisfies CrossEncoder;
  }

  async status(): Promise<RuntimeStatus> {
    return {
      mode: "in-process",
      url: null,
      embedder: slotStatus(this.embedderSlot, true),
      crossEncoder: slotStatus(this.crossSlot, !!this.config.crossEncoder),
      pool: this.pool?.status() ?? null,
      queues: { embedder: this.batchers.embedder?.status() ?? null, crossEncoder: this.batchers.crossEncoder?.status() ?? null },
    };
  }

  /** Refuses new requests, lets running batches finish, stops the threads. */
  async close(): Promise<void> {
    this.closed = true;
    this.batchers.embedder?.close();
    this.batchers.crossEncoder?.close();
    this.batchers.schemaLinker?.close();
    this.batchers.guideMatcher?.close();
    const pool = this.pool;
    this.pool = null;
    await pool?.close();
  }
}

function slotStatus<T>(slot: Slot<T>, configured: boolean): ModelSlotStatus {
  if (!configured) return { state: "off", model: null, reason: "No model is configured." };
  if (slot.failure) return { state: "unavailable", model: null, reason: slot.failure.message };
  if (slot.info) return { state: "ready", model: slot.info, reason: null };
  if (slot.loading) return { state: "loading", model: null, reason: null };
  return { state: "loading", model: null, reason: "Not loaded yet: it loads on first use." };
}
