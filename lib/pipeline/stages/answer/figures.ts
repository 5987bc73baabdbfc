import type { Scalar } from "../../../backends/types";
import { type Quantity, quantityOfColumn } from "../../../format/quantity";
import { readCell } from "../../../tables/report-number";
import type { AnswerShape } from "../../contracts";

/**
 * What the figures of a result-shaped answer are: each numeric column's currency, scale or percentage
 * (from its header, else from what the source says about its table), and for a grouped answer whose
 * measures add up, the total row, as the source states it or summed. The answer card formats the figures
 * for its reader with them (lib/format/quantity.ts); the answer text stays as the source wrote it.
 */

/** A cell as a number: numbers as they are, report cells ("24.1", "€1,204", "(3.2)") as they read; else null. */
export function cellNumber(v: Scalar | undefined): number | null {
  if (typeof v === "number") return Number.isFinite(v) ? v : null;
  if (typeof v !== "string") return null;
  const r = readCell(v);
  return r.kind === "number" && !r.number.dash ? r.number.value : null;
}

/** A column is numeric when every cell that holds something reads as a number (and one does). */
function isNumericColumn(rows: Scalar[][], i: number): boolean {
  const present = rows.map((r) => r[i]).filter((v) => v !== null && v !== undefined && v !== "");
  return present.length > 0 && present.every((v) => cellNumber(v) !== null);
}

/** Each column's quantity (null for text columns and for figures nothing states a unit of). */
export function columnUnits(columns: string[], rows: Scalar[][], context: string[] = []): (Quantity | null)[] {
  return columns.map((c, i) => (isNumericColumn(rows, i) ? quantityOfColumn(c, context) : null));
}

/** Figures that do not add up across groups: averages, extremes, rates, shares, prices. */
const NOT_ADDITIVE =
  /\b(avg|average|averages|mean|median|min|max|minimum|maximum|lowest|highest|rate|rates|ratio|share|percent|percentage|growth|change|price|prices|per|margin|age|year|years)\b|%/i;
/** Figures that do: sums and counts, and the amounts reports break down (revenue, sales, costs). */
const ADDITIVE =
  /\b(sum|total|count|number|revenue|revenues|sales|amount|amounts|quantity|quantities|orders|units|cost|costs|spend|spending|income|turnover|headcount|employees|customers)\b/i;

/** Whether a measure column's figures add up to a meaningful total. */
export function isAdditive(column: string, unit: Quantity | null): boolean {
  if (unit?.percent) return false;
  const words = column.replace(/[_"()]+/g, " ");
  return ADDITIVE.test(words) && !NOT_ADDITIVE.test(words);
}

export type TotalRow = NonNullable<AnswerShape["totalRow"]>;

/**
 * The total row of a grouped answer (one key column, additive measures, two groups at least): the
 * source's own total where it states one (a report table's "Total" row), otherwise the sum of the rows
 * (a complete result only: a result cut at the row cap has no total).
 */
export function totalRowOf(
  shape: Pick<AnswerShape, "columns" | "rows" | "truncated">,
  grouped: { keys: number[]; measures: number[] } | null,
  units: (Quantity | null)[],
  stated?: Scalar[] | null,
): TotalRow | null {
  if (!grouped || grouped.keys.length !== 1 || shape.rows.length < 2 || shape.truncated) return null;
  const additive = grouped.measures.filter((i) => units[i]?.percent !== true && isAdditive(shape.columns[i], units[i] ?? null));
  if (additive.length === 0) return null;
  const values = shape.columns.map((_, i): number | null => {
    if (!additive.includes(i)) return null;
    const fromSource = stated ? cellNumber(stated[i]) : null;
    if (fromSource !== null) return fromSource;
    const cells = shape.rows.map((r) => cellNumber(r[i]));
    if (cells.some((c) => c === null)) return null;
    // Rounded to the figures' own decimals, so 24.1 + 11.0 + 7.9 is 43, not 42.99999999999999.
    const decimals = Math.min(10, Math.max(0, ...(cells as number[]).map((c) => (String(c).split(".")[1] ?? "").length)));
    const factor = 10 ** decimals;
    return Math.round((cells as number[]).reduce((a, b) => a + b, 0) * factor) / factor;
  });
  if (values.every((v) => v === null)) return null;
  return { label: "Total", values, stated: Boolean(stated && additive.some((i) => cellNumber(stated[i]) !== null)) };
}
