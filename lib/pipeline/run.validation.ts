import { z } from "zod";

export const askSchema = z.object({
  question: z.string().trim().min(1, "Type a question first.").max(10_000, "Keep the question under 10,000 characters."),
  conversationId: z.string().min(1).nullish(),
  kbIds: z.array(z.string().min(1)).max(50).optional(),
});
export type AskInput = z.infer<typeof askSchema>;
