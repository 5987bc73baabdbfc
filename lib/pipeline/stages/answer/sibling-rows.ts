import type { EvidencePiece, RowData } from "../../../backends/types";
import { isRowPiece, rowAnchored } from "./extract-rows";
import type { QuestionFocus } from "./question-focus";

/**
 * Rows of a table that names the question's entity in some rows and not in others ("the return window
 * for tents" over a table with one row per category): the rows about other entities are the table's
 * background, not rival answers, and keep this share of their weight.
 */
export const SIBLING_ROW_FACTOR = 0.3;

/** A factor per evidence index: SIBLING_ROW_FACTOR for the unanchored rows of a table with anchored rows, else 1. */
export function siblingRowFactors(evidence: EvidencePiece[], focus: QuestionFocus): number[] {
  const factors = evidence.map(() => 1);
  if (focus.entities.length === 0) return factors;
  const groups = new Map<string, { index: number; anchored: boolean }[]>();
  evidence.forEach((piece, index) => {
    if (!isRowPiece(piece)) return;
    const data: RowData = piece.data;
    const key = `${piece.provenance.kb}\u0000${data.table}\u0000${data.columns.join("\u0001")}`;
    groups.set(key, [...(groups.get(key) ?? []), { index, anchored: rowAnchored(piece, focus) }]);
  });
  for (const group of groups.values()) {
    if (!group.some((g) => g.anchored)) continue;
    for (const g of group) if (!g.anchored) factors[g.index] = SIBLING_ROW_FACTOR;
  }
  return factors;
}
