import type { EvidencePiece } from "../../backends/types";
import { Bm25Index } from "../bm25";
import { terms } from "../text";
import { type Intent, intentText } from "../contracts";
import type { CompositeScorer } from "./types";
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
  return mentionMatches(intent, pieces).found;
}

/**
 * Per piece, the fraction of the intent's entity mentions it names (`found`, as mentionedFraction) and
 * the fraction it names only by a single word of the question (`byWord`): that much a search engine
 * matched already (MentionForms.wordForms).
 */
export function mentionMatches(intent: Intent, pieces: EvidencePiece[]): { found: number[]; byWord: number[] } {
  const mentions = mentionForms(intent);
  if (!mentions.length) return { found: pieces.map(() => 0), byWord: pieces.map(() => 0) };
  const found: number[] = [];
  const byWord: number[] = [];
  for (const piece of pieces) {
    const prepared = preparePiece(piece);
    let named = 0;
    let wordOnly = 0;
    for (const m of mentions) {
      const beyondWords =
        m.refs.some((r) => prepared.refs.has(r)) || m.forms.some((f) => !m.wordForms.has(f) && containsPhrase(prepared, f));
      const byOwnWord = !beyondWords && [...m.wordForms].some((f) => containsPhrase(prepared, f));
      if (beyondWords || byOwnWord) named++;
      if (byOwnWord) wordOnly++;
    }
    found.push(named / mentions.length);
    byWord.push(wordOnly / mentions.length);
  }
  return { found, byWord };
}

/** BM25 over the retrieved pieces: a search engine already ranked its results by their words, so all of it repeats the engine. */
export const bm25Scorer: CompositeScorer = {
  name: "bm25",
  async scoreParts(intent, pieces) {
    const coverage = lexicalCoverage(intent, pieces);
    return { total: coverage, parts: {}, repeated: coverage };
  },
  async score(intent, pieces) {
    return lexicalCoverage(intent, pieces);
  },
};

/** BM25 plus the entity-mention boost; the boost for a name of several words, another name or a KB reference is what no search ranked by. */
export const bm25EntityScorer: CompositeScorer = {
  name: "bm25-entity",
  async scoreParts(intent, pieces) {
    const coverage = lexicalCoverage(intent, pieces);
    const { found, byWord } = mentionMatches(intent, pieces);
    return {
      total: coverage.map((c, i) => c + ENTITY_MENTION_BOOST * found[i]),
      parts: {},
      repeated: coverage.map((c, i) => c + ENTITY_MENTION_BOOST * byWord[i]),
    };
  },
  async score(intent, pieces) {
    return (await this.scoreParts(intent, pieces)).total;
  },
};
