import { CURRENCY_CODE_PATTERN, CURRENCY_SYMBOL_PATTERN } from "../data/currencies";

/**
 * Numbers as financial and business reports write them in table cells and prose. A cell means what a
 * reader of the report takes it to mean:
 * - "(9,819)", "$(89.7)", "(248%)" and "−5" are negative (accounting parentheses, the Unicode minus);
 * - "—", "–", "-", "$ —" stand for zero (nothing to report);
 * - "n/a", "N/M", "not meaningful" hold no value (not zero);
 * - footnote marks after a number ("1,234 (1)", "532.0¹", "45.1*", "94.2 (a)") are not part of it;
 * - "21.0%" is a percentage; "$", "€", "£", "¥" and ISO codes name a currency;
 * - "2 0 1 8" (a scanned header) is 2018.
 * Ranges ("3-5", "1–3 years") and free text are not numbers.
 */

export interface ReportNumber {
  /** The value as written (a percentage stays 21.0, not 0.21). */
  value: number;
  percent: boolean;
  /** "$", "€", "£", "¥" or an ISO code such as "EUR", when the text names one. */
  currency: string | null;
  /** Decimal places as written ("1,452.40" → 2): results keep the report's precision. */
  decimals: number;
  /** A dash standing for zero. */
  dash: boolean;
}

export type CellReading =
  { kind: "number"; number: ReportNumber } | { kind: "missing"; text: string } | { kind: "text"; text: string } | { kind: "empty" };

const DASHES = /^[-–—―−]+$/;
const MISSING = /^(n\/?a|n\.a\.?|n\/m|nm|not meaningful|not applicable|none|nil|\*+)$/i;
/** A currency's symbol ("NZ$" before "$") or upper-case code in a cell (lib/data/currencies.json). */
const CURRENCY_SYMBOL = new RegExp(`(${CURRENCY_SYMBOL_PATTERN}|\\b(?:${CURRENCY_CODE_PATTERN})\\b)`);
const SUPERSCRIPTS = /[¹²³⁴⁵⁶⁷⁸⁹⁰*†‡§#]+$/u;
/** A trailing footnote reference after a number: "(1)", "(a)", "(iv)", "[2]". */
const TRAILING_FOOTNOTE = /\s*(\(\s*(\d{1,2}|[a-z]|[ivx]{1,4})\s*\)|\[\s*\d{1,2}\s*\])$/i;

function unicodeDigits(text: string): string {
  return text.replace(/[¹²³⁴⁵⁶⁷⁸⁹⁰]/gu, "");
}

/** "2 0 1 8" → "2018": spaced digits of a scanned header. */
function joinSpacedDigits(text: string): string {
  return /^\d( \d){3}$/.test(text) ? text.replace(/ /g, "") : text;
}

/**
 * Reads one cell (or a short number phrase) the way a report means it. Returns "missing" for n/a
 * markers, "text" for anything that is not a single number (ranges, words), "empty" for blanks.
 */
export function readCell(raw: string | number | boolean | null | undefined): CellReading {
  if (raw === null || raw === undefined || raw === "") return { kind: "empty" };
  if (typeof raw === "number")
    return Number.isFinite(raw)
      ? { kind: "number", number: { value: raw, percent: false, currency: null, decimals: decimalsOf(String(raw)), dash: false } }
      : { kind: "text", text: String(raw) };
  if (typeof raw === "boolean") return { kind: "text", text: String(raw) };
  let t = joinSpacedDigits(raw.replace(/\s+/g, " ").trim());
  if (!t) return { kind: "empty" };
  if (MISSING.test(t)) return { kind: "missing", text: t };
  let currency: string | null = null;
  const cur = CURRENCY_SYMBOL.exec(t);
  if (cur) {
    currency = cur[1];
    t = (t.slice(0, cur.index) + t.slice(cur.index + cur[1].length)).trim();
  }
  if (!t) return { kind: "text", text: raw.trim() };
  if (DASHES.test(t.replace(/\s/g, ""))) return { kind: "number", number: { value: 0, percent: false, currency, decimals: 0, dash: true } };
  // Footnote marks come after the number; a lone "(1)" is the accounting way of writing −1.
  const stripped = t.replace(SUPERSCRIPTS, "").replace(TRAILING_FOOTNOTE, "").trim();
  if (stripped && /\d/.test(stripped)) t = stripped;
  t = unicodeDigits(t).trim();
  let negative = false;
  const paren = /^\((.*)\)$/.exec(t);
  if (paren) {
    negative = true;
    t = paren[1].trim();
    const inner = CURRENCY_SYMBOL.exec(t);
    if (inner && !currency) {
      currency = inner[1];
      t = (t.slice(0, inner.index) + t.slice(inner.index + inner[1].length)).trim();
    }
  }
  if (/^[-−–]/.test(t)) {
    negative = !negative;
    t = t.slice(1).trim();
  } else if (t.startsWith("+")) {
    t = t.slice(1).trim();
  }
  let percent = false;
  if (/%$/.test(t)) {
    percent = true;
    t = t.slice(0, -1).trim();
  }
  // A parenthesised negative with the percent sign outside: "(2.5)%".
  const parenInner = /^\((.*)\)$/.exec(t);
  if (parenInner) {
    negative = !negative;
    t = parenInner[1].trim();
  }
  if (!/^(\d{1,3}(,\d{3})+|\d+)(\.\d+)?$|^\.\d+$/.test(t)) return { kind: "text", text: raw.trim() };
  const value = Number(t.replace(/,/g, ""));
  if (!Number.isFinite(value)) return { kind: "text", text: raw.trim() };
  return { kind: "number", number: { value: negative ? -value : value, percent, currency, decimals: decimalsOf(t), dash: false } };
}

function decimalsOf(t: string): number {
  const m = /\.(\d+)$/.exec(t);
  return m ? m[1].length : 0;
}

/** The number a cell holds, or null (text, n/a, blank). */
export function cellNumber(raw: string | number | boolean | null | undefined): ReportNumber | null {
  const r = readCell(raw);
  return r.kind === "number" ? r.number : null;
}
