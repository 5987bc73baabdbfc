import { availableParallelism } from "node:os";
import { z } from "zod";

/**
 * The model runtime's environment (validated with the rest in lib/env.ts). These are defaults; the
 * admin's model settings (lib/settings/model-settings.ts) override the ones a person chooses
 * (precision, which models, on/off). Unset MODELS_HUB_URL: models come only from MODELS_DIR or the cache.
 */
export function modelsEnvShape() {
  return {
    /** Read-only model folders in the Hugging Face layout (<name>/onnx/*.onnx, <name>/tokenizer.json). */
    MODELS_DIR: z.string().min(1).default("../shared/models"),
    /** A Hugging Face–compatible hub (https://huggingface.co or a mirror) to fetch missing models from. */
    MODELS_HUB_URL: z.url({ protocol: /^https?$/, error: "must be an http(s) URL such as https://huggingface.co" }).optional(),
    MODELS_ENABLED: z
      .enum(["true", "false", "1", "0", "yes", "no"])
      .transform((v) => v === "true" || v === "1" || v === "yes")
      .default(true),
    MODELS_PRECISION: z.enum(["int8", "fp32"]).default("int8"),
    /** The sentence embedder (a name from lib/models/specs.ts). */
    EMBEDDING_MODEL: z.string().min(1).default("all-MiniLM-L6-v2"),
    /** A sequence-classification cross-encoder as "<folder or hub repo>", e.g. cross-encoder/ms-marco-MiniLM-L-6-v2. Unset: none. */
    CROSS_ENCODER_MODEL: z.string().min(1).optional(),
    /**
     * The question–schema scorer shipped in models/schema-linker (lib/models/schema-linker.ts) ranks
     * columns for schema linking instead of the embedder's closeness. Off by default: measured on Spider
     * dev and the robustness suite it did not move execution match (docs/EVALUATION.md, "Schema linker"),
     * so it waits for an integration that turns its better column ranking into better queries.
     */
    SCHEMA_LINKER: z
      .enum(["true", "false", "1", "0", "yes", "no"])
      .transform((v) => v === "true" || v === "1" || v === "yes")
      .default(false),
    /**
     * The guide matcher shipped in models/guide-matcher (lib/models/guide-matcher.ts) tells whether an
     * analyst's guide asks the same question as the new one in other words, so its query answers it.
     */
    GUIDE_MATCHER: z
      .enum(["true", "false", "1", "0", "yes", "no"])
      .transform((v) => v === "true" || v === "1" || v === "yes")
      .default(true),
    /** An inference service (npm run worker:inference) to use instead of in-process workers. */
    INFERENCE_URL: z
      .url({ protocol: /^https?$/, error: "must be the http(s) URL of an inference service, such as http://localhost:3100" })
      .optional(),
    /** Worker threads of the in-process pool. Default: one per core. */
    MODEL_WORKERS: z.coerce.number().int().min(1).max(64).optional(),
    /**
     * onnxruntime threads inside each worker (default 1: the cores run the workers' batches side by
     * side; more only lowers one long request's latency on a machine with idle cores).
     */
    MODEL_THREADS_PER_WORKER: z.coerce.number().int().min(1).max(64).default(1),
    /**
     * Run embedders with their self-attention fused into one onnxruntime operator when the rewrite
     * applies and gives the published graph's vectors (workers/inference/attention-fusion.mjs).
     * "false" runs the published graph as it is.
     */
    MODELS_FUSE_ATTENTION: z
      .enum(["true", "false", "1", "0", "yes", "no"])
      .transform((v) => v === "true" || v === "1" || v === "yes")
      .default(true),
    /** How long a request waits for others to share its batch. */
    MODEL_BATCH_WAIT_MS: z.coerce.number().int().min(0).max(1000).default(4),
    /** Texts (or pairs) per model call. */
    MODEL_BATCH_SIZE: z.coerce.number().int().min(1).max(512).default(32),
    /** Texts waiting or running before new requests are refused (back-pressure). */
    MODEL_QUEUE_LIMIT: z.coerce.number().int().min(1).max(1_000_000).default(4096),
    /** Per-request limit; a request past it fails (its scorer falls back) without waiting for the batch. */
    MODEL_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
  };
}

const modelsEnvSchema = z.object(modelsEnvShape());
export type ModelsEnv = z.infer<typeof modelsEnvSchema>;

/** Only the model variables (code outside the app's start-up validation: workers, scripts, tests). */
export function parseModelsEnv(source: Record<string, string | undefined>): ModelsEnv {
  const cleaned = Object.fromEntries(Object.keys(modelsEnvSchema.shape).map((k) => [k, source[k] === "" ? undefined : source[k]]));
  const result = modelsEnvSchema.safeParse(cleaned);
  if (!result.success)
    throw new Error(
      `Invalid model settings in the environment: ${result.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
    );
  return result.data;
}

export function defaultWorkerCount(env: Pick<ModelsEnv, "MODEL_WORKERS">): number {
  return env.MODEL_WORKERS ?? Math.max(1, availableParallelism());
}
