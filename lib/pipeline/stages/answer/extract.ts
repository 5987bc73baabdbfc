import type { ScoredEvidence } from "../../contracts";
import { countedAnswer } from "./count-rows";
import { isPassagePiece, passageOccurrences } from "./extract-passages";
import { isPathPiece, pathOccurrences } from "./extract-paths";
import { documentTitleOf, documentTitles, isRowPiece, rowOccurrences } from "./extract-rows";
import { isTriplePiece, tripleOccurrences } from "./extract-triples";
import type { Occurrence } from "./occurrence";
import type { QuestionFocus } from "./question-focus";
import { siblingRowFactors } from "./sibling-rows";
import { superlativeFactors } from "./superlative";

export interface Extraction {
  occurrences: Occurrence[];
  /** Notes for the trace (a counted answer's explanation). */
  notes: string[];
}

/** Every candidate occurrence in the evidence, by the extractor of each piece's kind. */
export function extractOccurrences(evidence: ScoredEvidence[], focus: QuestionFocus): Extraction {
  const pieces = evidence.map((e) => e.piece);
  const extreme = superlativeFactors(pieces, focus);
  const siblings = siblingRowFactors(pieces, focus);
  const factors = pieces.map((_, i) => extreme[i] * siblings[i]);
  const titles = documentTitles(pieces);
  const occurrences: Occurrence[] = [];
  pieces.forEach((piece, i) => {
    if (isRowPiece(piece)) occurrences.push(...rowOccurrences(piece, i, focus, factors[i], documentTitleOf(piece, titles)));
    else if (isTriplePiece(piece)) occurrences.push(...tripleOccurrences(piece, i, focus));
    else if (isPathPiece(piece)) occurrences.push(...pathOccurrences(piece, i, focus));
    else if (isPassagePiece(piece)) occurrences.push(...passageOccurrences(piece, i, focus));
  });
  const counted = countedAnswer(pieces, focus);
  const notes: string[] = [];
  if (counted) {
    occurrences.push(...counted.occurrences);
    notes.push(counted.explanation);
  }
  return { occurrences, notes };
}
