import { formatScalar } from "../../../backends/evidence";
import { CURRENCY_CODE_PATTERN, currencyCodeOf } from "../../../data/currencies";
import { type Period, periodOrder, yearsOf } from "../../../tables/periods";
import type { ReportNumber } from "../../../tables/report-number";
import { type Scale, exceptedRow, scaleInHeader, scaleOfFigure, SCALE_FACTOR } from "../../../tables/scale";
import { unitFromColumn } from "./value-key";
import { terms } from "../../text";
import type { Derivation, DerivationOperand, ScoredEvidence } from "../../contracts";
import { compute } from "./arithmetic";
import {
  type LocatedCell,
  type QuestionTerms,
  type RowMatch,
  cellForPeriod,
  cellWithoutPeriod,
  labelMatch,
  matchRows,
  periodColumns,
  questionTerms,
} from "./cell-locate";
import { answerTextOf, expressionOf, type ResultScale } from "./derivation";
import { type TableQuestion, type Operation, coordinatedItems, periodEnds, periodsOldestFirst, readTableQuestion } from "./table-question";
import { type TableCell, type TableRow, type TableView, figureCells, labelWords, tablesInEvidence } from "./table-cells";

/**
 * Answers read from the tables in the evidence (TagOp's classical counterpart): a located cell with
 * its scale, several cells as a list, the period or row with the extreme value, a count, or an
 * operation over located cells with its derivation. Every answer says which rows it used and how
 * sure the location is; an operation that cannot be computed says what is missing.
 */

export interface TableAnswer {
  kind: "cell" | "list" | "comparison" | "computed" | "count";
  text: string;
  /** The answer's values when it is a list (several periods, several years). */
  values: string[];
  derivation: Derivation | null;
  /** Evidence ids of the rows used, the main one first. */
  citations: string[];
  /** 0..1: how surely the rows and columns are the ones asked for. */
  confidence: number;
  /** For the trace: what was located where. */
  note: string;
}

export interface TableProblem {
  /** What could not be done, in the user's words: the missing operand, a division by zero. */
  problem: string;
  citations: string[];
  confidence: number;
}

export type TableOutcome = { answer: TableAnswer } | { problem: TableProblem } | null;

interface Operand {
  match: RowMatch;
  located: LocatedCell;
  number: ReportNumber;
}

function numberOf(cell: TableCell): ReportNumber | null {
  return cell.reading.kind === "number" ? cell.reading.number : null;
}

function columnName(table: TableView, column: number): string {
  return table.columns[column]?.name ?? `column ${column + 1}`;
}

/** Whether figures in this row and column are percentages: the cell says "%", or the column or row label says percent. */
function isPercent(table: TableView, row: TableRow, column: number, n: ReportNumber): boolean {
  return n.percent || !!table.columns[column]?.percent || /\(%\)|\bin %|%$|\bpercent(age)?\b|\(percent\)/i.test(row.label);
}

/** The scale a figure of this row is in: percent, the table's stated scale unless the row is excepted, or none. */
function scaleOf(table: TableView, row: TableRow, column: number, n: ReportNumber): ResultScale {
  if (isPercent(table, row, column, n)) return "percent";
  if (table.scale && !exceptedRow(table.scale, row.label, false)) return table.scale.scale;
  return "";
}

/** The currency the operands share, from their own cells or the row's first figure ("$" is often written on the first figure only). */
function sharedCurrency(cells: CellRef[]): string | null {
  const currencies = cells.map(
    (o) =>
      o.number.currency ??
      figureCells(o.row)
        .map(numberOf)
        .find((n) => n?.currency)?.currency ??
      null,
  );
  const first = currencies[0];
  return first && currencies.every((c) => c === first) ? first : null;
}

/** The words that signalled the operation are the row's own words ("Total revenue", "Average price"): a lookup, not an operation. */
function cueIsLabel(q: TableQuestion, match: RowMatch | undefined): boolean {
  if (!q.cue || !match) return false;
  const label = ` ${labelWords(match.row.label)} `;
  return q.cue.words
    .toLowerCase()
    .split(/[^a-z%]+/)
    .filter((w) => w.length > 2 && !["how", "much", "what", "the", "between", "rate", "of"].includes(w))
    .some((w) => label.includes(` ${w}`));
}

/**
 * "2019 average X" / "average X in 2019" in reports: the average of the year's opening and closing
 * balance, i.e. that year's and the previous year's figures, when the table has both.
 */
function averagePeriods(q: TableQuestion, table: TableView): Period[] {
  const asked = periodsOldestFirst(q);
  if (asked.length === 1 && asked[0].to === null && q.cue?.operation === "average") {
    const year = asked[0].year;
    const previous = periodColumns(table).find((c) => c.period.year === year - 1);
    if (previous) return [previous.period, asked[0]];
  }
  return asked;
}

