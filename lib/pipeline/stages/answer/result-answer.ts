import { formatScalar } from "../../../backends/evidence";
import type { Scalar } from "../../../backends/types";
import type { Answer, AnswerShape, QueryResult, ScoredEvidence } from "../../contracts";
import { joinList, quoteList, refusal } from "./refusal";
import { columnValueType, type ValueType } from "./value-types";
import { columnUnits, totalRowOf } from "./figures";
import { emptyResultOf } from "./empty-result";

/**
 * An answer drawn from a committed answer query's result (select-evidence/commit.ts): the result IS the
 * answer, in the shape it has. One cell is a scalar; one column a list (every value, not a refusal);
 * several columns a table; a grouped result with numbers also a chart. The query and its rows are the
 * evidence. The answer refrains only when the query could not represent the question, could not use a
 * value the question names, or found no rows, and then says which.
 */

/** Values written out in the answer text; the whole list is in the shape ("show all"). */
export const TEXT_VALUES = 50;
/** Rows of a table written out in the answer text. */
export const TEXT_ROWS = 12;
/** A faithful answer query that used every named value. */
const FAITHFUL_CONFIDENCE = 0.9;
/**
 * "None" from a faithful query: as sure as its filters are right. An empty result is also what a wrong
 * filter gives, so it is stated less firmly than rows found.
 */
const EMPTY_RESULT_CONFIDENCE = 0.7;
/**
 * "None" that rests on a name the source's value index does not hold, sought only by its text in the column
 * the question's words placed it in: the name may be spelled otherwise or stored in another column, so the
 * "none" is a guess about where to look and is said as not certain.
 */
const LOOKED_UP_EMPTY_CONFIDENCE = 0.45;
/** Each named value the query had to leave out costs this much: the answer may be about something else. */
const MISSED_VALUE_COST = 0.3;

function isNumeric(v: Scalar): boolean {
  return typeof v === "number" || (typeof v === "string" && v.trim() !== "" && Number.isFinite(Number(v)));
}

function isTemporal(values: Scalar[]): boolean {
  const present = values.filter((v) => v !== null);
  return (
    present.length > 0 &&
    present.every(
      (v) => /^\d{4}(?:-\d{2}(?:-\d{2})?)?/.test(String(v)) && (typeof v === "string" || (typeof v === "number" && v >= 1000 && v <= 2999)),
    )
  );
}

/**
 * A grouped numeric answer reads as a chart: one category column (the group key) and numeric measures,
 * two rows at least. A key that is a year or a date is a time series (line), otherwise bars.
 */
export function chartOf(result: Pick<QueryResult, "rows" | "columns" | "grouped">): AnswerShape["chart"] {
  if (result.rows.length < 2 || result.columns.length < 2) return null;
  const column = (i: number) => result.rows.map((r) => r[i]);
  const keys = result.grouped?.keys ?? [];
  const measures = (result.grouped?.measures ?? []).filter((i) => column(i).every((v) => v === null || isNumeric(v)));
  if (keys.length !== 1 || measures.length === 0) return null;
  const x = keys[0];
  const keyValues = column(x);
  if (new Set(keyValues.map((v) => formatScalar(v))).size !== keyValues.length) return null;
  return { kind: isTemporal(keyValues) ? "line" : "bar", x, y: measures };
}

function distinctTexts(values: Scalar[]): string[] {
  return [...new Set(values.map((v) => formatScalar(v)).filter((t) => t !== ""))];
}

/** "Nordics: 24.1 / 26.3": the first cell names the row, the rest follow it. */
function rowText(row: Scalar[]): string {
  const cells = row.map((v) => formatScalar(v) || "–");
  return cells.length === 1 ? cells[0] : `${cells[0]}: ${cells.slice(1).join(" / ")}`;
}

export function answerText(shape: AnswerShape): string {
  if (shape.kind === "scalar") return formatScalar(shape.rows[0][0]) || "(empty)";
  if (shape.kind === "list") {
    const values = distinctTexts(shape.rows.map((r) => r[0]));
    const shown = values.slice(0, TEXT_VALUES);
    const more = values.length - shown.length + (shape.truncated ? 1 : 0);
    return more > 0 ? `${shown.join(", ")} and ${shape.truncated ? "more" : `${more} more`}` : joinList(shown);
  }
  if (shape.rows.length === 1)
    return shape.rows[0]
      .map((v) => formatScalar(v))
      .filter(Boolean)
      .join(", ");
  const shown = shape.rows.slice(0, TEXT_ROWS).map(rowText);
  const rest = shape.rows.length - shown.length;
  return `${shown.join("; ")}${rest > 0 || shape.truncated ? `; and ${shape.truncated ? "more" : `${rest} more`} rows` : ""}`;
}

