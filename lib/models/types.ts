import type { BatcherStatus } from "./batcher";
import type { ModelTask, Precision } from "./specs";
import type { PoolStatus } from "./worker-pool";

/** A loaded model as admins see it and as stored vectors are tagged with. */
export interface LoadedModelInfo {
  task: ModelTask;
  name: string;
  precision: Precision;
  /** sha256 of the ONNX file that is running. */
  sha256: string;
  bytes: number;
  /** "models-dir", "cache" (downloaded earlier), "hub" (downloaded now) or "service" (the inference service's). */
  source: string;
  file: string;
  dimensions: number | null;
  maxTokens: number;
  /**
   * What vectors are tagged with: name, precision and the file's checksum. Vectors of different ids
   * are never compared; a collection embedded under another id is embedded again.
   */
  id: string;
  note: string | null;
  /**
   * Which graph runs: the published one, or a rewrite of it for onnxruntime (fused self-attention)
   * that gives the same vectors; in words for the admin. The id stays the published file's: vectors
   * from either graph are compared (they differ no more than onnxruntime's own optimisation levels make them).
   */
  graph?: string | null;
}

export interface ModelCallOptions {
  signal?: AbortSignal;
  /** Overrides the runtime's per-request limit (an ingestion batch may wait longer than a question). */
  timeoutMs?: number;
}

export interface Embedder {
  readonly info: LoadedModelInfo;
  /** Unit vectors (cosine = dot product), one per text. `kind` picks the model's query or passage prefix. */
  embed(texts: string[], kind: "query" | "passage", options?: ModelCallOptions): Promise<Float32Array[]>;
}

export interface CrossEncoder {
  readonly info: LoadedModelInfo;
  /** One relevance logit per (query, passage) pair, in the order given. */
  score(pairs: [string, string][], options?: ModelCallOptions): Promise<number[]>;
}

export type ModelState = "off" | "loading" | "ready" | "unavailable";

export interface ModelSlotStatus {
  state: ModelState;
  /** Set when ready. */
  model: LoadedModelInfo | null;
  /** Why the slot is off or unavailable, in words an admin can act on. */
  reason: string | null;
}

export interface RuntimeStatus {
  mode: "in-process" | "service";
  /** The inference service's URL in service mode. */
  url: string | null;
  embedder: ModelSlotStatus;
  crossEncoder: ModelSlotStatus;
  pool: PoolStatus | null;
  queues: { embedder: BatcherStatus | null; crossEncoder: BatcherStatus | null };
}

export interface ModelRuntime {
  /** The embedder, loading it on first use; throws (ModelUnavailableError, a load refusal) when it cannot run. */
  embedder(): Promise<Embedder>;
  /** The cross-encoder, or null when none is configured; throws when one is configured but cannot run. */
  crossEncoder(): Promise<CrossEncoder | null>;
  /**
   * The question–schema scorer (schema-linker.ts), or null where the runtime has none (an inference
   * service, SCHEMA_LINKER=false): schema linking then closes in on columns with the embedder alone.
   */
  schemaLinker?(): Promise<CrossEncoder | null>;
  /**
   * The guide matcher (guide-matcher.ts), or null where the runtime has none (an inference service,
   * GUIDE_MATCHER=false): a guide then answers a question only when the two agree in words.
   */
  guideMatcher?(): Promise<CrossEncoder | null>;
  status(): Promise<RuntimeStatus>;
  close(): Promise<void>;
}