/** The periods an aggregate spans: every period column between the endpoints the question names ("from 2017 to 2019"). */
function spannedPeriods(q: TableQuestion, table: TableView): Period[] {
  const asked = periodsOldestFirst(q);
  const range = asked.find((p) => p.to !== null);
  const from = range ? range.year : asked[0]?.year;
  const to = range ? range.to! : asked[asked.length - 1]?.year;
  if (from === undefined || to === undefined) return asked;
  const years = new Set(asked.flatMap(yearsOf));
  for (let y = from; y <= to; y++) years.add(y);
  const columns = periodColumns(table).filter((c) => years.has(c.period.year));
  const seen = new Set<number>();
  return columns.filter((c) => !seen.has(c.period.year) && seen.add(c.period.year)).map((c) => c.period);
}

function locate(match: RowMatch, period: Period | null, q: TableQuestion, qt: QuestionTerms, language: string): Operand | null {
  const located = period
    ? cellForPeriod(match.table, match.row, period, q, qt, language)
    : cellWithoutPeriod(match.table, match.row, qt, language);
  if (!located) return null;
  const number = numberOf(located.cell);
  return number ? { match, located, number } : null;
}

function periodName(p: Period): string {
  return p.text;
}

function confidenceOf(operands: Operand[], rival: RowMatch | undefined, best: RowMatch): number {
  const label = Math.min(...operands.map((o) => o.match.labelScore));
  const column = Math.min(...operands.map((o) => o.located.score));
  const strength = Math.min(...operands.map((o) => o.match.row.strength));
  let c = 0.2 + 0.45 * label * column + 0.3 * strength;
  // Another table's row matching as well: the location is less sure.
  if (rival && rival.table !== best.table && rival.score >= 0.9 * best.score) c *= 0.75;
  return Math.max(0, Math.min(0.95, c));
}

/** A figure located in a table: the cell of a row under a column. */
export interface CellRef {
  table: TableView;
  row: TableRow;
  column: number;
  cell: TableCell;
  number: ReportNumber;
}

export type Computed =
  { ok: true; derivation: Derivation; text: string; citations: string[] } | { ok: false; problem: string; citations: string[] };

/**
 * Applies an operator to located figures and writes its derivation: the result's scale (a change
 * ratio is a percentage, figures keep the table's scale, percentages stay percentages), a currency the
 * operands share, the expression, and the answer text. Used by the classical reading and to check an
 * LLM's proposed operation, which is always recomputed here.
 */
export function computeOverCells(
  operation: Operation,
  cells: CellRef[],
  options: { percentDivision: boolean; names: string[]; proposedBy: Derivation["proposedBy"] },
): Computed {
  const percentDivision = operation === "division" && options.percentDivision;
  const c = compute(
    operation,
    cells.map((o) => o.number.value),
    { percent: percentDivision, names: options.names },
  );
  const citations = [...new Set(cells.map((o) => o.row.evidenceId))];
  if (!c.ok) {
    const rows = [...new Set(cells.map((o) => `'${o.row.label}'`))];
    return { ok: false, problem: `The ${operationWord(operation)} of ${rows.join(" and ")} cannot be computed: ${c.problem}.`, citations };
  }
  const first = cells[0];
  const figureScale = scaleOf(first.table, first.row, first.column, first.number);
  const allPercent = cells.every((o) => scaleOf(o.table, o.row, o.column, o.number) === "percent");
  const scale: ResultScale =
    operation === "change-ratio" || percentDivision
      ? "percent"
      : operation === "division" || operation === "count"
        ? ""
        : allPercent
          ? "percent"
          : figureScale === "percent"
            ? ""
            : figureScale;
  const unit = scale === "percent" || operation === "division" || operation === "change-ratio" ? null : sharedCurrency(cells);
  const operands: DerivationOperand[] = cells.map((o) => ({
    value: o.number.value,
    text: formatScalar(o.cell.raw),
    evidenceId: o.row.evidenceId,
    row: o.row.label,
    column: columnName(o.table, o.column),
  }));
  const derivation: Derivation = {
    operation,
    operands,
    expression: expressionOf(operation, operands, c.value, scale, percentDivision),
    result: c.value,
    scale,
    unit,
    proposedBy: options.proposedBy,
  };
  return { ok: true, derivation, text: answerTextOf(c.value, scale, unit), citations };
}

function cellRef(o: Operand): CellRef {
  return { table: o.match.table, row: o.match.row, column: o.located.column, cell: o.located.cell, number: o.number };
}

function computed(operation: Operation, operands: Operand[], q: TableQuestion, rival: RowMatch | undefined, names: string[]): TableOutcome {
  const c = computeOverCells(operation, operands.map(cellRef), { percentDivision: q.percentResult, names, proposedBy: "classical" });
  if (!c.ok) return { problem: { problem: c.problem, citations: c.citations, confidence: 0 } };
  const best = operands.reduce((a, b) => (b.match.score > a.match.score ? b : a)).match;
  return {
    answer: {
      kind: "computed",
      text: c.text,
      values: [],
      derivation: c.derivation,
      citations: c.citations,
      confidence: confidenceOf(operands, rival, best),
      note: `Computed ${operation} over ${operands.length} figures of '${best.table.caption}': ${c.derivation.expression}.`,
    },
  };
}

