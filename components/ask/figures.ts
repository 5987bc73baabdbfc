import type { Quantity } from "@/lib/format/quantity";
import { formatQuantity, quantityLabel } from "@/lib/format/quantity";
import type { AnswerShape } from "@/lib/pipeline/contracts";

/**
 * A result-shaped answer's values as its reader reads them: figures in the reader's locale with their
 * currency and scale (the shape's `units`, from the source), text as the source wrote it. The stored
 * answer text keeps the source's own spelling for evaluation and search; screens use these.
 */

type Cell = AnswerShape["rows"][number][number];

/** Decimals the source wrote ("11.0" keeps its one decimal); computed numbers show at most two. */
function sourceDecimals(v: Cell): number {
  if (typeof v !== "string") return 0;
  return (/\.(\d+)\s*%?$/.exec(v.trim())?.[1] ?? "").length;
}

/** The most decimals the source wrote in a column: a total is shown with as many ("43.0" under "24.1"). */
export function columnDecimals(rows: Cell[][], i: number): number {
  return Math.max(0, ...rows.map((r) => sourceDecimals(r[i] ?? null)));
}

/** A report cell's number ("24.1", "1,204", "9%"), or null for text. */
function numberOf(v: Cell): number | null {
  if (typeof v === "number") return Number.isFinite(v) ? v : null;
  if (typeof v !== "string") return null;
  const t = v.trim().replace(/[\s,]/g, "").replace(/%$/, "");
  return /^[-+]?\d+(\.\d+)?$/.test(t) ? Number(t) : null;
}

/** Columns whose numbers are names, not figures: identifiers, codes, years. */
const NOT_FIGURES = /(?:^|[^a-z])(id|ids|code|codes|year|years|zip|postcode|phone)(?:[^a-z]|$)|_id$/i;

/** One cell: `unit: false` for table cells whose header carries the unit; `column` keeps identifiers and years as written. */
export function formatCell(
  v: Cell,
  unit: Quantity | null | undefined,
  locale: string,
  options: { unit?: boolean; column?: string } = {},
): string {
  if (v === null) return "–";
  if (typeof v === "boolean") return v ? "yes" : "no";
  const n = numberOf(v);
  if (n === null) return String(v);
  // A year or an identifier is no figure to group ("2025", not "2,025").
  if (!unit && ((options.column && NOT_FIGURES.test(options.column)) || /^\d{4}$/.test(String(v).trim()))) return String(v);
  const percent = typeof v === "string" && v.trim().endsWith("%");
  return formatQuantity(n, percent ? { currency: null, scale: null, percent: true } : (unit ?? null), locale, {
    unit: options.unit,
    decimals: sourceDecimals(v),
  });
}

/** A column's header with the unit its cells leave out, when the header does not state it already. */
export function columnHeader(column: string, unit: Quantity | null | undefined): string {
  const label = quantityLabel(unit ?? null);
  if (!label || label === "%") return column;
  const stated = unit?.currency && column.toUpperCase().includes(unit.currency);
  return stated ? column : `${column} (${label})`;
}

/** The answer in one line, formatted: "€258", "Club: €246.75; Retailer: €267.73". */
export function shapeSentence(shape: AnswerShape, locale: string, maxRows = 12): string {
  const unit = (i: number) => shape.units?.[i] ?? null;
  if (shape.kind === "scalar") return formatCell(shape.rows[0]?.[0] ?? null, unit(0), locale, { column: shape.columns[0] });
  if (shape.kind === "list") {
    const values = [...new Set(shape.rows.map((r) => formatCell(r[0], unit(0), locale, { column: shape.columns[0] })))];
    const shown = values.slice(0, 50);
    const more = values.length - shown.length;
    return more > 0 || shape.truncated ? `${shown.join(", ")} and ${shape.truncated ? "more" : `${more} more`}` : shown.join(", ");
  }
  const row = (r: Cell[]) => {
    const cells = r.map((v, i) => formatCell(v, unit(i), locale, { column: shape.columns[i] }));
    return cells.length === 1 ? cells[0] : `${cells[0]}: ${cells.slice(1).join(" / ")}`;
  };
  if (shape.rows.length === 1) return shape.rows[0].map((v, i) => formatCell(v, unit(i), locale, { column: shape.columns[i] })).join(", ");
  const shown = shape.rows.slice(0, maxRows).map(row);
  const rest = shape.rows.length - shown.length;
  return `${shown.join("; ")}${rest > 0 || shape.truncated ? `; and ${shape.truncated ? "more" : `${rest} more`} rows` : ""}`;
}

/** A listed turn's answer (History, the conversation thread) as its answer card wrote it. */
export function turnAnswerText(turn: { answer: string | null; shape: AnswerShape | null }, locale: string): string {
  return turn.shape ? shapeSentence(turn.shape, locale) : readableAnswerText(turn.answer ?? "", locale);
}

/**
 * A stored answer text made readable where no shape is at hand (History, the conversation thread):
 * figures computed to many decimals are rounded to two and grouped for the locale ("246.74625" →
 * "246.75", "120857.14285714286" → "120,857.14"). Other text, years and short numbers stay as written.
 */
export function readableAnswerText(text: string, locale: string): string {
  return text.replace(/(?<![\w.,])(-?\d+\.\d{3,}|\d{5,}(?:\.\d+)?)(?![\w.,]*\d)/g, (m) =>
    new Intl.NumberFormat(locale, { maximumFractionDigits: 2 }).format(Number(m)),
  );
}
