import { z } from "zod";

/** Inputs of the evaluation routes and forms (shared by the dashboard and the route handlers). */

export const MAX_APP_CONCURRENCY = 8;

export const startRunSchema = z.object({
  suite: z.string().trim().min(1, "Choose a suite.").max(200),
  limit: z.coerce.number().int().min(1, "At least 1 question.").max(100_000).nullable().default(25),
  seed: z.coerce.number().int().min(0).max(2_147_483_647).default(1),
  concurrency: z.coerce.number().int().min(1).max(MAX_APP_CONCURRENCY).default(2),
  /** Pipeline config overrides as JSON text ("" = defaults); parsed and checked against the pipeline's schema. */
  config: z.string().max(20_000).default(""),
  label: z.string().trim().max(120).default(""),
  fresh: z.boolean().default(false),
  /** "off": classical strategies only, whatever the workspace's LLM settings. */
  llm: z.enum(["default", "off"]).default("default"),
});
export type StartRunInput = z.input<typeof startRunSchema>;

export const questionsQuerySchema = z.object({
  filter: z.enum(["all", "wrong", "right", "refrained", "errors"]).default("all"),
  q: z.string().trim().max(200).default(""),
  offset: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});
export type QuestionsQuery = z.infer<typeof questionsQuerySchema>;

export const compareQuerySchema = z.object({ a: z.string().min(1, "Choose report A."), b: z.string().min(1, "Choose report B.") });

const manualQuestionSchema = z.object({
  kind: z.literal("manual"),
  question: z.string().trim().min(3, "Write the question.").max(1000),
  answers: z.array(z.string().trim().min(1).max(500)).max(20).default([]),
  kbIds: z.array(z.string().min(1)).max(20).default([]),
  unanswerable: z.boolean().default(false),
});

export const createSuiteSchema = z
  .object({
    name: z.string().trim().min(2, "Name the suite.").max(120),
    description: z.string().trim().max(2000).default(""),
    items: z
      .array(
        z.discriminatedUnion("kind", [
          z.object({ kind: z.literal("guide"), id: z.string().min(1) }),
          z.object({ kind: z.literal("feedback"), id: z.string().min(1) }),
          manualQuestionSchema,
        ]),
      )
      .min(1, "Pick at least one guide or resolved feedback.")
      .max(2000),
  })
  .superRefine((v, ctx) => {
    v.items.forEach((item, i) => {
      if (item.kind === "manual" && !item.unanswerable && item.answers.length === 0) {
        ctx.addIssue({
          code: "custom",
          path: ["items", i, "answers"],
          message: "Give at least one accepted answer, or mark the question as one to refrain from.",
        });
      }
    });
  });
export type CreateSuiteInput = z.input<typeof createSuiteSchema>;