function operationWord(operation: Operation): string {
  return {
    sum: "total",
    difference: "difference",
    average: "average",
    multiplication: "product",
    division: "ratio",
    "change-ratio": "percentage change",
    count: "count",
  }[operation];
}

const CURRENCY_CODE_IN_NOTE = new RegExp(`\\b(${CURRENCY_CODE_PATTERN})\\b`, "i");

/** A cell's answer text: the figure as the table writes it, a percentage column's figure with "%", and the table's scale. */
function cellText(o: Operand): string {
  const raw = formatScalar(o.located.cell.raw).replace(/\s+/g, " ");
  const scale = scaleOf(o.match.table, o.match.row, o.located.column, o.number);
  if (scale === "percent") return /%/.test(raw) ? raw : `${raw}%`;
  // A unit the column states ("Return window (days)", "Hotel cap per night (EUR)") goes with the figure; a scale note is the scale's job.
  const unit = unitFromColumn(columnName(o.match.table, o.located.column))?.replace(/^in\s+/i, "") ?? null;
  const withUnit = unit && !scaleInHeader(unit) && !/%/.test(unit) && !o.number.currency ? `${raw} ${unit}` : raw;
  if (!scale || scaleOfFigure(raw)) return withUnit;
  // "Revenue 2025 (EUR million)": the scale after the figure, and the currency the note names after it.
  const code = unit && !o.number.currency ? CURRENCY_CODE_IN_NOTE.exec(unit)?.[1] : undefined;
  return code && scaleInHeader(unit!) ? `${raw} ${scale} ${currencyCodeOf(code) ?? code.toUpperCase()}` : `${withUnit} ${scale}`;
}

/** A second row of the same table naming other words of the question: the other operand of "A minus B", "A as a share of B". */
function secondRow(matches: RowMatch[], first: RowMatch): RowMatch | undefined {
  const used = new Set(first.matched);
  return matches.find(
    (m) =>
      m.table === first.table &&
      m.row !== first.row &&
      m.labelScore >= 0.45 &&
      m.matched.some((t) => !used.has(t)) &&
      labelWords(m.row.label) !== labelWords(first.row.label),
  );
}

const TOTAL_LABEL = /^total\b|\btotal$/i;

/** The table's total row ("Total", "Total revenue"): the whole a share is taken of. */
function totalRow(matches: RowMatch[], table: TableView, except: TableRow): RowMatch | undefined {
  const named = matches.find((m) => m.table === table && m.row !== except && TOTAL_LABEL.test(m.row.label.trim()));
  if (named) return named;
  const row = table.rows.find((r) => r !== except && TOTAL_LABEL.test(r.label.trim()));
  return row ? { table, row, labelScore: 0.5, score: 0, matched: [], position: Number.MAX_SAFE_INTEGER } : undefined;
}

/** A threshold stated with a scale word ("$5 million") against a table in another scale ("in thousands"): compared in the table's unit. */
function thresholdInTableUnits(q: TableQuestion, table: TableView): number | null {
  if (!q.threshold) return null;
  const m = /(?:than|exceed(?:ed|s)?|above|below|under|over)\s+\$?\s?[\d,.]+\s*(thousands?|millions?|billions?|k|m|bn)\b/i.exec(q.text);
  const stated: Scale | null = m ? scaleOfFigure(`1 ${m[1]}`) : null;
  if (!stated || !table.scale || stated === table.scale.scale) return q.threshold.value;
  return (q.threshold.value * SCALE_FACTOR[stated]) / SCALE_FACTOR[table.scale.scale];
}

interface Context {
  q: TableQuestion;
  qt: QuestionTerms;
  language: string;
  matches: RowMatch[];
  rival: RowMatch | undefined;
}

function rowConfidence(m: RowMatch): number {
  return Math.min(0.9, 0.2 + 0.45 * m.labelScore + 0.3 * m.row.strength);
}

/** The figures of a row's period columns. */
function periodFigures(m: RowMatch): { column: number; period: Period; n: ReportNumber }[] {
  return periodColumns(m.table).flatMap((c) => {
    const cell = m.row.cells[c.column];
    const n = cell ? numberOf(cell) : null;
    return n ? [{ ...c, n }] : [];
  });
}

/** "How many components are there under X?", "How many types of X are there?": the question counts a group's line items. */
const COUNTS_PARTS =
  /^\s*how\s+many\s+(?:\w+\s+)?(?:components?|categories|types|items|line\s+items|kinds|classes|elements|parts|sub-?categories)\b/i;

/** "What are the components of X?", "What types of X are there?", "What financial items does X consist of?": the question lists a group's line items. */
const LISTS_PARTS =
  /^\s*what\s+(?:are|were)\s+(?:the\s+)?(?:\w+\s+)?(?:components?|categories|types|items|line\s+items|kinds|classes|elements|parts)\s+(?:of|under|in|within|that\s+make\s+up|making\s+up)\b|^\s*what\s+(?:types|kinds|categories|components)\s+of\b|^\s*what\s+(?:\w+\s+)?items\s+(?:does|do|did)\b.*\b(?:consist|compris|include|make)/i;

