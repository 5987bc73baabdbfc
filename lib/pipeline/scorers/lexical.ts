import type { EvidencePiece } from "../../backends/types";
import { Bm25Index } from "../bm25";
import { terms } from "../text";
import { type EvidenceScorer, type Intent, intentText } from "../types";
import { mentionForms } from "./mentions";
import { containsPhrase, pieceTokens, preparePiece } from "./piece-text";

/**
 * BM25 of the concatenated intent against the pieces being ranked (the index is built over exactly
 * those pieces, so idf reflects what competes), divided by the query's idf mass: the score of a piece
 * that contains every query term once at average length. The result is an idf-weighted coverage,
 * roughly 0..1, that other scorers can be mixed with.
 */
export function lexicalCoverage(intent: Intent, pieces: EvidencePiece[]): number[] {
  if (!pieces.length) return [];
  const query = intentText(intent);
  const index = new Bm25Index(pieces.map(pieceTokens));
  const mass = [...new Set(terms(query))].reduce((sum, t) => sum + index.idf(t), 0);
  if (mass === 0) return pieces.map(() => 0);
  return index.scores(query).map((s) => s / mass);
}

/**
 * Added per fraction of the question's entities named in the piece. BM25 sees "Tom Hanks" as two
 * independent terms and can prefer a passage that repeats "Hanks" about someone else; a piece that
 * names the entity as a phrase is about it. Half of full coverage: a strong nudge, not an override.
 */
export const ENTITY_MENTION_BOOST = 0.5;

/** Fraction of the intent's entity mentions (or their linked labels) that the piece names as a phrase. */
export function mentionedFraction(intent: Intent, pieces: EvidencePiece[]): number[] {
  const mentions = mentionForms(intent);
  if (!mentions.length) return pieces.map(() => 0);
  return pieces.map((piece) => {
    const prepared = preparePiece(piece);
    const found = mentions.filter((m) => m.forms.some((f) => containsPhrase(prepared, f)) || m.refs.some((r) => prepared.refs.has(r)));
    return found.length / mentions.length;
  });
}

export const bm25Scorer: EvidenceScorer = {
  name: "bm25",
  async score(intent, pieces) {
    return lexicalCoverage(intent, pieces);
  },
};

export const bm25EntityScorer: EvidenceScorer = {
  name: "bm25-entity",
  async score(intent, pieces) {
    const coverage = lexicalCoverage(intent, pieces);
    const mentioned = mentionedFraction(intent, pieces);
    return coverage.map((c, i) => c + ENTITY_MENTION_BOOST * mentioned[i]);
  },
};
