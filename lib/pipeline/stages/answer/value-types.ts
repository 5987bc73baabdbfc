import nlp from "compromise";
import { labelFromIri } from "../../../backends/evidence";
import type { Scalar } from "../../../backends/types";
import { CURRENCY_CODE_PATTERN, CURRENCY_SYMBOL_PATTERN, CURRENCY_WORD_PATTERN } from "../../../data/currencies";
import { fieldWords } from "../../../data/field-types";
import { normalizeLabel } from "../../text";
import type { AnswerType } from "../../contracts";

/** The type of a candidate value: an answer type without the "list" modifier. */
export type ValueType = Exclude<AnswerType, "list">;

export const NUMERIC_TYPES: readonly ValueType[] = ["number", "count", "money", "percent"];

/**
 * Column, predicate, property and node-label names that say what their values are. Checked in this
 * order, so "Revenue growth" is a percent and "order date" a date. Matched on the normalized label
 * (lower case, punctuation and underscores folded to spaces, camelCase split).
 */
const LABEL_HINTS: [ValueType, RegExp][] = [
  // lib/data/field-types.json: singular date words only, so "Warranty (years)" and "Return window (days)" are durations, not dates.
  ["date", fieldWords("date")],
  ["percent", fieldWords("percent")],
  ["count", /^(count|cnt|n|num|number of|total number)\b|\bcount\b|\bquantity\b|\bnumber of\b/],
  ["money", fieldWords("money")],
  ["location", fieldWords("location")],
  ["person", fieldWords("person")],
  ["organisation", fieldWords("organisation")],
];

/** The de-camelled, normalized form of a column/predicate label ("listPrice" → "list price"). */
export function readableLabel(label: string): string {
  return normalizeLabel(label.includes("/") || label.includes("#") ? labelFromIri(label) : label.replace(/([a-z])([A-Z])/g, "$1 $2"));
}

/** What a column, predicate, property or node label says about its values, or null when it says nothing. */
export function hintFromLabel(label: string): ValueType | null {
  const l = readableLabel(label);
  if (!l) return null;
  for (const [type, re] of LABEL_HINTS) if (re.test(l)) return type;
  return null;
}

