import { terms } from "../../../text";
import { coverage } from "../lexicon";
import { columnsOf } from "./column-choice";
import { pickTimeColumn } from "./filter-picks";
import type { PeriodUnit } from "./period-sql";
import type { ColumnFacts } from "./sql-structure";
import type { SchemaLinking } from "./types";

/**
 * Calendar periods of a date column as grouping keys: "revenue per month", "orders in each year",
 * "which quarter had the most returns" group the rows by the period their date falls in when no column
 * holds the period itself (a `Year` column is grouped by as it is). The period is a column of the date's
 * table whose SQL is the engine's own date formatting (strftime in SQLite, to_char in PostgreSQL).
 */

const UNITS: PeriodUnit[] = ["year", "quarter", "month", "week", "day"];
/** The calendar units by their stemmed term, through the one tokenizer the question's terms come from. */
const UNIT_OF_TERM = new Map(UNITS.map((u) => [terms(u)[0], u]));

/** The calendar unit `words` name when they name nothing else ("month", "each year"); null otherwise. */
export function periodUnitOf(words: string[]): PeriodUnit | null {
  const units = words.map((t) => UNIT_OF_TERM.get(t) ?? null);
  return words.length > 0 && units.every((u) => u === units[0]) ? units[0] : null;
}

/**
 * The period column to group by: the unit's period of the question's date column, when the reachable
 * tables have a date column and no column of their own is named by the unit; null otherwise.
 */
export function periodGrouping(linking: SchemaLinking, reach: Set<string>, unit: PeriodUnit): ColumnFacts | null {
  const unitTerms = new Set(terms(unit));
  if (columnsOf(linking, reach).some((c) => !c.key && coverage(c.ownTerms, unitTerms) > 0)) return null;
  const date = pickTimeColumn(linking, [linking.root], reach, [], -1);
  if (!date || !date.dateLike) return null;
  return {
    ...date,
    name: `${date.name} ${unit}`,
    terms: [...unitTerms],
    ownTerms: [...unitTerms],
    numeric: false,
    dateLike: false,
    yearLike: false,
    key: false,
    nameLike: false,
    examples: [],
    period: { unit, column: date.name, dateTyped: /date|time/i.test(date.type), dialect: linking.structure.dialect },
  };
}
