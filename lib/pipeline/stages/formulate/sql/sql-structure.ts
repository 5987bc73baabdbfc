import { quoteIdent } from "../../../../backends/sql/dialect";
import type { KbStructure, Scalar } from "../../../../backends/types";
import { renderExpression } from "../../../../catalog/table-notes";
import { identifierTerms } from "../lexicon";
import { type PeriodOf, periodSql } from "./period-sql";

export type SqlStructure = Extract<KbStructure, { kind: "sql" }>;
export type SqlTable = SqlStructure["tables"][number];

/** A column with what schema linking needs to know about it, computed once per formulation. */
export interface ColumnFacts {
  table: string;
  name: string;
  type: string;
  examples: Scalar[];
  /** Stemmed terms of the column name. */
  terms: string[];
  /** The column's own terms, without the words it shares with its table ("Singer_ID" in singer → [id]). */
  ownTerms: string[];
  numeric: boolean;
  /** Holds dates or timestamps as ISO text or date types. */
  dateLike: boolean;
  /** An integer year ("Year", "release_year"). */
  yearLike: boolean;
  /** A key (primary, foreign, or named …id): identifies rows, is not an attribute to show or measure. */
  key: boolean;
  /** Holds the names of the table's rows (name, title, label, …_name). */
  nameLike: boolean;
  /** Not a name by its own words: the first text attribute of a table that has none, standing in for one. */
  nameStandIn?: boolean;
  /** A measure from the analysts' notes (table-notes.ts): no stored column, an aggregate over an expression of its table's columns. */
  measure?: NonNullable<SqlTable["columns"][number]["measure"]>;
  /** A calendar period of a date column of its table (period-columns.ts): a grouping key no column holds. */
  period?: PeriodOf;
}

const NUMERIC_TYPE = /int|real|float|double|numeric|decimal|number|money|serial/i;
const DATE_TYPE = /date|time/i;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}/;
const NAME_TERMS = new Set(["name", "titl", "label", "caption"]);
const DATE_TERMS = new Set(["date", "time", "timestamp", "dai", "month", "datetim"]);
/** Participles that date an event: a four-digit number so named is the year it happened. */
const EVENT_TERMS = new Set([
  "born",
  "releas",
  "found",
  "built",
  "establish",
  "open",
  "start",
  "creat",
  "launch",
  "made",
  "join",
  "publish",
  "elect",
  "die",
  "end",
]);

function isNumber(v: Scalar): boolean {
  return typeof v === "number" || (typeof v === "string" && v.trim() !== "" && Number.isFinite(Number(v)));
}

export function columnFacts(table: SqlTable): ColumnFacts[] {
  const tableTerms = new Set(identifierTerms(table.name));
  const fkColumns = new Set(table.foreignKeys.flatMap((fk) => fk.columns));
  const facts = table.columns.map((c): ColumnFacts => {
    const terms = identifierTerms(c.name);
    const own = terms.filter((t) => !tableTerms.has(t));
    const examples = c.examples.filter((v) => v !== null);
    // Declared types lie in both directions (Spider's `age VARCHAR(20)`): numbers in every example make a column numeric.
    const numeric = NUMERIC_TYPE.test(c.type) || (examples.length > 0 && examples.every(isNumber) && !DATE_TYPE.test(c.type));
    const fourDigits = examples.length > 0 && examples.every((v) => /^\d{4}$/.test(String(v)));
    // A year by name ("Year", "release_year"), or a number of years named by what happened then ("born", "released", "founded").
    const yearLike =
      (terms.includes("year") && (numeric || fourDigits)) || (numeric && fourDigits && terms.some((t) => EVENT_TERMS.has(t)));
    const dateLike =
      !yearLike &&
      (DATE_TYPE.test(c.type) ||
        (examples.length > 0 && examples.every((v) => typeof v === "string" && ISO_DATE.test(v))) ||
        (!numeric && terms.some((t) => DATE_TERMS.has(t))));
    const key = table.primaryKey.includes(c.name) || fkColumns.has(c.name) || terms[terms.length - 1] === "id";
    return {
      table: table.name,
      name: c.name,
      type: c.type,
      examples: c.examples,
      terms,
      ownTerms: own.length > 0 ? own : terms,
      numeric: numeric && !dateLike,
      dateLike,
      yearLike,
      key,
      nameLike: !numeric && terms.some((t) => NAME_TERMS.has(t)),
      ...(c.measure ? { measure: c.measure } : {}),
    };
  });
  // A table with no name-like column is named by its first text attribute ("country" in a countries table).
  if (!facts.some((f) => f.nameLike)) {
    const first = facts.find((f) => !f.key && !f.numeric && !f.dateLike && !f.yearLike);
    if (first) Object.assign(first, { nameLike: true, nameStandIn: true });
  }
  return facts;
}

/** Prefers the column called exactly "name"/"title", then the one that names the table ("song_name" in songs). */
export function nameColumn(columns: ColumnFacts[]): ColumnFacts | null {
  const named = columns.filter((c) => c.nameLike && !c.key);
  return named.find((c) => c.ownTerms.length === 1 && NAME_TERMS.has(c.ownTerms[0])) ?? named[0] ?? null;
}

export function qualified(table: string, column: string, withTable: boolean): string {
  return withTable ? `${quoteIdent(table)}.${quoteIdent(column)}` : quoteIdent(column);
}

/**
 * A column as the query writes it: its quoted name, or a measure's expression over its table's columns
 * (in parentheses unless `bare`, which an aggregate's own parentheses make safe: SUM(a * b)).
 */
export function columnSql(c: ColumnFacts, withTable: boolean, bare = false): string {
  if (c.period) return periodSql(qualified(c.table, c.period.column, withTable), c.period);
  if (!c.measure) return qualified(c.table, c.name, withTable);
  const text = renderExpression(c.measure.parts, (name) => qualified(c.table, name, withTable));
  return bare ? text : `(${text})`;
}

/** A string literal that cannot end early: single quotes doubled, NUL dropped (no engine stores it in text). */
export function sqlString(value: string): string {
  return `'${value.replace(/\u0000/g, "").replace(/'/g, "''")}'`;
}

/**
 * A LIKE pattern (used with ESCAPE '!') that matches `value` anywhere (or only at the start or the end of
 * the text: "starting with 'L'"), its own %, _ and ! escaped. "!" rather than a backslash, whose meaning in string literals differs between engines and parsers.
 */
export function containsPattern(value: string, anchor: "contains" | "prefix" | "suffix" = "contains"): string {
  const text = value.toLowerCase().replace(/[!%_]/g, (c) => `!${c}`);
  return sqlString(`${anchor === "prefix" ? "" : "%"}${text}${anchor === "suffix" ? "" : "%"}`);
}

export { quoteIdent };
