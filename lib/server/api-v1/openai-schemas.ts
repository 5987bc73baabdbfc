import { z } from "zod";

/**
 * The OpenAI chat-completions shapes Mosaic accepts and answers with (/api/v1/chat/completions and
 * /api/v1/models). Parameters Mosaic has no use for (temperature, max_tokens, tools…) are accepted and
 * ignored, so existing clients work unchanged.
 */
const textPart = z.looseObject({ type: z.string(), text: z.string().optional() });

export const chatMessageSchema = z.looseObject({
  role: z.enum(["system", "developer", "user", "assistant", "tool", "function"]),
  content: z.union([z.string(), z.array(textPart), z.null()]).optional(),
});

export const chatCompletionRequestSchema = z.looseObject({
  model: z.string().trim().min(1, "Name a model: mosaic, or mosaic/<knowledge base id> from GET /api/v1/models.").max(200),
  messages: z.array(chatMessageSchema).min(1, "Send at least one message.").max(200),
  stream: z.boolean().default(false),
});
export type ChatCompletionRequest = z.infer<typeof chatCompletionRequestSchema>;

export const chatCompletionSchema = z.object({
  id: z.string(),
  object: z.literal("chat.completion"),
  created: z.number().int(),
  model: z.string(),
  choices: z.array(
    z.object({
      index: z.number().int(),
      message: z.object({ role: z.literal("assistant"), content: z.string() }),
      finish_reason: z.literal("stop"),
    }),
  ),
  usage: z.object({ prompt_tokens: z.number().int(), completion_tokens: z.number().int(), total_tokens: z.number().int() }),
  mosaic: z
    .object({ runId: z.string(), conversationId: z.string(), status: z.string(), evidenceIds: z.array(z.string()) })
    .describe("Mosaic's own: the run, for GET /api/v1/runs/{id}, and the conversation the message history continues"),
});

export const modelListSchema = z.object({
  object: z.literal("list"),
  data: z.array(z.object({ id: z.string(), object: z.literal("model"), created: z.number().int(), owned_by: z.string() })),
});
