import { z } from "zod";

/** Shared by the Settings form's fair-use section and its server action. null = the environment's RUNS_MAX_CONCURRENT. */
export const fairUseInputSchema = z.object({
  maxConcurrentRuns: z
    .number({ error: "Enter a whole number from 1 to 100, or leave it empty for the default." })
    .int("Enter a whole number from 1 to 100.")
    .min(1, "At least one question must be allowed.")
    .max(100, "At most 100.")
    .nullable(),
});
export type FairUseInput = z.infer<typeof fairUseInputSchema>;