/** Whether the question lists a group's line items ("What financial items does X consist of?"): the table's row labels answer it, though it reads as prose. */
export function asksForLineItems(question: string): boolean {
  return LISTS_PARTS.test(question);
}

/** The first figure of a row, for checking that a row is the sum of the rows above it. */
function firstFigure(r: TableRow): number | null {
  const c = figureCells(r)[0];
  return c ? (numberOf(c)?.value ?? null) : null;
}

/**
 * The line items of a group: the rows under a heading row (a label without figures) down to the next
 * heading or total, or the rows above a total row up to the previous one, a total being a row labelled
 * so or one whose figure is the sum of the rows above it ("Property, plant and equipment, gross").
 * Only when every row of the group is in the evidence (row positions without a gap): a missing row
 * would make the list or its count wrong.
 */
function groupParts(m: RowMatch): TableRow[] | null {
  if (m.row.rowIndex === null) return null;
  const rows = m.table.rows.filter((r) => r.rowIndex !== null).sort((a, b) => a.rowIndex! - b.rowIndex!);
  const at = rows.indexOf(m.row);
  const labelledTotal = (r: TableRow) => TOTAL_LABEL.test(r.label.trim());
  const boundary = (r: TableRow) => figureCells(r).length === 0 || labelledTotal(r);
  const heading = figureCells(m.row).length === 0;
  const step = heading ? 1 : -1;
  const parts: TableRow[] = [];
  let last = m.row;
  for (let j = at + step; j >= 0 && j < rows.length && !boundary(rows[j]); j += step) {
    if (Math.abs(rows[j].rowIndex! - last.rowIndex!) !== 1) return null;
    parts.push(rows[j]);
    last = rows[j];
  }
  // The group must end at a row the evidence holds (a heading, a total or the table's last row), not at a gap.
  const next = rows[at + step * (parts.length + 1)];
  if (parts.length < 2 || (next && Math.abs(next.rowIndex! - last.rowIndex!) !== 1)) return null;
  if (!heading && !labelledTotal(m.row)) {
    const whole = firstFigure(m.row);
    const sum = parts.reduce((a, r) => a + (firstFigure(r) ?? Number.NaN), 0);
    if (whole === null || !Number.isFinite(sum) || Math.abs(sum - whole) > Math.max(1, Math.abs(whole) * 0.005)) return null;
  }
  return heading ? parts : parts.reverse();
}

function partsCount(ctx: Context, m: RowMatch): TableOutcome {
  if (!COUNTS_PARTS.test(ctx.q.text)) return null;
  const parts = groupParts(m);
  if (!parts) return null;
  return {
    answer: {
      kind: "count",
      text: String(parts.length),
      values: [],
      derivation: null,
      citations: [m.row.evidenceId, ...parts.map((r) => r.evidenceId)],
      confidence: rowConfidence(m),
      note: `Counted ${parts.length} line items of '${m.row.label}': ${parts.map((r) => r.label).join(", ")}.`,
    },
  };
}

/** The line items of the group the question names, as a list of their labels. */
function partsList(q: TableQuestion, tables: TableView[], qt: QuestionTerms, language: string): TableOutcome {
  const matches = matchRows(tables, q, qt, language);
  const best = matches[0];
  for (const m of matches.slice(0, ROWS_TRIED)) {
    if (m.score < ROW_SHARE * best.score) break;
    const parts = groupParts(m);
    if (!parts) continue;
    const values = parts.map((r) => r.label.replace(/[:\s]+$/, ""));
    return {
      answer: {
        kind: "list",
        text: joinValues(values),
        values,
        derivation: null,
        citations: [m.row.evidenceId, ...parts.map((r) => r.evidenceId)],
        confidence: rowConfidence(m) * (m.score / best.score),
        note: `The line items of '${m.row.label}' in '${m.table.caption}'.`,
      },
    };
  }
  return null;
}

/** "How many years did X exceed N?": the period columns of X past the threshold. */
function countAnswer(ctx: Context, m: RowMatch): TableOutcome {
  const { q } = ctx;
  if (!q.threshold) return partsCount(ctx, m);
  const limit = thresholdInTableUnits(q, m.table) ?? q.threshold.value;
  const figures = periodFigures(m);
  if (figures.length === 0) return null;
  const hits = figures.filter((f) => (q.threshold!.op === ">" ? f.n.value > limit : f.n.value < limit));
  return {
    answer: {
      kind: "count",
      text: String(hits.length),
      values: [],
      derivation: null,
      citations: [m.row.evidenceId],
      confidence: rowConfidence(m),
      note: `Counted ${hits.length} of ${figures.length} periods of '${m.row.label}' ${q.threshold.op === ">" ? "above" : "below"} ${limit}.`,
    },
  };
}

