import { type Period, samePeriod } from "../../../tables/periods";
import { terms } from "../../text";
import type { TableQuestion } from "./table-question";
import { type TableCell, type TableRow, type TableView, figureCells, labelWords } from "./table-cells";

/**
 * Locating cells by row label and column header, tolerant of the label's wording: a row matches by
 * the share of its label's content words (stemmed, footnote marks dropped) that the question uses,
 * more words matched weighing more ("Total revenue" over "Total"); a column matches by the period
 * its header names ("December 31, 2019" for "in 2019", "FY2018" for "fiscal 2018") and by header
 * words the question uses ("Domestic", "% of total").
 */

export interface QuestionTerms {
  /** Content terms in question order (stems), for mention order. */
  ordered: string[];
  set: Set<string>;
}

export function questionTerms(q: TableQuestion, language: string): QuestionTerms {
  const ordered = terms(q.text, language);
  return { ordered, set: new Set(ordered) };
}

export interface RowMatch {
  table: TableView;
  row: TableRow;
  /** 0..1: how well the label matches the question, before the evidence ranking is weighed in. */
  labelScore: number;
  /** labelScore weighed with the row's evidence strength and the table's context. */
  score: number;
  matched: string[];
  /** Index of the first matched term in the question (mention order). */
  position: number;
}

const labelTermCache = new Map<string, string[]>();

function labelTerms(label: string, language: string): string[] {
  const key = `${language}\u0000${label}`;
  let t = labelTermCache.get(key);
  if (!t) {
    if (labelTermCache.size > 5000) labelTermCache.clear();
    t = [...new Set(terms(labelWords(label), language))];
    labelTermCache.set(key, t);
  }
  return t;
}

/** How well a row label matches the question: label coverage, more matched words weighing more, a verbatim label best. */
export function labelMatch(
  label: string,
  q: TableQuestion,
  qt: QuestionTerms,
  language: string,
): { score: number; matched: string[]; position: number } {
  const lt = labelTerms(label, language);
  if (lt.length === 0) return { score: 0, matched: [], position: -1 };
  const matched = lt.filter((t) => qt.set.has(t));
  if (matched.length === 0) return { score: 0, matched, position: -1 };
  const coverage = matched.length / lt.length;
  const words = labelWords(label);
  // The label as written, stopwords included ("Prepaid expenses and other"), beats a shorter label with the same content words.
  const verbatim = words.length > 0 && q.padded.includes(` ${words} `) ? words.split(" ").length : 0;
  const score = coverage ** 1.5 * (1 - 0.55 ** (matched.length + 0.5 * verbatim));
  const position = Math.min(...matched.map((t) => qt.ordered.indexOf(t)).filter((i) => i >= 0));
  return { score, matched, position };
}

/** Question words the table's caption, section or headers share: context that puts the right table first. */
function contextScore(table: TableView, qt: QuestionTerms, language: string): number {
  const context = new Set(terms([table.caption, table.section ?? "", ...table.columns.map((c) => c.name)].join(" "), language));
  if (qt.set.size === 0) return 0;
  let n = 0;
  for (const t of qt.set) if (context.has(t)) n++;
  return n / qt.set.size;
}

/**
 * The header above the label column often names what every row is a figure of ("Interest rate swaps"
 * over "Carrying amount", "Notional amount"): a question naming both ("the carrying amount of interest
 * rate swaps") matches the row through the two together. The label alone counts when it matches better.
 */
