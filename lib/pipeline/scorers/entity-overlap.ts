import type { EvidencePiece } from "../../backends/types";
import { terms } from "../text";
import type { EvidenceScorer, Intent } from "../contracts";
import { mentionForms } from "./mentions";
import { type PreparedPiece, containsPhrase, preparePiece } from "./piece-text";

/**
 * A partial name match ("Hanks" for "Tom Hanks", "Summit Tent" for "Summit 2 Tent") counts half:
 * it often is the entity, but as often a namesake.
 */
const PARTIAL_MATCH_FACTOR = 0.5;

function formOverlap(prepared: PreparedPiece, form: string): number {
  if (containsPhrase(prepared, form)) return 1;
  const formTerms = [...new Set(terms(form))];
  if (!formTerms.length) return 0;
  return (PARTIAL_MATCH_FACTOR * formTerms.filter((t) => prepared.terms.has(t)).length) / formTerms.length;
}

/**
 * How many of the question's entities the piece is about, 0..1: a mention counts fully when the piece
 * names it or one of its linked labels as a phrase, or holds the very KB reference it was linked to
 * (the triple's IRI, the path's node); partially when only some of its words occur.
 */
export function entityOverlap(intent: Intent, pieces: EvidencePiece[]): number[] {
  return entityOverlapParts(intent, pieces).total;
}

/**
 * entityOverlap and, within it, the share a search engine matched already (`byWord`): mentions the
 * piece matches only by words of the question (a one-word name, some words of a longer one), not by a
 * phrase of several words, another name or the KB reference.
 */
export function entityOverlapParts(intent: Intent, pieces: EvidencePiece[]): { total: number[]; byWord: number[] } {
  const mentions = mentionForms(intent);
  if (!mentions.length) return { total: pieces.map(() => 0), byWord: pieces.map(() => 0) };
  const total: number[] = [];
  const byWord: number[] = [];
  for (const piece of pieces) {
    const prepared = preparePiece(piece);
    let sum = 0;
    let words = 0;
    for (const m of mentions) {
      if (m.refs.some((r) => prepared.refs.has(r)) || m.forms.some((f) => !m.wordForms.has(f) && containsPhrase(prepared, f))) {
        sum += 1;
        continue;
      }
      const overlap = Math.max(...m.forms.map((f) => formOverlap(prepared, f)));
      sum += overlap;
      words += overlap;
    }
    total.push(sum / mentions.length);
    byWord.push(words / mentions.length);
  }
  return { total, byWord };
}

export const entityOverlapScorer: EvidenceScorer = {
  name: "entity-overlap",
  async score(intent, pieces) {
    return entityOverlap(intent, pieces);
  },
};