/** Aggregate result columns: "COUNT(*)", "count", "total_sales", "avg_price", "max(released)". */
export function isAggregateColumn(label: string): boolean {
  return (
    /^\s*(count|sum|avg|min|max|total|mean)\s*\(/i.test(label) ||
    /^(count|cnt|sum|avg|average|mean|min|max|total|num|number of|n)\b/.test(readableLabel(label))
  );
}

/** Identifier columns hold keys, not answers, unless the question asks for them; "count(DISTINCT dog_id)" is an aggregate, not a key. */
export function isIdColumn(label: string): boolean {
  if (isAggregateColumn(label)) return false;
  const l = readableLabel(label);
  return /(^|\s)(id|key|uuid|elementid|element id)$/.test(l) || /^id\s/.test(l);
}

/** Name-like columns hold what who/which questions ask for. */
export function isNameColumn(label: string): boolean {
  return /\b(name|names|title|label|caption)\b/.test(readableLabel(label));
}

const YEAR = /^(1[5-9]\d\d|20\d\d)$/;
const ISO_DATE = /^\d{4}-\d{2}(-\d{2})?([T ][\d:.]+Z?)?$/;
const PERCENT = /^[-+]?\d[\d,]*(\.\d+)?\s?(%|percent|per cent)$/i;
/** A value that is a sum of money: symbol or code before the figure, or a word or code after it (lib/data/currencies.json). */
const MONEY = new RegExp(
  `^((?:${CURRENCY_SYMBOL_PATTERN})|(?:${CURRENCY_CODE_PATTERN})\\s?)\\s?[-+(]?\\d[\\d,]*(\\.\\d+)?\\)?(\\s?(million|billion|thousand|m|bn|k))?$` +
    `|^[-+]?\\d[\\d,]*(\\.\\d+)?\\s?(million|billion|thousand)?\\s?(?:${CURRENCY_WORD_PATTERN}|${CURRENCY_CODE_PATTERN})$`,
  "i",
);
/** Plain numbers, including the accounting negative "(9,819)". */
const NUMERIC = /^[-+]?(\d[\d,]*(\.\d+)?|\.\d+)$|^\(\d[\d,]*(\.\d+)?\)$/;
const BOOLEAN = /^(true|false|yes|no)$/i;
/** Longer than this (or a full sentence) and a value is text rather than a name. */
const MAX_NAME_WORDS = 10;

export function isYearLike(value: string): boolean {
  return YEAR.test(value.trim());
}

/**
 * The type of a value from its form, refined by what its column/predicate says (`hint`): a number in
 * a "price" column is money, "2019" in a "founded" column is a date, a name in a "country" column a location.
 * `nameKinds` asks compromise whether a name is a person, place or organisation: it costs a parse, so
 * only questions that ask for one of those (who, where) pay it; for others every name is an "entity".
 */
/**
 * What a result column holds, read from its label and its first non-empty cell (that cell comes back
 * too, for typeFit's display); null when every cell is empty.
 */
export function columnValueType(label: string, cells: readonly (Scalar | undefined)[]): { type: ValueType; cell: Scalar } | null {
  const cell = cells.find((v): v is Scalar => v !== null && v !== undefined);
  return cell === undefined ? null : { type: classifyValue(cell, hintFromLabel(label)), cell };
}

export function classifyValue(value: Scalar, hint: ValueType | null, nameKinds = false): ValueType {
  if (typeof value === "boolean") return "boolean";
  if (typeof value === "number") return classifyNumber(String(value), hint);
  const v = String(value ?? "").trim();
  if (ISO_DATE.test(v)) return "date";
  if (BOOLEAN.test(v)) return "boolean";
  if (PERCENT.test(v)) return "percent";
  if (MONEY.test(v)) return "money";
  if (NUMERIC.test(v)) return classifyNumber(v, hint);
  if (v.split(/\s+/).length > MAX_NAME_WORDS || /[.!?]\s+\p{Lu}/u.test(v)) return "text";
  if (hint === "person" || hint === "organisation" || hint === "location") return hint;
  if (hint === "date" && /\b(1[5-9]\d\d|20\d\d)\b/.test(v)) return "date";
  return (nameKinds ? guessNameKind(v) : null) ?? "entity";
}

function classifyNumber(v: string, hint: ValueType | null): ValueType {
  if (hint === "date") return isYearLike(v) ? "date" : "number";
  if (hint === "money" || hint === "percent" || hint === "count") return hint;
  return "number";
}

const nameKindCache = new Map<string, ValueType | null>();

/** compromise's guess whether a short string names a person, a place or an organisation (memoized). */
export function guessNameKind(text: string): ValueType | null {
  const key = text.trim();
  if (!key || key.length > 80 || !/\p{Lu}/u.test(key)) return null;
  const cached = nameKindCache.get(key);
  if (cached !== undefined) return cached;
  const doc = nlp(key);
  const covers = (found: string[]) => found.some((f) => normalizeLabel(f) === normalizeLabel(key));
  const kind: ValueType | null = covers(doc.people().out("array"))
    ? "person"
    : covers(doc.organizations().out("array"))
      ? "organisation"
      : covers(doc.places().out("array"))
        ? "location"
        : null;
  if (nameKindCache.size > 5_000) nameKindCache.clear();
  nameKindCache.set(key, kind);
  return kind;
}

/** Names found by compromise in a sentence, normalized, by kind: passages type their capitalized spans with it. */
export function namesInSentence(sentence: string): { person: Set<string>; organisation: Set<string>; location: Set<string> } {
  const doc = nlp(sentence);
  const set = (found: string[]) => new Set(found.map((f) => normalizeLabel(f)).filter(Boolean));
  return {
    person: set(doc.people().out("array")),
    organisation: set(doc.organizations().out("array")),
    location: set(doc.places().out("array")),
  };
}

function isInteger(display: string): boolean {
  const n = Number(display.replace(/[^\d.-]/g, ""));
  return Number.isFinite(n) && Number.isInteger(n) && n >= 0 && !/\.\d*[1-9]/.test(display);
}

/**
 * How well a value of type `type` fits one asked-for answer type: 1 fits, about 0.7 plausible (an
 * untyped name for a "who" question), 0.1-0.2 contradicts (a number for "who"). The scale is shared by
 * every candidate, so only the ordering and the contradiction floor matter.
 */
function fitOne(wanted: ValueType, type: ValueType, display: string): number {
  const numeric = NUMERIC_TYPES.includes(type);
  switch (wanted) {
    case "date":
      return type === "date" ? 1 : numeric && isYearLike(display) ? 0.7 : 0.1;
    case "number":
      return numeric ? 1 : type === "date" ? 0.2 : 0.1;
    case "count":
      if (type === "count" || type === "number") return isInteger(display) ? 1 : 0.4;
      return numeric ? 0.3 : 0.1;
    case "money":
      return type === "money" ? 1 : type === "number" ? 0.8 : numeric ? 0.4 : 0.1;
    case "percent":
      return type === "percent" ? 1 : type === "number" ? 0.6 : numeric ? 0.3 : 0.1;
    case "person":
    case "organisation":
    case "location": {
      if (type === wanted) return 1;
      if (type === "entity") return 0.7;
      if (type === "person" || type === "organisation" || type === "location") return 0.35;
      return type === "text" ? 0.3 : 0.05;
    }
    case "boolean":
      return type === "boolean" ? 1 : 0.2;
    case "entity":
      // "Anything non-numeric": names of every kind fit; dates, yes/no and prose are acceptable but weaker.
      if (type === "entity" || type === "person" || type === "organisation" || type === "location") return 1;
      return numeric ? 0.2 : 0.8;
    case "text":
      return type === "text" ? 1 : 0.7;
  }
}

/** Neutral fit when the question gave no answer type: every value is equally plausible. */
export const NEUTRAL_FIT = 0.7;

/** Fit of a value to the question's answer types: the best over the types asked for. */
export function typeFit(wanted: readonly AnswerType[], type: ValueType, display: string): number {
  const types = wanted.filter((t): t is ValueType => t !== "list");
  if (types.length === 0) return NEUTRAL_FIT;
  return Math.max(...types.map((w) => fitOne(w, type, display)));
}
