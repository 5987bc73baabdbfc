/**
 * The robustness suite's rewrite classes (issue 27), in reading order. A leaf module: the dashboard's
 * labels read it too.
 *
 * synonym: schema words replaced by words a business user would use; paraphrase: the same question
 * said another way; no-column-names: the column or property names left out where the sentence stays
 * clear; other-values: literal values swapped for other values of the same column, with the gold changed.
 */
export const ROBUSTNESS_CLASSES = ["synonym", "paraphrase", "no-column-names", "other-values"] as const;
export type RobustnessClass = (typeof ROBUSTNESS_CLASSES)[number];
