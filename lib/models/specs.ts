/**
 * What the runtime needs to know about a model beyond its files: how an embedder pools and how wide
 * its vectors are (the ONNX graph gives token states, not sentence vectors), and where a model lives
 * on a Hugging Face–compatible hub. Folder layout everywhere is the hub's (transformers.js reads the
 * same): <model>/tokenizer.json, <model>/tokenizer_config.json, <model>/onnx/model.onnx (fp32) and
 * <model>/onnx/model_quantized.onnx (int8).
 */

export type Precision = "int8" | "fp32";
export type ModelTask = "embedding" | "cross-encoder";

export const ONNX_FILES: Record<Precision, string> = { fp32: "onnx/model.onnx", int8: "onnx/model_quantized.onnx" };
export const TOKENIZER_FILE = "tokenizer.json";
export const TOKENIZER_CONFIG_FILE = "tokenizer_config.json";

export interface ModelSpec {
  task: ModelTask;
  /** What admins see and settings store: a folder name under MODELS_DIR or a hub repo ("org/name"). */
  name: string;
  /** Hub repository and revision the files are fetched from when missing locally. */
  repo: string;
  revision: string;
  /** Token limit (special tokens included); longer inputs are truncated. */
  maxTokens: number;
}

export interface EmbedderSpec extends ModelSpec {
  task: "embedding";
  dimensions: number;
  pooling: "mean" | "cls";
  /** Prepended to queries (bge-style asymmetric models); passages get `passagePrefix`. */
  queryPrefix: string;
  passagePrefix: string;
}

export interface CrossEncoderSpec extends ModelSpec {
  task: "cross-encoder";
}

/**
 * The embedders the runtime knows how to pool. all-MiniLM-L6-v2 is the one shipped in ../shared/models
 * (mean pooling + L2, 256 tokens, no prefixes; see its README); bge-small-en-v1.5 is known so that a
 * workspace with a hub can switch to it (CLS pooling, 512 tokens, a query instruction).
 */
export const EMBEDDERS: Record<string, EmbedderSpec> = {
  "all-MiniLM-L6-v2": {
    task: "embedding",
    name: "all-MiniLM-L6-v2",
    repo: "Xenova/all-MiniLM-L6-v2",
    revision: "main",
    maxTokens: 256,
    dimensions: 384,
    pooling: "mean",
    queryPrefix: "",
    passagePrefix: "",
  },
  "bge-small-en-v1.5": {
    task: "embedding",
    name: "bge-small-en-v1.5",
    repo: "Xenova/bge-small-en-v1.5",
    revision: "main",
    maxTokens: 512,
    dimensions: 384,
    pooling: "cls",
    queryPrefix: "Represent this sentence for searching relevant passages: ",
    passagePrefix: "",
  },
};

/** Cross-encoders read at most this many tokens per pair (MiniLM/BERT position limit). */
export const CROSS_ENCODER_MAX_TOKENS = 512;

const NAME = /^[A-Za-z0-9][\w.-]*(\/[A-Za-z0-9][\w.-]*)?$/;

export class UnknownModelError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UnknownModelError";
  }
}

/** "org/name" or "name": letters, digits, dot, dash, underscore; never a path that climbs out of a folder. */
export function checkModelName(name: string): string {
  const trimmed = name.trim();
  if (!NAME.test(trimmed) || trimmed.includes("..")) {
    throw new UnknownModelError(
      `"${name}" is not a model name: use a folder name under MODELS_DIR or a hub repository such as cross-encoder/ms-marco-MiniLM-L-6-v2.`,
    );
  }
  return trimmed;
}

export function embedderSpec(name: string): EmbedderSpec {
  const spec = EMBEDDERS[checkModelName(name)];
  if (!spec)
    throw new UnknownModelError(
      `The sentence embedder "${name}" is not one this runtime knows how to pool; choose one of ${Object.keys(EMBEDDERS).join(", ")}.`,
    );
  return spec;
}

/** Any sequence-classification model: its name is its hub repository (and its folder under MODELS_DIR). */
export function crossEncoderSpec(name: string): CrossEncoderSpec {
  const repo = checkModelName(name);
  return { task: "cross-encoder", name: repo, repo, revision: "main", maxTokens: CROSS_ENCODER_MAX_TOKENS };
}
