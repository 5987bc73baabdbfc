import type { Embedder } from "../../models/types";
import type { EvidenceScorer } from "../contracts";
import { answerTypeFit } from "./answer-type";
import { denseSimilarities, vectorFromSearch } from "./dense";
import { entityOverlapParts } from "./entity-overlap";
import { lexicalCoverage } from "./lexical";
import { relationFit } from "./relation-fit";
import type { CompositeScorer } from "./types";

/**
 * The final lexical round: relevance to the question is the backbone (BM25 coverage, half the
 * weight); the rest splits between being about the question's entities and holding the kind of
 * answer asked for, and a smaller share for stating the relation asked about (a predicate, edge type or
 * column named like the relation phrase). None of the latter can rank alone: many pieces hold a year,
 * few answer "when did X open"; but among relevant pieces they separate the one that answers from the
 * ones that discuss, and among an entity's facts the one along the asked relation from the others.
 */
export const COMBINED_WEIGHTS = { bm25: 0.45, "entity-overlap": 0.2, "answer-type": 0.2, "relation-fit": 0.15 } as const;

export const combinedScorer: CompositeScorer = {
  name: "combined",
  async scoreParts(intent, pieces) {
    const entities = entityOverlapParts(intent, pieces);
    const parts = {
      bm25: lexicalCoverage(intent, pieces).map((s) => Math.min(1, s)),
      "entity-overlap": entities.total,
      "answer-type": answerTypeFit(intent, pieces),
      "relation-fit": relationFit(intent, pieces),
    };
    const total = pieces.map((_, i) =>
      (Object.keys(COMBINED_WEIGHTS) as (keyof typeof COMBINED_WEIGHTS)[]).reduce(
        (sum, name) => sum + COMBINED_WEIGHTS[name] * parts[name][i],
        0,
      ),
    );
    // Lexical coverage and entities matched by the question's own words repeat the search; the rest is new evidence.
    return {
      total,
      parts,
      repeated: parts.bm25.map((b, i) => COMBINED_WEIGHTS.bm25 * b + COMBINED_WEIGHTS["entity-overlap"] * entities.byWord[i]),
    };
  },
  async score(intent, pieces, signal) {
    return (await this.scoreParts(intent, pieces, signal)).total;
  },
};

/**
 * The last round's fusion when a sentence embedder runs but no cross-encoder is installed: "combined"
 * with its relevance share (0.45) split equally between lexical coverage and semantic similarity, the
 * other parts as they are (a piece without a vector counts its lexical coverage for both halves)...
 */
export const COMBINED_DENSE_WEIGHTS = {
  bm25: 0.225,
  dense: 0.225,
  "entity-overlap": 0.2,
  "answer-type": 0.2,
  "relation-fit": 0.15,
} as const;

/**
 * ...interpolated half and half with the order the round receives (its previous scores, scaled by the
 * best): fixed-weight interpolation of the incoming ranking and the re-ranker, the usual guard against
 * a re-ranker weaker than what it re-ranks. On SciFact claims the question-answering parts (entity
 * overlap, answer type) alone pulled the ranking below the hybrid first stage; interpolated, the last
 * round keeps what retrieval and the first round found, and answer type and entities still reorder
 * close calls for questions.
 */
export const PREVIOUS_ROUND_WEIGHT = 0.5;

export function combinedDenseScorer(embedder: Embedder): CompositeScorer & { fallback: EvidenceScorer } {
  return {
    name: "combined-dense",
    fallback: combinedScorer,
    async scoreParts(intent, pieces, signal, previous) {
      const searched = pieces.map((p) => vectorFromSearch(p, embedder.info.id));
      const similarities = await denseSimilarities(embedder, intent, pieces, signal);
      const bm25 = lexicalCoverage(intent, pieces).map((s) => Math.min(1, s));
      const entities = entityOverlapParts(intent, pieces);
      const parts: Record<string, number[]> = {
        bm25,
        dense: similarities.map((s, i) => (Number.isFinite(s) ? Math.max(0, s) : bm25[i])),
        "entity-overlap": entities.total,
        "answer-type": answerTypeFit(intent, pieces),
        "relation-fit": relationFit(intent, pieces),
      };
      const names = Object.keys(COMBINED_DENSE_WEIGHTS) as (keyof typeof COMBINED_DENSE_WEIGHTS)[];
      const fusion = pieces.map((_, i) => names.reduce((sum, name) => sum + COMBINED_DENSE_WEIGHTS[name] * parts[name][i], 0));
      // Lexical coverage and entities matched by the question's own words repeat the search; so does similarity where the
      // search had the vector (a piece without one counts its coverage twice).
      const repeatedFusion = bm25.map(
        (b, i) =>
          COMBINED_DENSE_WEIGHTS.bm25 * b +
          COMBINED_DENSE_WEIGHTS["entity-overlap"] * entities.byWord[i] +
          (searched[i] || !Number.isFinite(similarities[i]) ? COMBINED_DENSE_WEIGHTS.dense * parts.dense[i] : 0),
      );
      if (!previous || previous.length !== pieces.length) return { total: fusion, parts, repeated: repeatedFusion };
      const best = Math.max(1e-9, ...previous.filter(Number.isFinite));
      parts.previous = previous.map((p) => (Number.isFinite(p) ? Math.max(0, p) / best : 0));
      const blend = (f: number, p: number) => (1 - PREVIOUS_ROUND_WEIGHT) * f + PREVIOUS_ROUND_WEIGHT * p;
      // The previous rounds' scores are the order the round received: repeated, like the search's own signals.
      return {
        total: fusion.map((f, i) => blend(f, parts.previous[i])),
        parts,
        repeated: repeatedFusion.map((r, i) => blend(r, parts.previous[i])),
      };
    },
    async score(intent, pieces, signal, previous) {
      return (await this.scoreParts(intent, pieces, signal, previous)).total;
    },
  };
}
