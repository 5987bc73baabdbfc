import type { EvidenceScorer } from "../types";
import { answerTypeScorer } from "./answer-type";
import { combinedScorer } from "./combined";
import { entityOverlapScorer } from "./entity-overlap";
import { bm25EntityScorer, bm25Scorer } from "./lexical";
import { relationFitScorer } from "./relation-fit";

export { answerTypeFit, answerTypeScorer, expectedTypes, fieldsOf } from "./answer-type";
export { COMBINED_WEIGHTS, type CompositeScorer, combinedScorer, isCompositeScorer } from "./combined";
export { entityOverlap, entityOverlapScorer } from "./entity-overlap";
export { ENTITY_MENTION_BOOST, bm25EntityScorer, bm25Scorer, lexicalCoverage, mentionedFraction } from "./lexical";
export { identifierWords, pieceSearchText, pieceTokens } from "./piece-text";
export { relationFit, relationFitScorer } from "./relation-fit";
export { FEW_RESULTS, FLOOR_SCORE_KEY, STRUCTURED_LANGUAGES, floorScore, structuredFewResultIds } from "./structured-floor";

/**
 * The evidence scorers by name, as configuration names them in rerank rounds ({scorer, keep}). A
 * cross-encoder scorer (async, batch-based, same EvidenceScorer interface) is added here by name when
 * the model runtime lands, or passed to rerank in its `scorers` argument. Scores are read as "higher is
 * better, 0 is irrelevant" (floors and evidence selection compare them as ratios), so a cross-encoder
 * should return probabilities (sigmoid of its logits), not raw logits.
 */
export function defaultScorers(): Record<string, EvidenceScorer> {
  return Object.fromEntries([bm25Scorer, bm25EntityScorer, entityOverlapScorer, answerTypeScorer, relationFitScorer, combinedScorer].map((s) => [s.name, s]));
}

/** The default scorers plus `extra` ones (a cross-encoder), later names replacing earlier ones. */
export function scorerRegistry(...extra: EvidenceScorer[]): Record<string, EvidenceScorer> {
  return { ...defaultScorers(), ...Object.fromEntries(extra.map((s) => [s.name, s])) };
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
