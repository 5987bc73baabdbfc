import { z } from "zod";
import { LLM_STAGES, STRUCTURED_OUTPUT_MODES } from "../llm/config";

/** Shared by the Settings form and its server actions. Empty strings mean "use the environment's default". */

const optionalUrl = z
  .string()
  .trim()
  .max(500, "Keep the URL under 500 characters.")
  .refine((v) => {
    if (!v) return true;
    try {
      const u = new URL(v);
      return u.protocol === "http:" || u.protocol === "https:";
    } catch {
      return false;
    }
  }, "Enter an http:// or https:// URL, e.g. https://api.openai.com/v1 or http://localhost:11434/v1.");

const modelName = z.string().trim().max(200, "Keep the model name under 200 characters.");

export const apiKeyChangeSchema = z.discriminatedUnion("action", [
  z.object({ action: z.literal("keep") }),
  z.object({ action: z.literal("clear") }),
  z.object({
    action: z.literal("replace"),
    value: z.string().trim().min(1, "Paste the new API key, or choose to keep the current one.").max(1_000, "That key is too long."),
  }),
]);
export type ApiKeyChange = z.infer<typeof apiKeyChangeSchema>;

export const priceRowSchema = z.object({
  model: z.string().trim().min(1, "Name the model.").max(200),
  input: z
    .number({ error: "Enter a price." })
    .min(0, "Prices cannot be negative.")
    .max(1_000, "That is more than any listed model costs; check the unit (USD per million tokens)."),
  output: z
    .number({ error: "Enter a price." })
    .min(0, "Prices cannot be negative.")
    .max(1_000, "That is more than any listed model costs; check the unit (USD per million tokens)."),
});

export const llmSettingsInputSchema = z.object({
  /** Off: no stage uses the LLM, whatever the environment says. */
  enabled: z.boolean(),
  baseUrl: optionalUrl,
  model: modelName,
  apiKey: apiKeyChangeSchema,
  stages: z.array(z.object({ stage: z.enum(LLM_STAGES), enabled: z.boolean(), model: modelName })).max(LLM_STAGES.length),
  timeoutMs: z
    .number({ error: "Enter a whole number of milliseconds." })
    .int("Enter a whole number of milliseconds.")
    .min(500, "At least 500 ms.")
    .max(600_000, "At most 600,000 ms (10 minutes).")
    .nullable(),
  maxRetries: z
    .number({ error: "Enter a whole number." })
    .int("Enter a whole number.")
    .min(0, "At least 0.")
    .max(6, "At most 6 retries.")
    .nullable(),
  structuredOutputs: z.enum(STRUCTURED_OUTPUT_MODES),
  prices: z.array(priceRowSchema).max(100, "At most 100 price entries."),
});
export type LlmSettingsInput = z.infer<typeof llmSettingsInputSchema>;

export const testConnectionInputSchema = z.object({
  baseUrl: optionalUrl,
  model: modelName,
  apiKey: apiKeyChangeSchema,
});
export type TestConnectionInput = z.infer<typeof testConnectionInputSchema>;