/**
 * The answer's shape from the committed result. `context` is what the source says about the tables the
 * query read (their descriptions, the knowledge base's): a currency it names is the unit of money columns.
 */
export function shapeOf(result: QueryResult, context: string[] = []): AnswerShape {
  const kind: AnswerShape["kind"] = result.columns.length > 1 ? "table" : result.rows.length === 1 ? "scalar" : "list";
  const units = columnUnits(result.columns, result.rows, context);
  return {
    kind,
    columns: result.columns,
    rows: result.rows,
    total: result.rows.length,
    truncated: result.truncated,
    cap: result.truncated ? result.cap : null,
    chart: kind === "table" ? chartOf(result) : null,
    source: {
      kbName: result.kbName,
      language: result.language,
      query: result.query,
      ...(result.params ? { params: result.params } : {}),
      guide: result.guide ?? null,
    },
    units,
    totalRow: kind === "table" ? totalRowOf(result, result.grouped, units) : null,
  };
}

/** Other evidence of the committed source that states a one-value answer (a graph path ending in it) is cited after the rows. */
const SUPPORTING_CITATIONS = 2;

export function withSupportingEvidence(answer: Answer, result: QueryResult, evidence: ScoredEvidence[]): Answer {
  if (answer.refrained || answer.shape?.kind !== "scalar" || answer.text.length < 2) return answer;
  const value = answer.text.toLowerCase();
  const extra = evidence
    .filter(
      (e) => e.piece.provenance.kb === result.kbId && e.piece.provenance.query !== result.query && !answer.citations.includes(e.piece.id),
    )
    .filter((e) => e.piece.text.toLowerCase().includes(value))
    .slice(0, SUPPORTING_CITATIONS)
    .map((e) => e.piece.id);
  return extra.length > 0 ? { ...answer, citations: [...answer.citations, ...extra] } : answer;
}

/**
 * What kind of value the answer is (a count, a date, a name), read from the column that holds it and
 * its value, as the critic's answer-type check reads any candidate: a grouped table by its first
 * measure, anything else by its first column. Not the shape (scalar / list / table), which says how
 * many values there are, not what they are.
 */
export function resultValueType(result: Pick<QueryResult, "columns" | "rows" | "grouped">): ValueType | null {
  const at = result.grouped?.measures[0] ?? 0;
  const column = result.columns[at];
  const cells = result.rows.map((r) => r[at]);
  return column === undefined ? null : (columnValueType(column, cells)?.type ?? null);
}

export function answerFromResult(result: QueryResult, threshold: number, context: string[] = []): Answer {
  const fit = result.fit;
  if (fit && fit.unresolved.length > 0) {
    return refusal(`${fit.unresolved.join(" ")} (in ${result.kbName})`, 0, []);
  }
  if (result.rows.length === 0) {
    // A filtered query that found nothing answers "none", with its conditions (issue 32).
    // Not when a name was only sought in a guessed column: finding nothing there says nothing about the question.
    const saysNone = (fit?.valuesMissed.length ?? 0) === 0 && (fit?.valuesGuessed?.length ?? 0) === 0;
    const none = saysNone ? emptyResultOf(result.language, result.query, fit) : null;
    if (none) {
      const lookedUp = (fit?.valuesLookedUp?.length ?? 0) > 0;
      const confidence = lookedUp ? LOOKED_UP_EMPTY_CONFIDENCE : EMPTY_RESULT_CONFIDENCE;
      return {
        text: none.sentence,
        refrained: false,
        reason: null,
        confidence,
        ...(lookedUp ? { certainty: "uncertain" as const } : {}),
        citations: [],
        candidates: [{ value: none.sentence, score: confidence, support: [], type: "text" }],
        emptyResult: { kbName: result.kbName, conditions: none.conditions },
      };
    }
    return refusal(
      `The query on ${result.kbName} found no rows that match the question; check the names and conditions in it, or ask about another source.`,
      0,
      [],
    );
  }
  const missed = fit?.valuesMissed ?? [];
  const confidence = Math.max(0, Math.round((FAITHFUL_CONFIDENCE - MISSED_VALUE_COST * missed.length) * 1000) / 1000);
  const shape = shapeOf(result, context);
  const text = answerText(shape);
  const candidates: Answer["candidates"] = [
    { value: text, score: confidence, support: result.pieceIds.slice(0, 5), type: resultValueType(result) },
  ];
  if (confidence < threshold) {
    const it = missed.length === 1 ? "it" : "them";
    return refusal(
      `${quoteList(missed)} could not be found in ${result.kbName}, so the query could not be restricted to ${it}; name ${it} as the source spells ${it}.`,
      confidence,
      candidates,
    );
  }
  return {
    text,
    refrained: false,
    reason: null,
    confidence,
    citations: [...new Set(result.pieceIds)].slice(0, 5),
    candidates,
    shape,
  };
}
