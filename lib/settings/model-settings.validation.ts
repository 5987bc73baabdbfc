import { z } from "zod";

/** Shared by the Settings form's model section and its server action. Empty strings mean "the environment's default". */

const modelName = z
  .string()
  .trim()
  .max(200, "Keep the model name under 200 characters.")
  .refine(
    (v) => !v || (/^[A-Za-z0-9][\w.-]*(\/[A-Za-z0-9][\w.-]*)?$/.test(v) && !v.includes("..")),
    "Use a folder name under MODELS_DIR or a hub repository such as cross-encoder/ms-marco-MiniLM-L-6-v2.",
  );

export const modelSettingsInputSchema = z.object({
  /** Off: every ranking is classical (BM25 and the lexical scorers), whatever is installed. */
  enabled: z.boolean(),
  precision: z.enum(["int8", "fp32"]),
  /** "" = the environment's EMBEDDING_MODEL. */
  embedder: modelName,
  /** The re-ranking cross-encoder; "" = none. */
  crossEncoder: modelName,
});
export type ModelSettingsInput = z.infer<typeof modelSettingsInputSchema>;