function rowLabelMatch(
  table: TableView,
  row: TableRow,
  q: TableQuestion,
  qt: QuestionTerms,
  language: string,
): { score: number; matched: string[]; position: number } {
  const own = labelMatch(row.label, q, qt, language);
  if (own.score <= 0) return own;
  const whole = wholeOfTable(table, row, own, qt, language);
  if (whole) return whole;
  // A parenthesised qualifier ("Carrying amount (non-current (liabilities)/assets)") details the label; the question need not repeat it.
  const bare = row.label
    .replace(/\([^()]*(?:\([^()]*\)[^()]*)*\)/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  const labels = bare && bare !== row.label ? [row.label, bare] : [row.label];
  const stub = table.columns[row.labelColumn];
  const stubbed = stub && stub.periods.length === 0 && /\p{L}{3}/u.test(stub.name) ? labels.map((l) => `${stub.name} ${l}`) : [];
  let best = own;
  for (const l of [...labels.slice(1), ...stubbed]) {
    const m = labelMatch(l, q, qt, language);
    if (m.score > best.score) best = m;
  }
  return best;
}

const WHOLE_WORDS = new Set(["total", "subtot", "net", "overal", "grand", "sum"]);

/**
 * A row labelled only "Total" (or "Net", "Subtotal") is the whole of what the table is about: its
 * caption or the header above the labels names it ("Operating income included the following" /
 * "Total"), so the question's words found there count as matched by the row, without the caption's
 * other words diluting the label.
 */
function wholeOfTable(
  table: TableView,
  row: TableRow,
  own: { score: number; matched: string[]; position: number },
  qt: QuestionTerms,
  language: string,
): { score: number; matched: string[]; position: number } | null {
  const lt = labelTerms(row.label, language);
  if (lt.length === 0 || lt.length > 2 || !lt.every((t) => WHOLE_WORDS.has(t) || WHOLE_WORDS.has(t.replace(/s$/, "")))) return null;
  const stub = table.columns[row.labelColumn];
  const subject = terms([table.caption, stub && stub.periods.length === 0 ? stub.name : ""].join(" "), language).filter(
    (t) => qt.set.has(t) && !/^\d+$/.test(t) && !lt.includes(t),
  );
  if (subject.length === 0) return null;
  const matched = [...new Set([...own.matched, ...subject])];
  const score = (own.matched.length / lt.length) ** 1.5 * (1 - 0.55 ** matched.length);
  if (score <= own.score) return null;
  const position = Math.min(...matched.map((t) => qt.ordered.indexOf(t)).filter((i) => i >= 0));
  return { score, matched, position };
}

/** Every row of every table that the question names, best first. */
export function matchRows(tables: TableView[], q: TableQuestion, qt: QuestionTerms, language: string): RowMatch[] {
  const out: RowMatch[] = [];
  for (const table of tables) {
    const context = contextScore(table, qt, language);
    for (const row of table.rows) {
      if (!row.label) continue;
      const m = rowLabelMatch(table, row, q, qt, language);
      if (m.score <= 0) continue;
      out.push({
        table,
        row,
        labelScore: m.score,
        score: m.score * (0.35 + 0.65 * row.strength) + 0.2 * context,
        matched: m.matched,
        position: m.position,
      });
    }
  }
  return out.sort((a, b) => b.score - a.score);
}

export interface LocatedCell {
  cell: TableCell;
  column: number;
  /** The period the column was matched on, if any. */
  period: Period | null;
  /** 0..1: how surely this column is the one asked for. */
  score: number;
}

function headerWordScore(table: TableView, column: number, qt: QuestionTerms, language: string): number {
  const header = terms(table.columns[column]?.name ?? "", language).filter((t) => !/^\d+$/.test(t));
  if (header.length === 0) return 0;
  return header.filter((t) => qt.set.has(t)).length / header.length;
}

/**
 * The row's figure for a period: among the columns whose header names that period, the one whose
 * other header words the question also uses (or, asked for no percentage, one that is not a
 * percentage column); null when no column of the row names it.
 */
export function cellForPeriod(
  table: TableView,
  row: TableRow,
  period: Period,
  q: TableQuestion,
  qt: QuestionTerms,
  language: string,
): LocatedCell | null {
  const wantsPercent = /\bpercent(age)?\b|%/i.test(q.text);
  const naming = figureCells(row).filter((c) => table.columns[c.column]?.periods.some((p) => samePeriod(p, period)));
  // A column naming two periods ("Percentage Change 2019 Versus 2018", "2019 vs 2018") compares them: it holds neither period's figure when one of its own does.
  const single = naming.filter((c) => table.columns[c.column].periods.length === 1);
  const options = (single.length > 0 ? single : naming)
    .map((c) => {
      const col = table.columns[c.column];
      const words = headerWordScore(table, c.column, qt, language);
      const percentFit = col.percent === wantsPercent ? 0.2 : 0;
      return { cell: c, column: c.column, period, score: 0.6 + 0.2 * words + percentFit };
    })
    .sort((a, b) => b.score - a.score || a.column - b.column);
  return options[0] ?? null;
}

/**
 * The row's figure when the question names no period: the only figure, else the column whose header
 * words the question uses, else (less surely) the first figure column — reports put the latest period first.
 */
export function cellWithoutPeriod(table: TableView, row: TableRow, qt: QuestionTerms, language: string): LocatedCell | null {
  const figures = figureCells(row);
  if (figures.length === 0) return null;
  if (figures.length === 1) return { cell: figures[0], column: figures[0].column, period: null, score: 0.8 };
  const scored = figures
    .map((c) => ({ cell: c, column: c.column, period: null, score: headerWordScore(table, c.column, qt, language) }))
    .sort((a, b) => b.score - a.score || a.column - b.column);
  if (scored[0].score > 0 && scored[0].score > (scored[1]?.score ?? 0)) return { ...scored[0], score: 0.5 + 0.4 * scored[0].score };
  return { ...scored[0], score: 0.35 };
}

/** The period columns of a table, in the order the table gives them, each with its first period. */
export function periodColumns(table: TableView): { column: number; period: Period }[] {
  return table.columns.flatMap((c, i) => (c.periods.length === 1 && c.periods[0].to === null ? [{ column: i, period: c.periods[0] }] : []));
}
