import type { EvidencePiece, RowData } from "../../../backends/types";
import { isRowPiece } from "./extract-rows";
import { type QuestionFocus, termSet } from "./question-focus";
import { isIdColumn } from "./value-types";

/**
 * Rows that are not the extreme of a superlative question ("most expensive") keep this share of their
 * weight: they are the ranking's background, not rival answers (at 0.2 a whole listing of other
 * products does not drown the extreme one's confidence).
 */
export const NON_EXTREME_FACTOR = 0.2;

type RowPiece = EvidencePiece & { data: RowData };

/** The numeric column a superlative ranks by: the one named by its attribute, else the only numeric non-id column. */
function rankingColumn(rows: RowPiece[], focus: QuestionFocus): number | null {
  const columns = rows[0].data.columns;
  const numeric = columns
    .map((c, i) => ({ c, i }))
    .filter(({ c, i }) => !isIdColumn(c) && rows.every((r) => r.data.values[i] === null || typeof r.data.values[i] === "number"));
  const attribute = termSet(focus.intent.superlative?.attribute ?? "", focus.language);
  const named = numeric.find(({ c }) => [...termSet(c, focus.language)].some((t) => attribute.has(t) || focus.focusTerms.has(t)));
  if (named) return named.i;
  return numeric.length === 1 ? numeric[0].i : null;
}

/**
 * For superlative questions ("the most expensive product", "the three largest markets"): among the
 * rows of one table (same KB, same columns), the extreme `limit` rows by the ranked column keep full weight and the rest
 * are scaled down. When no column can be identified, the query's own order (ORDER BY ... LIMIT) is
 * trusted: the first rows are the extreme ones. Returns a factor per evidence index (1 when not applicable).
 */
export function superlativeFactors(evidence: EvidencePiece[], focus: QuestionFocus): number[] {
  const factors = evidence.map(() => 1);
  const superlative = focus.intent.superlative;
  if (!superlative) return factors;
  const groups = new Map<string, { piece: RowPiece; index: number }[]>();
  evidence.forEach((piece, index) => {
    if (!isRowPiece(piece)) return;
    // Rows of one table with the same columns are comparable whichever query returned them: the same row
    // returned by "LIMIT 1" and "LIMIT 10" is one piece (ids follow content), kept under one query only.
    const key = `${piece.provenance.kb}\u0000${piece.data.table}\u0000${piece.data.columns.join("\u0001")}`;
    groups.set(key, [...(groups.get(key) ?? []), { piece, index }]);
  });
  for (const group of groups.values()) {
    if (group.length < 2) continue;
    const column = rankingColumn(
      group.map((g) => g.piece),
      focus,
    );
    const ordered =
      column === null
        ? [...group].sort((a, b) => (a.piece.data.rowIndex ?? a.index) - (b.piece.data.rowIndex ?? b.index))
        : [...group]
            .filter((g) => typeof g.piece.data.values[column] === "number")
            .sort((a, b) => {
              const d = (a.piece.data.values[column] as number) - (b.piece.data.values[column] as number);
              return superlative.direction === "max" ? -d : d;
            });
    const kept = ordered.slice(0, superlative.limit);
    // Ties with the last kept row are extreme too ("the most expensive" when two products share the price).
    const last = kept[kept.length - 1];
    const tied = column === null || !last ? [] : ordered.filter((g) => g.piece.data.values[column] === last.piece.data.values[column]);
    const extreme = new Set([...kept, ...tied].map((g) => g.index));
    for (const g of group) if (!extreme.has(g.index)) factors[g.index] = NON_EXTREME_FACTOR;
  }
  return factors;
}
