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
 * thresholds chosen on held-out data.
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
  in_product: z
    .object({
      threshold: chosenSchema.nullable(),
      graph: z.object({ threshold: chosenSchema.nullable() }).optional(),
    })
    .optional(),
});

/** From which log-odds the matcher's "same question" is taken, per kind of source its guide queries. */
export interface GuideMatcherThresholds {
  sql: number;
  /** Null: on graphs no threshold reached the bar, and a graph's guides match by words only. */
  graph: number | null;
}

/**
 * The thresholds the training report chose. For SQL, on training databases held out of fitting where the
 * product decides (the three guides nearest a question, the highest reading first: `in_product`,
 * training/guide_matching/nearest_threshold.py): the loosest whose precision reaches 0.95 and that lets a
 * question no guide answers take one at most once in twenty; a report without that replay gives its
 * threshold over all pairs, which is stricter. For graphs (no training split: chosen on one Text2Cypher
 * graph, checked on the other), only where both held-out graphs reach the same bar.
 */
export function guideMatcherThresholds(dir = guideMatcherDir()): GuideMatcherThresholds {
  const report = thresholdSchema.parse(readTrainingReport(dir, "The guide matcher"));
  return {
    sql: (report.in_product?.threshold ?? report.threshold).threshold,
    graph: report.in_product?.graph?.threshold?.threshold ?? null,
  };
}

/** The loaded matcher with the thresholds its training report chose. */
export interface GuideMatcher {
  readonly scorer: CrossEncoder;
  readonly thresholds: GuideMatcherThresholds;
}

export interface GuideMatch {
  /** Log-odds that one query template answers both questions. */
  logit: number;
  /** The logit reaches the threshold for a guide that queries a relational source. */
  same: boolean;
  /** The logit reaches the threshold for a guide that queries a graph (never, without one). */
  sameOnGraph: boolean;
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
    const graph = matcher.thresholds.graph;
    return { logit, same: logit >= matcher.thresholds.sql, sameOnGraph: graph !== null && logit >= graph };
  });
}
