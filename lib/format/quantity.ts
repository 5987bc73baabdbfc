import { z } from "zod";
import { CURRENCY_CODE_PATTERN, CURRENCY_SYMBOL_PATTERN, CURRENCY_WORD_PATTERN, currencyCodeOf } from "../data/currencies";
import { scaleInHeader, type Scale, SCALES } from "../tables/scale";

/**
 * What a column of figures measures, as its source states it: a currency ("EUR", "€", "euros"), a scale
 * ("million", "€m", "(in thousands)"), a percentage. Read from a column's header or name ("Revenue 2025
 * (EUR million)", "price_eur", "Growth %"), or from the text an analyst or the source wrote about the
 * table ("All amounts in euros."): the answer shows the figure with them, formatted for the reader.
 */
export const quantitySchema = z.object({
  /** ISO 4217 code. */
  currency: z.string().length(3).nullable(),
  scale: z.enum(SCALES).nullable(),
  percent: z.boolean(),
});
export type Quantity = z.infer<typeof quantitySchema>;

const CODE = new RegExp(`(?:^|[^A-Za-z])(${CURRENCY_CODE_PATTERN})(?:[^A-Za-z]|$)`, "gi");
const SYMBOL = new RegExp(CURRENCY_SYMBOL_PATTERN, "g");
const WORD = new RegExp(`\\b(${CURRENCY_WORD_PATTERN})\\b`, "gi");

/** The first match of `re` in `text` that names one currency (a word shared by two, "kroner", names none). */
function firstCurrency(re: RegExp, text: string, group: number): string | null {
  for (const m of text.matchAll(re)) {
    const code = currencyCodeOf(m[group]!);
    if (code) return code;
  }
  return null;
}
/** Column names that are money when their table's text names a currency ("unit_price", "Revenue"). */
const MONEY_WORDS =
  /(?:^|[^a-z])(price|prices|revenue|revenues|sales|amount|amounts|cost|costs|spend|spent|value|total|totals|income|profit|profits|turnover|budget|fee|fees|salary|salaries|cap|paid|payment|payments|balance|margin)(?:[^a-z]|$)/i;
/** Column names that are never money: counts, shares, quantities, years and identifiers. */
const NOT_MONEY =
  /(?:^|[^a-z])(count|counts|number|numbers|quantity|quantities|qty|share|percent|percentage|pct|rate|ratio|growth|year|years|id|ids|age|rank|units|orders|customers|products|margin %)(?:[^a-z]|$)|^n$|%/i;

/** The currency a text names (code, symbol or word), or null. */
export function currencyIn(text: string): string | null {
  // Column names use underscores and camel case: "price_eur", "priceEUR".
  const spaced = text.replace(/[_-]+/g, " ").replace(/([a-z])([A-Z]{3})\b/g, "$1 $2");
  return firstCurrency(CODE, spaced, 1) ?? firstCurrency(SYMBOL, text, 0) ?? firstCurrency(WORD, spaced, 1);
}

/** What a column header or name states about its figures, or null when it states nothing. */
export function quantityOfHeader(header: string): Quantity | null {
  const percent = /%|\bpercent(?:age)?\b|\bpct\b|\bper cent\b/i.test(header);
  const currency = percent ? null : currencyIn(header);
  const scale = percent ? null : (scaleInHeader(header)?.scale ?? null);
  if (!percent && !currency && !scale) return null;
  return { currency, scale, percent };
}

/**
 * A column's quantity: what its header states, else the currency that the text about its table names
 * (a source object's description, the knowledge base's), for a column whose name reads as money.
 */
export function quantityOfColumn(header: string, context: string[] = []): Quantity | null {
  const stated = quantityOfHeader(header);
  if (stated) return stated;
  if (!MONEY_WORDS.test(header.replace(/[_-]+/g, " ")) || NOT_MONEY.test(header.replace(/[_-]+/g, " "))) return null;
  for (const text of context) {
    const currency = currencyIn(text);
    if (currency) return { currency, scale: null, percent: false };
  }
  return null;
}

export const SCALE_FACTOR: Record<Scale, number> = { thousand: 1e3, million: 1e6, billion: 1e9 };

/**
 * A figure for a reader in `locale`: grouped digits and the locale's decimal mark, at most two decimals
 * (a computed average is not shown to the fourteenth) unless the source wrote more; with its currency
 * ("€120,857.14", "120.857,14 €") and scale ("€26.3m", "26,3 Mio. €"); a percentage as the source
 * wrote it ("24%": the figure is already in percent). `unit: false` leaves currency and scale to the
 * column's header (a table states them once), keeping percentages.
 */
export function formatQuantity(
  value: number,
  quantity: Quantity | null,
  locale: string,
  options: { unit?: boolean; decimals?: number } = {},
): string {
  const q = quantity ?? { currency: null, scale: null, percent: false };
  const digits = {
    minimumFractionDigits: Math.min(options.decimals ?? 0, 6),
    maximumFractionDigits: Math.max(2, Math.min(options.decimals ?? 0, 6)),
  };
  if (q.percent) return new Intl.NumberFormat(locale, { style: "percent", ...digits }).format(value / 100);
  if (options.unit === false || (!q.currency && !q.scale)) return new Intl.NumberFormat(locale, digits).format(value);
  if (q.scale) {
    // "€26.3m", "26,3 Mio. €": the scale as the locale abbreviates it (spelt out without a currency: "26.3 million").
    return new Intl.NumberFormat(locale, {
      notation: "compact",
      compactDisplay: q.currency ? "short" : "long",
      ...digits,
      ...(q.currency ? { style: "currency", currency: q.currency } : {}),
    }).format(value * SCALE_FACTOR[q.scale]);
  }
  return new Intl.NumberFormat(locale, {
    style: "currency",
    currency: q.currency!,
    minimumFractionDigits: Number.isInteger(value) ? 0 : 2,
    maximumFractionDigits: 2,
  }).format(value);
}

/** A plain figure for a reader in `locale`: grouped digits, at most two decimals. Integers stay whole. */
export function formatNumber(value: number, locale: string): string {
  return new Intl.NumberFormat(locale, { maximumFractionDigits: Math.abs(value) < 1 && value !== 0 ? 4 : 2 }).format(value);
}

/** The unit a column's header should carry once its figures are shown with it: "EUR", "EUR million", "%". */
export function quantityLabel(q: Quantity | null): string | null {
  if (!q) return null;
  if (q.percent) return "%";
  return [q.currency, q.scale].filter(Boolean).join(" ") || null;
}