/** Two line items in one period: "A minus B", "A as a share of B", "A and B in total". */
function twoRowAnswer(ctx: Context, m: RowMatch, operation: Operation, asked: Period[]): TableOutcome {
  const { q, qt, language, matches, rival } = ctx;
  if (asked.length > 1 && operation !== "division") return null;
  let other = secondRow(matches, m);
  const shareOfTotal = operation === "division" && /\b(of|in|among)\s+(the\s+)?total\b|\btotal\b/i.test(q.text);
  if ((!other || shareOfTotal) && operation === "division") other = totalRow(matches, m.table, m.row) ?? other;
  if (!other) return null;
  let [a, b] = [m, other].sort((x, y) => x.position - y.position);
  // A share is the part over the whole, whichever the question names first.
  if (operation === "division" && TOTAL_LABEL.test(a.row.label.trim()) && !TOTAL_LABEL.test(b.row.label.trim())) [a, b] = [b, a];
  const period = asked.length >= 1 ? asked[asked.length - 1] : null;
  const oa = locate(a, period, q, qt, language);
  const ob = locate(b, period, q, qt, language);
  if (!oa || !ob) return null;
  return computed(operation, [oa, ob], q, rival, [a.row.label, b.row.label]);
}

/** One line item over several periods: its change, change ratio, average or total. */
function periodAnswer(ctx: Context, m: RowMatch, operation: Operation, asked: Period[]): TableOutcome {
  const { q, qt, language, rival } = ctx;
  const periods =
    operation === "average"
      ? q.spansRange
        ? spannedPeriods(q, m.table)
        : averagePeriods(q, m.table)
      : operation === "sum" && q.spansRange
        ? spannedPeriods(q, m.table)
        : asked;
  const change = operation === "difference" || operation === "change-ratio";
  if (periods.length < 2 && !((operation === "average" || operation === "sum") && periods.length === 0) && !(change && periods.length <= 1))
    return null;
  // "How much did X grow?" names no period: the table's own change column if it has one, else its two latest periods.
  // "How much did X grow in 2025?": against the period before it.
  const tableHasPeriod = periods.length === 0 || periodColumns(m.table).some((c) => c.period.year === periods[0].year);
  if (change && periods.length <= 1 && tableHasPeriod) {
    const stated = changeColumnAnswer(ctx, m, operation);
    if (stated) return stated;
  }
  const byRecency = [...periodColumns(m.table).map((c) => c.period)].sort((a, b) => periodOrder(b) - periodOrder(a));
  const sinceBefore = (p: Period) => {
    const i = byRecency.findIndex((c) => c.year === p.year);
    return i >= 0 && i + 1 < byRecency.length ? [byRecency[i + 1], byRecency[i]] : [p];
  };
  const use =
    periods.length >= 2
      ? periods
      : change
        ? periods.length === 1
          ? sinceBefore(periods[0])
          : byRecency.slice(0, 2)
        : periodColumns(m.table).map((c) => c.period);
  const located = use.map((p) => ({ p, o: locate(m, p, q, qt, language) }));
  const missing = located.filter((x) => !x.o).map((x) => periodName(x.p));
  if (missing.length > 0 || located.length < 2) {
    const what =
      missing.length > 0 ? `the evidence has no figure for ${missing.join(" and ")}` : "the evidence gives fewer than two figures";
    return {
      problem: {
        problem: `The ${operationWord(operation)} of '${m.row.label}' cannot be computed: ${what}.`,
        citations: [m.row.evidenceId],
        confidence: 0,
      },
    };
  }
  let operands = located.map((x) => x.o!);
  // Difference, change ratio and a ratio of periods: the later period first (new − old).
  if (operation === "difference" || operation === "change-ratio" || operation === "division") {
    operands = [...operands].sort((x, y) => periodOrder(y.located.period!) - periodOrder(x.located.period!));
    if (operands.length > 2) operands = [operands[0], operands[operands.length - 1]];
  }
  return computed(
    operation,
    operands,
    q,
    rival,
    operands.map((o) => periodName(o.located.period!)),
  );
}

const CHANGE_COLUMN = /\b(change|growth|increase|decrease|variance|movement)\b|\bvs\b|%\s*ch/i;

/** A column that states the change itself ("Growth", "% Change", "$ Change"): its cell answers a change question as written. */
function changeColumnAnswer(ctx: Context, m: RowMatch, operation: Operation): TableOutcome {
  const wantsPercent = operation === "change-ratio" || /\bpercent|%/i.test(ctx.q.text);
  const columns = m.table.columns
    .map((c, i) => ({ c, i }))
    .filter(({ c, i }) => CHANGE_COLUMN.test(c.name) && c.periods.length === 0 && m.row.cells[i]?.reading.kind === "number")
    .sort((a, b) => Number(b.c.percent === wantsPercent) - Number(a.c.percent === wantsPercent));
  const chosen = columns[0];
  if (!chosen) return null;
  const cell = m.row.cells[chosen.i];
  const o: Operand = {
    match: m,
    located: { cell, column: chosen.i, period: null, score: 0.8 },
    number: (cell.reading as { number: ReportNumber }).number,
  };
  return {
    answer: {
      kind: "cell",
      text: cellText(o),
      values: [],
      derivation: null,
      citations: [m.row.evidenceId],
      confidence: confidenceOf([o], ctx.rival, m),
      note: `Change stated in '${chosen.c.name}' of '${m.row.label}'.`,
    },
  };
}

