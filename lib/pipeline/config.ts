import { z } from "zod";
import { rerankRoundSchema } from "./contracts";

/**
 * Pipeline settings. Defaults follow the papers (Quasar: pool of 1000, re-ranking 1000→100→30, answer
 * from 30 pieces; OmniRetrieval: top-3 candidate sources; HybGRAG: at most 3 critic rounds) and the
 * run's own budget. Overridable per run (evaluation configs) through the same schema.
 */
export const pipelineConfigSchema = z.object({
  candidates: z.number().int().min(1).max(20).default(3),
  maxRounds: z.number().int().min(1).max(5).default(3),
  poolLimit: z.number().int().min(10).max(5000).default(1000),
  /**
   * Quasar's 1000 → 100 → 30. "hybrid" and "cross-encoder" stand for the best scorer available: with a
   * sentence embedder the first round blends in semantic similarity; with no cross-encoder installed the
   * last round is the best fusion (combined, plus semantic similarity with an embedder). Any scorer name
   * (bm25, bm25-entity, combined, dense, combined-dense, ...) may be configured instead.
   */
  rerankRounds: z
    .array(rerankRoundSchema)
    .min(1)
    .default([
      { scorer: "hybrid", keep: 100 },
      { scorer: "cross-encoder", keep: 30 },
    ]),
  evidenceForAnswer: z.number().int().min(1).max(200).default(30),
  /** Refrain below this answer confidence. */
  answerThreshold: z.number().min(0).max(1).default(0.35),
  /**
   * Show the calibrated probability of being right (lib/data/answer-calibrator.json) as the answer's
   * confidence, for the kinds of source the calibrator was fitted on; false: the answer stage's own.
   */
  calibrateConfidence: z.boolean().default(true),
  /**
   * Show an answer only when its calibrated confidence is at least this (issue 32, part 3); below it
   * the answer is "not certain", with why. Unset: the workspace's setting (Settings → Caution), else the
   * default lib/data/answer-caution.json was chosen with. Evaluation configs set it to measure a target.
   */
  answerTarget: z.number().min(0).max(1).optional(),
  /** Whole-run budget; stages and queries shorten their own limits to fit inside it. */
  timeBudgetMs: z.number().int().min(1000).max(600_000).default(30_000),
  /** The budget when LLM strategies run and the caller set no timeBudgetMs: model calls take seconds each. */
  llmTimeBudgetMs: z.number().int().min(1000).max(600_000).default(90_000),
  queryTimeoutMs: z.number().int().min(100).max(120_000).default(8_000),
  /** Rows of a context query (evidence for the pool): enough to rank, few enough to pool quickly. */
  maxRowsPerQuery: z.number().int().min(1).max(10_000).default(200),
  /**
   * Rows of an answer query (its result is the answer: a list or a table). Answer queries carry no row
   * LIMIT of their own unless the question asks for one; when a result holds more rows than this, the
   * answer shows the first ones and says the cap applied.
   */
  answerRowCap: z.number().int().min(1).max(100_000).default(1_000),
  /** Questions longer than this are cut (recorded in the trace) so one request cannot monopolize the server. */
  maxQuestionChars: z.number().int().min(50).max(10_000).default(1_000),
});
export type PipelineConfig = z.infer<typeof pipelineConfigSchema>;

export const DEFAULT_PIPELINE_CONFIG: PipelineConfig = pipelineConfigSchema.parse({});
