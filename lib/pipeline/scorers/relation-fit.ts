import type { EvidencePiece, PathData, RowData, TripleData } from "../../backends/types";
import { lemmaTerms } from "../lemma";
import type { EvidenceScorer, Intent } from "../contracts";
import { identifierWords } from "./piece-text";

/**
 * Relation fit: does the piece state the relation the question asks about? A triple by its predicate
 * ("made by" for "Who makes…"), a graph path by its relationship types, a row by its column headers
 * ("Return window (days)" for "the return window for tents"). Lemmas, so "makes" meets "made by".
 * Passages carry no named relation: 0, like every piece when the question names none, so this part
 * only separates structured facts that all mention the question's entity ("Fjord Down Jacket in
 * category Jackets" vs "… made by Fjelltex Textiles").
 */
function relationNames(piece: EvidencePiece): string[] {
  if (piece.kind === "triple") return [(piece.data as TripleData).predicate.label];
  if (piece.kind === "path") return (piece.data as PathData).edges.map((e) => identifierWords(e.type));
  if (piece.kind === "row") return (piece.data as RowData).columns.map((c) => identifierWords(c));
  return [];
}

/** Share of the relation phrase's terms that one of the piece's relation names holds, 0..1. */
export function relationFit(intent: Intent, pieces: EvidencePiece[]): number[] {
  const phrase = new Set(lemmaTerms(intent.relation ?? ""));
  if (phrase.size === 0) return pieces.map(() => 0);
  return pieces.map((piece) => {
    let best = 0;
    for (const name of relationNames(piece)) {
      const own = lemmaTerms(name);
      if (own.length === 0) continue;
      const shared = own.filter((t) => phrase.has(t)).length;
      // Dice over the two sets: "made by" vs "makes" = 1; "in category" vs "makes" = 0.
      best = Math.max(best, (2 * shared) / (new Set(own).size + phrase.size));
    }
    return Math.min(1, best);
  });
}

export const relationFitScorer: EvidenceScorer = {
  name: "relation-fit",
  async score(intent, pieces) {
    return relationFit(intent, pieces);
  },
};
