import { z } from "zod";
import { CAUTION_MAX_PERCENT, CAUTION_MIN_PERCENT } from "../pipeline/calibration/caution-curve";

/** Shared by the Settings form's caution section and its server action. null = the default (chosen on dev). */
export const cautionInputSchema = z.object({
  targetPercent: z
    .number({ error: `Enter a whole percent from ${CAUTION_MIN_PERCENT} to ${CAUTION_MAX_PERCENT}, or leave it empty for the default.` })
    .int("Enter a whole percent, without decimals.")
    .min(
      CAUTION_MIN_PERCENT,
      `At least ${CAUTION_MIN_PERCENT} %: below that an answer would be shown when it is more likely wrong than right.`,
    )
    .max(CAUTION_MAX_PERCENT, `At most ${CAUTION_MAX_PERCENT} %: no answer is ever certain.`)
    .nullable(),
});
export type CautionInput = z.infer<typeof cautionInputSchema>;
