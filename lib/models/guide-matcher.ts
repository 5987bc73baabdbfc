import { z } from "zod";
import type { ModelFiles } from "./files";
import { readTrainingReport, shippedModelDir, shippedModelFiles } from "./shipped-model";
import type { CrossEncoderSpec } from "./specs";
import type { CrossEncoder, ModelCallOptions } from "./types";

/**
 * Mosaic's guide matcher: all-MiniLM-L6-v2 fine-tuned as a cross-encoder that reads an analyst's guide
 * question beside a new question on the same source and gives the log-odds that one query template
 * answers both (their queries equal once literal values are masked; the values are the guide's slots,
 * adapted apart). Learned from pairs of Spider training questions on one database only
 * (training/guide_matching/train_guide_matcher.py): a paraphrase that shares few words with the guide
 * is recognised, and two questions built alike that ask other things are told apart. Shipped in the
 * repository (models/guide-matcher) with its training report, which records the file's checksum and the
 * threshold chosen on held-out training databases.
 */
export const GUIDE_MATCHER_NAME = "mosaic-guide-matcher";

export function guideMatcherDir(): string {
  return shippedModelDir("guide-matcher");
}

export const GUIDE_MATCHER_SPEC: CrossEncoderSpec = {
  task: "cross-encoder",
  name: GUIDE_MATCHER_NAME,
  repo: "",
  revision: "",
  // Trained on pairs of at most 96 tokens (two questions).
  maxTokens: 96,
};

export function guideMatcherFiles(dir = guideMatcherDir()): Promise<ModelFiles> {
  return shippedModelFiles(dir, "The guide matcher");
}

const chosenSchema = z.object({ threshold: z.number(), precision: z.number(), recall: z.number() });
const thresholdSchema = z.object({
  threshold: chosenSchema,
  in_product: z.object({ threshold: chosenSchema.nullable() }).optional(),
});

/**
 * The log-odds from which the matcher's "same question" is taken, as the training report chose it on
 * training databases held out of fitting. Where the product decides (the three guides nearest a question,
 * the highest reading first: `in_product`, training/guide_matching/nearest_threshold.py) the loosest whose
 * precision reaches 0.95 and that lets a question no guide answers take one at most once in twenty; a report
 * without that replay gives its threshold over all pairs, which is stricter.
 */
export function guideMatcherThreshold(dir = guideMatcherDir()): number {
  const report = thresholdSchema.parse(readTrainingReport(dir, "The guide matcher"));
  return (report.in_product?.threshold ?? report.threshold).threshold;
}

/** The loaded matcher with the threshold its training report chose. */
export interface GuideMatcher {
  readonly scorer: CrossEncoder;
  readonly threshold: number;
}

export interface GuideMatch {
  /** Log-odds that one query template answers both questions. */
  logit: number;
  /** The logit reaches the matcher's threshold. */
  same: boolean;
}

/**
 * How each guide question reads beside the new question. Both orders are scored and averaged, as in
 * training and measurement: which of the two is the guide's must not matter.
 */
export async function matchGuideQuestions(
  matcher: GuideMatcher,
  question: string,
  guideQuestions: string[],
  options: ModelCallOptions = {},
): Promise<GuideMatch[]> {
  if (guideQuestions.length === 0) return [];
  const pairs: [string, string][] = guideQuestions.flatMap((g): [string, string][] => [
    [g, question],
    [question, g],
  ]);
  const logits = await matcher.scorer.score(pairs, options);
  return guideQuestions.map((_, i) => {
    const logit = (logits[2 * i] + logits[2 * i + 1]) / 2;
    return { logit, same: logit >= matcher.threshold };
  });
}
