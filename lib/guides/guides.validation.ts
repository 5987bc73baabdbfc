import { z } from "zod";
import { GUIDE_ACTION_KINDS } from "../pipeline/guide-actions";

/** A stored context is a demonstration, not a dump: long results are cut (the action can be re-run). */
export const MAX_CONTEXT_CHARS = 20_000;

/**
 * An extraction guide as an analyst writes it. Action params stay `unknown` here and are checked per
 * kind by the domain (so an error can name the action it is about); contexts are what running the
 * action produced, and are captured again on the server when missing.
 */
export const guideDraftSchema = z.object({
  question: z.string().trim().min(1, "Enter the question this guide answers.").max(2000, "Keep the question under 2,000 characters."),
  answer: z
    .string()
    .trim()
    .max(4000, "Keep the answer under 4,000 characters.")
    .nullish()
    .transform((a) => a || null),
  notes: z.string().trim().max(4000, "Keep the notes under 4,000 characters.").default(""),
  fromRunId: z
    .string()
    .min(1)
    .nullish()
    .transform((v) => v ?? null),
  sources: z
    .array(
      z.object({
        kbId: z.string().min(1, "Choose a knowledge base."),
        sourceObjectId: z
          .string()
          .min(1)
          .nullish()
          .transform((v) => v ?? null),
        actions: z
          .array(
            z.object({
              kind: z.enum(GUIDE_ACTION_KINDS),
              params: z.unknown(),
              context: z
                .string()
                .max(MAX_CONTEXT_CHARS * 2)
                .default(""),
            }),
          )
          .min(1, "Add at least one retrieval action to each source.")
          .max(20, "At most 20 actions per source."),
      }),
    )
    .min(1, "Add at least one source.")
    .max(10, "At most 10 sources per guide."),
});
export type GuideDraftInput = z.input<typeof guideDraftSchema>;
export type GuideDraftParsed = z.output<typeof guideDraftSchema>;

export const listGuidesSchema = z.object({
  q: z
    .string()
    .trim()
    .max(200, "Keep the search under 200 characters.")
    .optional()
    .transform((q) => q || undefined),
  kbId: z
    .string()
    .optional()
    .transform((k) => k || undefined),
  take: z.number().int().min(1).max(200).default(100),
});
