import nlp from "compromise";
import { stemmer } from "stemmer";
import { CURRENCY_CODE_PATTERN, CURRENCY_SYMBOL_PATTERN, CURRENCY_WORD_PATTERN, MINOR_UNIT_PATTERN } from "../data/currencies";

/**
 * Unit and answer-type agreement: a value's unit must fit what the question asks for. "How many
 * products …" is not answered in years, "how long …" not in euros, "what percentage …" not in days.
 * A unit is the word or symbol a figure carries ("2 years", "160 EUR", "12%", "15 stores") or its
 * column states ("Warranty (years)"); the question's expectation comes from "how many <noun>", "how
 * long", "how much", "what percentage" and the like.
 */

export type UnitKind = "duration" | "currency" | "percent" | "count-noun" | "measure";

export interface Unit {
  kind: UnitKind;
  /** The word as written ("years", "EUR", "stores"), or "%". */
  word: string;
}

const DURATION = /^(seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?|yrs?|decades?|quarters?)$/i;
/** One word naming money: a currency's code or word (lib/data/currencies.json) or a minor unit ("cents"). */
const CURRENCY_WORD = new RegExp(`^(?:${CURRENCY_CODE_PATTERN}|${CURRENCY_WORD_PATTERN}|${MINOR_UNIT_PATTERN})$`, "i");
const CURRENCY_SYMBOL = new RegExp(CURRENCY_SYMBOL_PATTERN);
const MEASURE =
  /^(kg|g|grams?|kilograms?|tonnes?|tons?|lbs?|pounds weight|km|m|metres?|meters?|miles?|cm|mm|l|litres?|liters?|kwh|mwh|gwh|gb|tb|mb|sq|square)$/i;
/** Words after a figure that are not its unit. */
const NOT_UNITS = /^(and|or|to|of|in|on|at|for|from|per|the|a|an|by|with|million|billion|thousand|hundred|percent|per cent|m|bn|k)$/i;

/** The unit a value carries, if any. */
export function unitOfValue(display: string): Unit | null {
  const t = display.trim();
  if (/%|\bper ?cent\b|\bpercent(age)?\b/i.test(t)) return { kind: "percent", word: "%" };
  if (CURRENCY_SYMBOL.test(t)) return { kind: "currency", word: CURRENCY_SYMBOL.exec(t)![0] };
  const m =
    /^[-+(]?\d[\d,.]*\)?\s*(?:(?:thousand|million|billion|m|bn|k)\s+)?([\p{L}][\p{L}-]*)(?:\s+([\p{L}][\p{L}-]*))?/iu.exec(t) ??
    /^([\p{L}]{3})\s+[-+]?\d/u.exec(t);
  if (!m) return null;
  const word = m[1];
  if (NOT_UNITS.test(word)) return null;
  // The unit may follow a qualifier: "10 business days", "3 calendar months".
  for (const w of [word, m[2]].filter((x): x is string => !!x)) {
    if (DURATION.test(w)) return { kind: "duration", word: w };
    if (CURRENCY_WORD.test(w)) return { kind: "currency", word: w };
    if (MEASURE.test(w)) return { kind: "measure", word: w };
  }
  return { kind: "count-noun", word };
}

export interface ExpectedUnit {
  kind: UnitKind | "money-or-quantity";
  /** For "how many <noun>": the noun counted ("products"). */
  noun: string | null;
}

/** What unit the question expects, if it says: "how many products" → a count of products; "how long" → a duration. */
export function expectedUnit(question: string): ExpectedUnit | null {
  const q = question.toLowerCase();
  if (/\b(what|which)\s+(percent(age)?|share|proportion)\b|\bby\s+what\s+percent|\bhow\s+many\s+percent|\bpercentage\b|\bwhat\s+%/.test(q))
    return { kind: "percent", noun: null };
  if (/\bhow\s+long\b|\bhow\s+old\b/.test(q)) return { kind: "duration", noun: null };
  const many = /\bhow\s+many\s+(?:of\s+the\s+)?(?:[a-z-]+\s+){0,2}?([a-z-]+)\b/.exec(q);
  if (many) {
    const noun = countedNounOfQuestion(q) ?? many[1];
    if (DURATION.test(noun)) return { kind: "duration", noun };
    if (CURRENCY_WORD.test(noun)) return { kind: "currency", noun };
    if (/^(percent|percentage|per)$/.test(noun)) return { kind: "percent", noun: null };
    return { kind: "count-noun", noun };
  }
  if (/\bhow\s+much\b/.test(q)) return { kind: "money-or-quantity", noun: null };
  return null;
}

interface TaggedTerm {
  normal: string;
  tags: string[];
}

