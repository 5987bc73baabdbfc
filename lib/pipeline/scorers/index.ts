import type { CrossEncoder, Embedder } from "../../models/types";
import type { EvidenceScorer } from "../contracts";
import { answerTypeScorer } from "./answer-type";
import { combinedDenseScorer, combinedScorer } from "./combined";
import { crossEncoderScorer } from "./cross-encoder";
import { denseScorer, hybridEntityScorer } from "./dense";
import { entityOverlapScorer } from "./entity-overlap";
import { bm25EntityScorer, bm25Scorer } from "./lexical";
import { relationFitScorer } from "./relation-fit";

export { answerTypeFit, answerTypeScorer, expectedTypes, fieldsOf } from "./answer-type";
export { COMBINED_DENSE_WEIGHTS, COMBINED_WEIGHTS, combinedDenseScorer, combinedScorer } from "./combined";
export { crossEncoderScorer, sigmoid } from "./cross-encoder";
export {
  EMBED_BUDGET,
  blendWithDense,
  cosine,
  minMaxScale,
  denseScorer,
  denseSimilarities,
  hybridEntityScorer,
  questionVector,
} from "./dense";
export { entityOverlap, entityOverlapScorer } from "./entity-overlap";
export { ENTITY_MENTION_BOOST, bm25EntityScorer, bm25Scorer, lexicalCoverage, mentionedFraction } from "./lexical";
export { identifierWords, pieceSearchText, pieceTokens } from "./piece-text";
export { relationFit, relationFitScorer } from "./relation-fit";
export { type CompositeScorer, isCompositeScorer } from "./types";
export { FEW_RESULTS, FLOOR_SCORE_KEY, STRUCTURED_LANGUAGES, floorScore, structuredFewResultIds } from "./structured-floor";

/**
 * Round names that mean "the best scorer available here" (the default rounds use them): the first round
 * (1000 → 100) is `hybrid` (bm25-entity, blended with semantic similarity when a sentence embedder
 * runs), the last (100 → 30) is `cross-encoder` (Quasar's re-ranker when one is installed, otherwise
 * the best fusion: combined-dense with an embedder, combined without). The trace and the evaluation
 * name the scorer that actually ran.
 */
export const FIRST_ROUND_SCORER = "hybrid";
export const LAST_ROUND_SCORER = "cross-encoder";

/**
 * The classical scorers by name, as configuration names them in rerank rounds ({scorer, keep}), plus
 * the two round names above standing for their classical choice. Scores are read as "higher is
 * better, 0 is irrelevant" (floors and evidence selection compare them as ratios), so the
 * cross-encoder returns probabilities (sigmoid of its logits), not raw logits.
 */
export function defaultScorers(): Record<string, EvidenceScorer> {
  const classical = [bm25Scorer, bm25EntityScorer, entityOverlapScorer, answerTypeScorer, relationFitScorer, combinedScorer];
  return {
    ...Object.fromEntries(classical.map((s) => [s.name, s])),
    [FIRST_ROUND_SCORER]: bm25EntityScorer,
    [LAST_ROUND_SCORER]: combinedScorer,
  };
}

/** The models a run has (null: not available). */
export interface ScoringModels {
  embedder: Embedder | null;
  crossEncoder: CrossEncoder | null;
}

/** The scorers the run's models make possible, by name; the round names point at the best of them. */
export function modelScorers(models: ScoringModels): Record<string, EvidenceScorer> {
  const out: Record<string, EvidenceScorer> = {};
  let fusion: EvidenceScorer = combinedScorer;
  if (models.embedder) {
    const hybrid = hybridEntityScorer(models.embedder);
    fusion = combinedDenseScorer(models.embedder);
    Object.assign(out, {
      dense: denseScorer(models.embedder),
      [hybrid.name]: hybrid,
      [fusion.name]: fusion,
      [FIRST_ROUND_SCORER]: hybrid,
      [LAST_ROUND_SCORER]: fusion,
    });
  }
  if (models.crossEncoder) out[LAST_ROUND_SCORER] = crossEncoderScorer(models.crossEncoder, fusion);
  return out;
}

/** The default scorers plus `extra` ones (a cross-encoder), later names replacing earlier ones. */
export function scorerRegistry(...extra: EvidenceScorer[]): Record<string, EvidenceScorer> {
  return { ...defaultScorers(), ...Object.fromEntries(extra.map((s) => [s.name, s])) };
}

/** Every scorer a run with these models can use. */
export function scorersFor(models: ScoringModels): Record<string, EvidenceScorer> {
  return { ...defaultScorers(), ...modelScorers(models) };
}

export class UnknownScorerError extends Error {
  constructor(name: string, known: string[]) {
    super(`Unknown evidence scorer "${name}" in the re-ranking rounds; known scorers: ${known.join(", ")}.`);
    this.name = "UnknownScorerError";
  }
}

/** The scorer configured under `name`, from `scorers` (defaults when omitted). */
export function scorerByName(name: string, scorers: Record<string, EvidenceScorer> = defaultScorers()): EvidenceScorer {
  const scorer = scorers[name];
  if (!scorer) throw new UnknownScorerError(name, Object.keys(scorers));
  return scorer;
}