/** "In which year was X higher?" / "In which years was X below N?": the period columns with the extreme or qualifying figure. */
function periodComparison(ctx: Context, m: RowMatch): TableOutcome {
  const { q } = ctx;
  const figures = periodFigures(m);
  if (figures.length < 2) return null;
  const name = (p: Period) => (/\b(year|years)\b/i.test(q.text) ? String(p.year) : p.text);
  if (q.threshold) {
    const limit = thresholdInTableUnits(q, m.table) ?? q.threshold.value;
    const hits = figures.filter((f) => (q.threshold!.op === ">" ? f.n.value > limit : f.n.value < limit)).map((f) => name(f.period));
    if (hits.length === 0) return null;
    return {
      answer: {
        kind: "list",
        text: joinValues(hits),
        values: hits,
        derivation: null,
        citations: [m.row.evidenceId],
        confidence: rowConfidence(m),
        note: `Periods of '${m.row.label}' ${q.threshold.op === "<" ? "below" : "above"} ${limit}.`,
      },
    };
  }
  if (!q.comparison) return null;
  const sorted = [...figures].sort((a, b) => (q.comparison!.direction === "max" ? b.n.value - a.n.value : a.n.value - b.n.value));
  if (sorted[0].n.value === sorted[1].n.value) return null;
  return {
    answer: {
      kind: "comparison",
      text: name(sorted[0].period),
      values: [],
      derivation: null,
      citations: [m.row.evidenceId],
      confidence: rowConfidence(m),
      note: `'${m.row.label}' is ${q.comparison.direction === "max" ? "highest" : "lowest"} in ${sorted[0].period.text} (${formatScalar(m.row.cells[sorted[0].column].raw)}).`,
    },
  };
}

const MANY_ANSWERS = /\brespective(?:ly)?\b|\b(?:are|were)\b|\bboth\b|\beach\b/i;

/** A coordinated item must match its own row at least this well (label coverage, cell-locate.ts). */
const MIN_ITEM_LABEL = 0.3;

/** The row of a table an item of the question names best, with its score. */
function rowForItem(table: TableView, item: string, language: string): { row: TableRow; score: number; terms: Set<string> } | null {
  const iq = readTableQuestion(item);
  const it = questionTerms(iq, language);
  let best: { row: TableRow; score: number; terms: Set<string> } | null = null;
  for (const row of table.rows) {
    if (!row.label || figureCells(row).length === 0) continue;
    const m = labelMatch(row.label, iq, it, language);
    if (m.score > (best?.score ?? 0)) best = { row, score: m.score, terms: it.set };
  }
  return best;
}

/** The figure column of a row whose header an item of the question names best ("Less than 1 year", "External"). */
function columnForItem(
  table: TableView,
  row: TableRow,
  item: string,
  period: Period | null,
  language: string,
): { column: number; score: number } | null {
  const it = new Set(terms(item, language));
  if (it.size === 0) return null;
  let best: { column: number; score: number } | null = null;
  for (const cell of figureCells(row)) {
    const col = table.columns[cell.column];
    if (period && col.periods.length > 0 && !col.periods.some((p) => p.year === period.year)) continue;
    const header = terms(col.name, language);
    const shared = header.filter((t) => it.has(t)).length;
    if (shared === 0) continue;
    const score = shared / Math.max(header.length, it.size);
    if (score > (best?.score ?? 0)) best = { column: cell.column, score };
  }
  return best;
}

/**
 * "What were the respective revenue and cost of sales in 2021?", "the values … due within one year and
 * between 2-5 years": two items the question coordinates, each naming its own row of the table (or,
 * failing that, its own column of the row), answered as a list in the question's order. A label that
 * itself holds both items ("Research and development", "Property, plant and equipment") is one row, not two.
 */
function coordinatedAnswer(ctx: Context, m: RowMatch, asked: Period[]): TableOutcome {
  const { q, qt, language, rival } = ctx;
  // "What was the carrying amount of patents and licences?" asks one figure of two things; a list is asked for in the plural or "respectively".
  if (!MANY_ANSWERS.test(q.text)) return null;
  const cellPeriods = asked.filter((p) => p.to === null);
  if (cellPeriods.length > 1) return null;
  const period = cellPeriods[0] ?? null;
  for (const [left, right] of coordinatedItems(q.text)) {
    const a = rowForItem(m.table, left, language);
    const b = rowForItem(m.table, right, language);
    if (a && b && a.row !== b.row && a.score >= MIN_ITEM_LABEL && b.score >= MIN_ITEM_LABEL) {
      const joint = new Set([...a.terms, ...b.terms]);
      const oneLabel = m.table.rows.some((r) => {
        const lt = new Set(terms(labelWords(r.label), language));
        return (
          [...a.terms].some((t) => lt.has(t)) &&
          [...b.terms].some((t) => lt.has(t)) &&
          [...joint].filter((t) => lt.has(t)).length >= 2 &&
          r !== a.row &&
          r !== b.row
        );
      });
      if (!oneLabel) {
        const ma: RowMatch = { ...m, row: a.row, labelScore: a.score };
        const mb: RowMatch = { ...m, row: b.row, labelScore: b.score };
        const oa = locate(ma, period, q, qt, language);
        const ob = locate(mb, period, q, qt, language);
        if (oa && ob)
          return listOf([oa, ob], rival, m, `Cells of '${a.row.label}' and '${b.row.label}'${period ? ` for ${period.text}` : ""}.`);
      }
    }
    const ca = columnForItem(m.table, m.row, left, period, language);
    const cb = columnForItem(m.table, m.row, right, period, language);
    if (ca && cb && ca.column !== cb.column) {
      const operand = (c: { column: number; score: number }): Operand | null => {
        const cell = m.row.cells[c.column];
        const n = cell ? numberOf(cell) : null;
        return n ? { match: m, located: { cell, column: c.column, period, score: 0.5 + 0.4 * c.score }, number: n } : null;
      };
      const oa = operand(ca);
      const ob = operand(cb);
      if (oa && ob)
        return listOf(
          [oa, ob],
          rival,
          m,
          `Cells of '${m.row.label}' under '${columnName(m.table, ca.column)}' and '${columnName(m.table, cb.column)}'.`,
        );
    }
  }
  return null;
}

