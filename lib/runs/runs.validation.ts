import { z } from "zod";

export const runIdSchema = z.object({ id: z.string().trim().min(1, "A run id is required.").max(64) });

export const feedbackInputSchema = z
  .object({
    runId: z.string().trim().min(1).max(64),
    verdict: z.enum(["HELPFUL", "WRONG"], { message: "Choose Helpful or Wrong." }),
    correctAnswer: z.string().trim().max(2000, "Keep the correct answer under 2,000 characters.").nullish(),
    comment: z.string().trim().max(4000, "Keep the comment under 4,000 characters.").nullish(),
  })
  .transform((v) => ({
    runId: v.runId,
    verdict: v.verdict,
    // A correct answer only makes sense on a wrong one; empty fields are stored as nothing.
    correctAnswer: v.verdict === "WRONG" && v.correctAnswer ? v.correctAnswer : null,
    comment: v.comment ? v.comment : null,
  }));
export type FeedbackInput = z.input<typeof feedbackInputSchema>;

export const HISTORY_PAGE_SIZE = 20;

export const historyQuerySchema = z.object({
  q: z.string().trim().max(200, "Keep the search under 200 characters.").default(""),
  page: z.coerce.number().int().min(1).max(10_000).default(1),
  pageSize: z.coerce.number().int().min(1).max(100).default(HISTORY_PAGE_SIZE),
});
export type HistoryQuery = z.input<typeof historyQuerySchema>;

export const historyViewSchema = z.enum(["questions", "conversations"]);
export type HistoryViewName = z.infer<typeof historyViewSchema>;

export const listHistorySchema = historyQuerySchema.extend({ view: historyViewSchema.default("questions") });
