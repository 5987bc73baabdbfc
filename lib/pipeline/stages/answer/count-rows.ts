import { formatScalar } from "../../../backends/evidence";
import type { EvidencePiece, RowData } from "../../../backends/types";
import type { Occurrence } from "./occurrence";
import { isRowPiece, rowAnchored } from "./extract-rows";
import { type QuestionFocus, isQuestionEntityValue } from "./question-focus";
import { isAggregateColumn, isIdColumn } from "./value-types";

/** A counted answer is inferred, not read: it weighs less than a COUNT cell would. */
const COUNTED_WEIGHT = 0.8;

type RowPiece = EvidencePiece & { data: RowData };

export interface CountedAnswer {
  occurrences: Occurrence[];
  /** In words, for the trace: what was counted where, and why. */
  explanation: string;
}

/** What a row is about: its primary key, else its first name-like cell that is not a question entity, else all of it. */
function rowIdentity(row: RowPiece, focus: QuestionFocus): string {
  if (row.data.key && Object.keys(row.data.key).length > 0) return JSON.stringify(row.data.key);
  const label = row.data.values
    .map((v, i) => ({ text: formatScalar(v), column: row.data.columns[i] }))
    .find(
      ({ text, column }) => text !== "" && !isIdColumn(column) && !/^[-+\d.,\s%$€£]*$/.test(text) && !isQuestionEntityValue(text, focus),
    );
  return label ? label.text.toLowerCase() : JSON.stringify(row.data.values);
}

/**
 * "How many …" answered by rows that list the things rather than count them (no COUNT in the
 * query): the number of distinct entities among the rows of one query that match the question (rows
 * naming a question entity or returned by a query filtered on one). Only when no evidence row carries
 * an aggregate already, and only over what was retrieved (a truncated result undercounts; the critic's
 * query check shows truncation).
 */
export function countedAnswer(evidence: EvidencePiece[], focus: QuestionFocus): CountedAnswer | null {
  if (!focus.wantsCount) return null;
  const rows = evidence
    .map((piece, index) => ({ piece, index }))
    .filter((r): r is { piece: RowPiece; index: number } => isRowPiece(r.piece));
  if (rows.some((r) => r.piece.data.columns.some((c) => isAggregateColumn(c)))) return null;
  const groups = new Map<string, { piece: RowPiece; index: number }[]>();
  for (const r of rows) {
    if (!rowAnchored(r.piece, focus)) continue;
    const key = `${r.piece.provenance.kb}\u0000${r.piece.provenance.query}`;
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  // The group whose best row ranks highest: the query that best matches the question.
  const best = [...groups.values()].filter((g) => g.length >= 2).sort((a, b) => a[0].index - b[0].index)[0];
  if (!best) return null;
  const n = new Set(best.map((r) => rowIdentity(r.piece, focus))).size;
  const first = best[0].piece;
  const slot = [first.provenance.kb, first.provenance.query, "count"].join("|");
  return {
    occurrences: best.map((r) => ({
      display: String(n),
      key: `n:${n}`,
      type: "count" as const,
      pieceIndex: r.index,
      weight: COUNTED_WEIGHT,
      slot,
    })),
    explanation: `Counted ${n} distinct ${first.data.table === "Query result" ? "entries" : `'${first.data.table}' rows`} among ${best.length} matching rows from ${first.provenance.kbName} (no COUNT in the evidence).`,
  };
}
