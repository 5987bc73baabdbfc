import { formatScalar } from "../../../backends/evidence";
import type { Scalar } from "../../../backends/types";
import { normalizeLabel } from "../../text";
import { NUMERIC_TYPES, type ValueType, isYearLike } from "./value-types";

/**
 * Candidate identity: the same value said differently in different pieces ("48.2" in a table cell,
 * "48.2 million euros" in a report, "12%" and "12 percent") gets one key, so agreement across pieces and
 * KBs adds up. Numbers are keyed by the number as written (scale words dropped: a table in "EUR million"
 * writes 48.2 where the prose says 48.2 million), dates by their known ISO components, names by their
 * normalized form.
 */

/**
 * The first number in a string: "€1,200.50" → 1200.5, "12 percent" → 12, "48.2 million" → 48.2; the
 * accounting notation for negatives, "(9,819)" or "$(9.8) million", gives a negative number.
 */
export function parseNumber(text: string): number | null {
  const m = /[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|[-+]?\.\d+/.exec(text);
  if (!m) return null;
  const n = Number(m[0].replace(/,/g, ""));
  if (!Number.isFinite(n)) return null;
  const negative =
    text.slice(0, m.index).trimEnd().endsWith("(") &&
    text
      .slice(m.index + m[0].length)
      .trimStart()
      .startsWith(")");
  return negative ? -Math.abs(n) : n;
}

function canonicalNumber(n: number): string {
  return String(Number(n.toPrecision(12)));
}

/** A date key from what is written: "2019", "2024-03", "2024-03-03"; a non-ISO date string by its normalized form. */
function dateKey(display: string): string {
  const t = display.trim();
  if (isYearLike(t)) return t;
  const iso = /^(\d{4}-\d{2}(?:-\d{2})?)/.exec(t);
  return iso ? iso[1] : normalizeLabel(t);
}

export function valueKey(display: string, type: ValueType, isoDate?: string): string {
  if (type === "date") return `d:${isoDate ?? dateKey(display)}`;
  if (NUMERIC_TYPES.includes(type)) {
    const n = parseNumber(display);
    if (n !== null) return `n:${canonicalNumber(n)}`;
  }
  if (type === "boolean") return `b:${/^(true|yes|1)$/i.test(display.trim())}`;
  return `s:${normalizeLabel(display).replace(/^the /, "")}`;
}

/** The unit a column header carries: "Return window (days)" → "days", "Revenue (EUR million)" → "EUR million". */
export function unitFromColumn(column: string): string | null {
  const m = /\(([^()]{1,24})\)\s*$/.exec(column);
  if (!m) return null;
  const unit = m[1].trim();
  // "COUNT(*)", "max(price)": an aggregate's argument, not a unit.
  if (!/\p{L}/u.test(unit) || /^\s*(count|sum|avg|min|max|total|mean)\s*\(/i.test(column)) return null;
  return unit;
}

/** A cell as an answer: numbers keep the unit their column states ("60 days"). */
export function displayCell(value: Scalar, column: string, type: ValueType): string {
  const text = formatScalar(value);
  if (typeof value === "number" || /^[-+]?\d[\d,]*(\.\d+)?$/.test(text)) {
    const unit = type === "date" ? null : unitFromColumn(column);
    if (unit) return `${text} ${unit}`;
  }
  return text;
}

/** A bare number ("48.2") says less than the same number with a unit ("48.2 million euros"). */
export function isBareNumber(display: string): boolean {
  return /^[-+]?[\d.,\s]+$/.test(display.trim());
}
