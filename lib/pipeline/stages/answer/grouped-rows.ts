import { formatScalar } from "../../../backends/evidence";
import type { EvidencePiece, RowData, Scalar } from "../../../backends/types";
import { terms } from "../../text";
import { type Answer, type AnswerShape, type Intent, type ScoredEvidence, periodsOf } from "../../contracts";
import { yearsOf } from "../../../tables/periods";
import { constructsOf } from "../understand/constructs";
import { isRowPiece } from "./extract-rows";
import { answerText, chartOf } from "./result-answer";
import { columnUnits, totalRowOf } from "./figures";

/**
 * A breakdown asked of a table in a document ("What was total revenue in 2024 by region?"): the rows of
 * the best-ranked table that has a column for what the answer is broken down by (Region) and a numeric
 * column for what is measured (Revenue 2024), one row per group, without the table's own total row. The
 * answer is that table (and its chart), not a single cell of it.
 */

/** Rows that sum up the others rather than being a group of their own. */
const TOTAL_ROW = /^(?:total|totals|all|overall|sum|grand\s+total|sub-?total|group|company)\b/i;
const YEAR = /\b(1[89]\d{2}|2\d{3})\b/g;
const BREAKDOWN_CONFIDENCE = 0.8;

type RowPiece = EvidencePiece & { data: RowData };

function isNumeric(v: Scalar): boolean {
  return typeof v === "number" || (typeof v === "string" && /^[-+]?[$€£]?\s*\d[\d,]*(?:\.\d+)?\s*%?$/.test(v.trim()));
}

function overlap(a: string[], b: Set<string>): number {
  return a.filter((t) => b.has(t)).length;
}

/** How well a column header names what is measured: the question's words, and the year it asks about (not another year). */
function measureScore(header: string, asked: Set<string>, years: Set<string>): number {
  const headerYears = [...header.matchAll(YEAR)].map((m) => m[1]);
  const yearFit = headerYears.length === 0 ? 0 : headerYears.some((y) => years.has(y)) ? 2 : years.size > 0 ? -3 : 0;
  return overlap(terms(header.replace(YEAR, " ")), asked) + yearFit;
}

export function groupedRowsAnswer(intent: Intent, evidence: ScoredEvidence[]): Answer | null {
  const grouping = constructsOf(intent).grouping;
  if (!grouping) return null;
  const by = new Set(terms(grouping.text));
  const years = new Set(periodsOf(intent).flatMap(yearsOf).map(String));
  const asked = new Set(terms(intent.completed.replace(YEAR, " ")).filter((t) => !by.has(t)));

  const tables = new Map<string, RowPiece[]>();
  for (const e of evidence) {
    if (!isRowPiece(e.piece) || e.piece.provenance.language !== "search") continue;
    const d = e.piece.data;
    const key = [e.piece.provenance.kb, d.table, d.section ?? "", d.columns.join("\u0001")].join("\u0000");
    tables.set(key, [...(tables.get(key) ?? []), e.piece]);
  }
  for (const rows of tables.values()) {
    const columns = rows[0].data.columns;
    const keyColumn = columns.findIndex((c) => overlap(terms(c), by) > 0);
    if (keyColumn < 0) continue;
    const numericColumns = columns
      .map((_, i) => i)
      .filter((i) => i !== keyColumn && rows.filter((r) => isNumeric(r.data.values[i])).length >= Math.ceil(rows.length / 2));
    const scored = numericColumns
      .map((i) => ({ i, score: measureScore(columns[i], asked, years) }))
      .filter((x) => x.score > 0)
      .sort((a, b) => b.score - a.score);
    if (scored.length === 0) continue;
    const measure = scored[0].i;
    const groups = rows.filter(
      (r) => !TOTAL_ROW.test(formatScalar(r.data.values[keyColumn])) && formatScalar(r.data.values[keyColumn]) !== "",
    );
    const seen = new Set<string>();
    const kept = groups.filter((r) => {
      const k = formatScalar(r.data.values[keyColumn]).toLowerCase();
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    });
    if (kept.length < 2) continue;
    kept.sort((a, b) => (a.data.rowIndex ?? 0) - (b.data.rowIndex ?? 0));
    const result = {
      columns: [columns[keyColumn], columns[measure]],
      rows: kept.map((r) => [r.data.values[keyColumn], r.data.values[measure]]),
      grouped: { keys: [0], measures: [1] },
    };
    const first = kept[0];
    // The table's own total row, where it has one, is the total the answer shows (as the report states it).
    const stated = groups.length === rows.length ? null : rows.find((r) => TOTAL_ROW.test(formatScalar(r.data.values[keyColumn])));
    const units = columnUnits(result.columns, result.rows);
    const shape: AnswerShape = {
      kind: "table",
      columns: result.columns,
      rows: result.rows,
      total: result.rows.length,
      truncated: false,
      cap: null,
      chart: chartOf(result),
      source: {
        kbName: first.provenance.kbName,
        language: "search",
        query: `${first.data.table}${first.data.section ? ` / ${first.data.section}` : ""}`,
      },
      units,
      totalRow: totalRowOf(
        { ...result, truncated: false },
        result.grouped,
        units,
        stated ? [stated.data.values[keyColumn], stated.data.values[measure]] : null,
      ),
    };
    return {
      text: answerText(shape),
      refrained: false,
      reason: null,
      confidence: BREAKDOWN_CONFIDENCE,
      citations: kept.map((r) => r.id).slice(0, 10),
      candidates: [{ value: answerText(shape), score: BREAKDOWN_CONFIDENCE, support: kept.map((r) => r.id).slice(0, 5), type: "table" }],
      shape,
    };
  }
  return null;
}