function listOf(operands: Operand[], rival: RowMatch | undefined, m: RowMatch, note: string): TableOutcome {
  const values = operands.map(cellText);
  return {
    answer: {
      kind: "list",
      text: joinValues(values),
      values,
      derivation: null,
      citations: [...new Set(operands.map((o) => o.match.row.evidenceId))],
      confidence: confidenceOf(operands, rival, m),
      note,
    },
  };
}

/** A cell, or one cell per period named ("in 2019 and 2018"). */
function lookupAnswer(ctx: Context, m: RowMatch, asked: Period[], operation: Operation | null): TableOutcome {
  const { q, qt, language, rival } = ctx;
  // In the order the question names them ("in 2019 and 2018"); "for fiscal years 2019 to 2017 respectively" names every year between.
  const cellPeriods =
    !operation && q.spansRange && MANY_ANSWERS.test(q.text)
      ? spannedPeriods(q, m.table)
      : [...asked].filter((p) => p.to === null).sort((a, b) => a.start - b.start);
  if (cellPeriods.length >= 2) {
    if (operation) return null;
    const located = cellPeriods.map((p) => locate(m, p, q, qt, language));
    if (!located.every((o) => o)) return null;
    const values = located.map((o) => cellText(o!));
    return {
      answer: {
        kind: "list",
        text: joinValues(values),
        values,
        derivation: null,
        citations: [m.row.evidenceId],
        confidence: confidenceOf(located as Operand[], rival, m),
        note: `Cells of '${m.row.label}' for ${cellPeriods.map(periodName).join(", ")}.`,
      },
    };
  }
  const period = cellPeriods.length === 1 ? cellPeriods[0] : null;
  const o = locate(m, period, q, qt, language);
  if (!o) return null;
  return {
    answer: {
      kind: "cell",
      text: cellText(o),
      values: [],
      derivation: null,
      citations: [m.row.evidenceId],
      confidence: confidenceOf([o], rival, m) * (operation ? 0.7 : 1),
      note: `Cell '${m.row.label}' × '${columnName(m.table, o.located.column)}' of '${m.table.caption}'.`,
    },
  };
}

/**
 * "What is the total accounts receivables for 2018 and 2019?", "the total value of other non-current
 * assets between 2018 to 2019": the question's own "total" (not a quoted "Total …" label) over several
 * periods adds the periods up, even when the row it names is itself a total.
 */
function sumsOverPeriods(q: TableQuestion): boolean {
  if (q.cue?.operation !== "sum" || !/^total$/.test(q.cue.words)) return false;
  return q.spansRange || q.periods.filter((p) => p.to === null).length >= 2;
}

function answerForRow(ctx: Context, m: RowMatch): TableOutcome {
  const { q } = ctx;
  const operation = q.cue && (!cueIsLabel(q, m) || sumsOverPeriods(q)) ? q.cue.operation : null;
  const asked = periodEnds(q);
  // "How many categories are there under total X?": a count, though "total" reads as a sum.
  if (operation === "count" || (COUNTS_PARTS.test(q.text) && !q.threshold)) return countAnswer(ctx, m);
  if (operation) {
    const needsTwoRows = operation === "division" || asked.length <= 1;
    const two = needsTwoRows ? twoRowAnswer(ctx, m, operation, asked) : null;
    if (two) return two;
    const over = periodAnswer(ctx, m, operation, asked);
    if (over) return over;
    // The table may hold the result itself: a "Change" or "% Change" column.
    return lookupAnswer(ctx, m, asked, operation);
  }
  if (q.comparison?.over === "period" || (q.asksPeriod && q.threshold)) {
    // The answer is a period: a figure of this row cannot be it, however well the row matches.
    return periodComparison(ctx, m);
  }
  const coordinated = coordinatedAnswer(ctx, m, asked);
  if (coordinated) return coordinated;
  return lookupAnswer(ctx, m, asked, null);
}