/** Tags that end the counted noun phrase: "how many concerts | occurred in …", "how many owners | temporarily do …". */
const ENDS_NOUN_PHRASE = new Set([
  "Verb",
  "Preposition",
  "Conjunction",
  "Adverb",
  "Determiner",
  "Negative",
  "Pronoun",
  "QuestionWord",
  "Value",
]);

/**
 * "how many <noun phrase> <verb or preposition> …": the counted noun is the phrase's last word, read with
 * the part-of-speech tagger ("united airlines flights go to" → flights; "concerts occurred in" → concerts),
 * since the verb that ends the phrase can be any verb, not only "are" or "have".
 */
function countedNounOfQuestion(question: string): string | null {
  const m = /\bhow\s+many\s+(?:of\s+the\s+)?(.+)$/.exec(question);
  if (!m) return null;
  const doc = nlp(m[1]) as unknown as { json(opts: object): { terms: TaggedTerm[] }[] };
  let noun: string | null = null;
  for (const term of doc.json({ terms: { normal: true } }).flatMap((sentence) => sentence.terms)) {
    if (term.tags.some((t) => ENDS_NOUN_PHRASE.has(t))) break;
    if (/^[a-z-]+$/.test(term.normal)) noun = term.normal;
  }
  return noun;
}

function sameWord(a: string, b: string): boolean {
  const x = stemmer(a.toLowerCase());
  const y = stemmer(b.toLowerCase());
  return x === y || x.startsWith(y) || y.startsWith(x);
}

/**
 * How well a value's unit agrees with what the question expects: 1 agrees or says nothing either way,
 * CONTRADICTS when the unit is of another kind ("2 years" for "how many products", "EUR" for "how long").
 */
export const UNIT_CONTRADICTS = 0.1;

export function unitAgreement(display: string, expected: ExpectedUnit | null): number {
  if (!expected) return 1;
  const unit = unitOfValue(display);
  if (!unit) return 1;
  switch (expected.kind) {
    case "count-noun":
      if (unit.kind === "count-noun") return expected.noun && sameWord(unit.word, expected.noun) ? 1 : 0.5;
      return UNIT_CONTRADICTS;
    case "duration":
      return unit.kind === "duration" ? 1 : UNIT_CONTRADICTS;
    case "percent":
      return unit.kind === "percent" ? 1 : unit.kind === "count-noun" ? 0.5 : UNIT_CONTRADICTS;
    case "currency":
      return unit.kind === "currency" ? 1 : UNIT_CONTRADICTS;
    case "money-or-quantity":
      return unit.kind === "duration" ? 0.5 : 1;
    default:
      return 1;
  }
}

/**
 * The noun a count column says it counted: "number_of_organisation" → "organisation", "COUNT(DISTINCT
 * dog_id)" → "dog", "order count" → "order"; null for a count that names nothing ("COUNT(*)", "count").
 */
export function countedNounOfColumn(column: string): string | null {
  const call = /^\s*count\s*\(\s*(?:distinct\s+)?([^()]*?)\s*\)\s*$/i.exec(column);
  const text = (call ? call[1] : column)
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .replace(/[^\p{L}\p{N}*]+/gu, " ")
    .trim()
    .toLowerCase();
  const words = text
    .replace(/^(?:number|num|count|cnt|total number|n)\s+of\s+/, "")
    .replace(/^(?:number|num|count|cnt|total)\s+/, "")
    .replace(/\s+(?:count|cnt|number|total)$/, "")
    .replace(/\s+(?:id|key|uuid)$/, "")
    .split(/\s+/)
    .filter((w) => w && w !== "*" && !/^(count|cnt|number|num|n|total|of|distinct)$/.test(w));
  return words.length > 0 ? words.join(" ") : null;
}

/**
 * Whether a count column counted something else than the question asks to count: "number of
 * organisation" for "how many employees …" is the count of the organisation the question names, not
 * of its employees. A count that names nothing, or a question that names no counted noun, agrees.
 */
export function countOfOtherNoun(column: string, expected: ExpectedUnit | null): boolean {
  if (expected?.kind !== "count-noun" || !expected.noun) return false;
  const counted = countedNounOfColumn(column);
  if (!counted) return false;
  return !counted.split(/\s+/).some((w) => sameWord(w, expected.noun!));
}

/** The unit a column header states for its figures: "Warranty (years)" → years, "Hotel cap (EUR)" → EUR. */
export function unitOfColumn(column: string): Unit | null {
  const m = /\(([^()]{1,24})\)\s*$/.exec(column);
  if (!m) return null;
  return unitOfValue(`1 ${m[1].replace(/^in\s+/i, "").trim()}`);
}
