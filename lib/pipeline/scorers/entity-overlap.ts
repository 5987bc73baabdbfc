import type { EvidencePiece } from "../../backends/types";
import { terms } from "../text";
import type { EvidenceScorer, Intent } from "../types";
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
  const mentions = mentionForms(intent);
  if (!mentions.length) return pieces.map(() => 0);
  return pieces.map((piece) => {
    const prepared = preparePiece(piece);
    const total = mentions.reduce((sum, m) => {
      if (m.refs.some((r) => prepared.refs.has(r))) return sum + 1;
      return sum + Math.max(...m.forms.map((f) => formOverlap(prepared, f)));
    }, 0);
    return total / mentions.length;
  });
}

export const entityOverlapScorer: EvidenceScorer = {
  name: "entity-overlap",
  async score(intent, pieces) {
    return entityOverlap(intent, pieces);
  },
};