/**
 * A question that names a table's figure ("revenue in 2025") but none of its rows asks about the
 * whole: the Total row of a table whose column headers use the question's words.
 */
function totalRowsOfNamedColumns(tables: TableView[], q: TableQuestion, qt: QuestionTerms, language: string): RowMatch[] {
  const out: RowMatch[] = [];
  const cueTerms = new Set(terms(`${q.cue?.words ?? ""} how much many what which when where who amount value figure`, language));
  for (const table of tables) {
    const headerTerms = new Set(terms(table.columns.map((c) => c.name).join(" "), language).filter((t) => !/^\d+$/.test(t)));
    const named = [...qt.set].filter((t) => headerTerms.has(t)).length;
    const total = table.rows.find((r) => TOTAL_LABEL.test(r.label.trim()));
    if (named === 0 || !total) continue;
    // Every other word of the question must be the table's own (its caption, section, headers): "the Asia region" names something this table does not have.
    const own = new Set(terms([table.caption, table.section ?? "", ...table.columns.map((c) => c.name)].join(" "), language));
    if ([...qt.set].some((t) => !own.has(t) && !cueTerms.has(t) && !/^\d+$/.test(t))) continue;
    out.push({
      table,
      row: total,
      labelScore: 0.5,
      score: 0.5 * (0.35 + 0.65 * total.strength),
      matched: [],
      position: Number.MAX_SAFE_INTEGER,
    });
  }
  return out.sort((a, b) => b.score - a.score);
}

/**
 * "Which years does the table provide information for?", "What financial items are listed in the
 * table?": the table's own periods (column headers) or items (row labels, totals and section headings
 * left out), from the table the question's other words point to.
 */
function structureAnswer(q: TableQuestion, tables: TableView[], qt: QuestionTerms, language: string): TableOutcome {
  const named = matchRows(tables, q, qt, language)[0]?.table;
  const table = named ?? tables[0];
  if (!table) return null;
  let values: string[];
  if (q.asksStructure === "periods") {
    const seen = new Set<number>();
    values = periodColumns(table)
      .map((c) => c.period.year)
      .filter((y) => !seen.has(y) && seen.add(y))
      .map(String);
  } else {
    values = [...table.rows]
      .sort((a, b) => (a.rowIndex ?? 0) - (b.rowIndex ?? 0))
      .filter((r) => r.label && !TOTAL_LABEL.test(r.label.trim()) && figureCells(r).length > 0)
      .map((r) => r.label.replace(/[:\s]+$/, ""));
    values = [...new Set(values)];
  }
  if (values.length === 0) return null;
  const rows = table.rows.map((r) => r.evidenceId);
  return {
    answer: {
      kind: "list",
      text: joinValues(values),
      values,
      derivation: null,
      citations: rows.slice(0, 5),
      confidence: Math.min(0.9, 0.3 + 0.5 * table.strength),
      note: `The ${q.asksStructure === "periods" ? "periods" : "items"} of '${table.caption}'.`,
    },
  };
}

/** Rows tried per question: the best matches only, as long as they match nearly as well as the best. */
const ROWS_TRIED = 6;
const ROW_SHARE = 0.6;

/**
 * The table answer for a question: the best-matching rows are tried in turn and the surest answer
 * wins; when none can be answered but one was asked for an operation whose figures are missing, that
 * problem is returned (what is missing); null when no table row matches the question.
 */
export function answerFromTables(question: string, evidence: ScoredEvidence[], language = "en"): TableOutcome {
  const tables = tablesInEvidence(evidence);
  if (tables.length === 0) return null;
  const q = readTableQuestion(question);
  if (LISTS_PARTS.test(q.text)) {
    const parts = partsList(q, tables, questionTerms(q, language), language);
    if (parts) return parts;
  }
  if (q.asksStructure) return structureAnswer(q, tables, questionTerms(q, language), language);
  if (q.asksForProse) return null;
  const qt = questionTerms(q, language);
  const matches = matchRows(tables, q, qt, language);
  if (matches.length === 0) matches.push(...totalRowsOfNamedColumns(tables, q, qt, language));
  const best = matches[0];
  if (!best) return null;
  const ctx: Context = { q, qt, language, matches, rival: matches.find((m) => m.table !== best.table) };
  let chosen: TableAnswer | null = null;
  let problem: TableProblem | null = null;
  for (const m of matches.slice(0, ROWS_TRIED)) {
    if (m.score < ROW_SHARE * best.score) break;
    const out = answerForRow({ ...ctx, rival: matches.find((r) => r.table !== m.table) }, m);
    if (!out) continue;
    if ("problem" in out) {
      problem ??= out.problem;
      continue;
    }
    const weighed = { ...out.answer, confidence: out.answer.confidence * (m.score / best.score) };
    if (!chosen || weighed.confidence > chosen.confidence) chosen = weighed;
  }
  if (chosen) return { answer: chosen };
  return problem ? { problem } : null;
}

function joinValues(values: string[]): string {
  if (values.length <= 1) return values[0] ?? "";
  return `${values.slice(0, -1).join(", ")} and ${values[values.length - 1]}`;
}
