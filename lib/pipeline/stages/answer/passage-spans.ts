import nlp from "compromise";
import * as chrono from "chrono-node";
import { capitalizedSpans } from "../../../backends/documents/entity-spans";
import { CURRENCY_CODE_PATTERN, CURRENCY_SYMBOL_PATTERN, CURRENCY_WORD_PATTERN } from "../../../data/currencies";
import { isStopword, normalizeLabel } from "../../text";
import { parseNumber } from "./value-key";
import { type ValueType, isYearLike, namesInSentence } from "./value-types";

/** A typed span of a sentence that may answer a question. */
export interface Span {
  text: string;
  type: ValueType;
  start: number;
  end: number;
  /** ISO date components that are known ("2025-04"), for dates. */
  iso?: string;
}

/** One capitalized word, not an acronym or a mixed-case brand ("NASDAQ", "LinkedIn"), with an optional possessive. */
const DEFINED_TERM = /^\p{Lu}\p{Ll}+(?:['’]s)?$/u;

/** A word the lexicon knows as a place, organisation or person ("the Munich store", "the Netherlands"): a name after "the" all the same. */
function knownProperNoun(word: string): boolean {
  return nlp(word.replace(/['’]s$/, "").toLowerCase()).has("#ProperNoun");
}

/** A date must be written out (a year, a month name, a numeric date); "after ten years" or "last Friday" are relative to an unknown "now". */
const EXPLICIT_DATE = /\b\d{4}\b|\b(jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\b|\b\d{1,2}[/.]\d{1,2}[/.]\d{2,4}\b/i;
/** A bare year after a preposition of time ("in 2019", "since 2004"). */
const PREPOSITIONAL_YEAR = /\b(?:in|since|from|until|till|by|before|after|during|of)\s+((?:1[5-9]|20)\d\d)\b/gi;
const MONTHS = /^(january|february|march|april|may|june|july|august|september|october|november|december)$/i;

const PERCENT = /[-+]?\d[\d,]*(?:\.\d+)?\s?(?:%|percent\b|per cent\b)/gi;
/** A sum of money: a symbol or code before the figure ("€ 1,200", "USD (3.4) million"), or a word or code after it ("12 million euros"). */
const MONEY = new RegExp(
  `(?:(?:${CURRENCY_SYMBOL_PATTERN})\\s?|\\b(?:${CURRENCY_CODE_PATTERN})\\s?)(?:\\(\\d[\\d,]*(?:\\.\\d+)?\\)|\\d[\\d,]*(?:\\.\\d+)?)(?:\\s?(?:million|billion|thousand|mn|bn|m|k)\\b)?` +
    `|\\b\\d[\\d,]*(?:\\.\\d+)?(?:\\s?(?:million|billion|thousand))?\\s?(?:${CURRENCY_WORD_PATTERN}|${CURRENCY_CODE_PATTERN})\\b`,
  "gi",
);
const NUMBER = /(?<![\w.])[-+]?\d[\d,]*(?:\.\d+)?(?:\s(?:million|billion|thousand|hundred))?(?![\w])/g;
const WORD_NUMBERS: Record<string, number> = {
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  thirteen: 13,
  fourteen: 14,
  fifteen: 15,
  sixteen: 16,
  seventeen: 17,
  eighteen: 18,
  nineteen: 19,
  twenty: 20,
};
const WORD_NUMBER = new RegExp(`\\b(${Object.keys(WORD_NUMBERS).join("|")})\\b`, "gi");
/** Prepositions end a unit: "15 stores across Europe" counts stores. */
const PREPOSITIONS = new Set(
  "across along among around behind beyond despite except inside near outside over past per since than through throughout toward towards under underneath unlike versus via within without".split(
    " ",
  ),
);
/** At most this many lower-case words after a number are its unit ("10 business days"). */
const MAX_UNIT_WORDS = 2;

function isoOf(result: chrono.ParsedResult): string | undefined {
  const c = result.start;
  if (!c.isCertain("year") || !/\b\d{4}\b/.test(result.text)) return undefined;
  const pad = (n: number | null) => String(n ?? 0).padStart(2, "0");
  let iso = String(c.get("year"));
  if (c.isCertain("month")) iso += `-${pad(c.get("month"))}`;
  if (c.isCertain("month") && c.isCertain("day")) iso += `-${pad(c.get("day"))}`;
  return iso;
}

/** Words after a number that name what is counted or measured: "10 business days", "two stores". */
function unitAfter(sentence: string, end: number): string {
  const words = /^((?:\s+[\p{Ll}][\p{Ll}-]*){1,2})/u.exec(sentence.slice(end))?.[1].trim().split(/\s+/) ?? [];
  const unit: string[] = [];
  for (const w of words.slice(0, MAX_UNIT_WORDS)) {
    if (isStopword(w, "en") || PREPOSITIONS.has(w)) break;
    unit.push(w);
  }
  return unit.join(" ");
}

const spanCache = new Map<string, Span[]>();
const MAX_CACHED_SENTENCES = 2_000;

/**
 * Dates, money, percentages, other numbers (with their units) and capitalized names in one sentence.
 * With `nameKinds`, names are typed person/organisation/location by compromise (a parse of the
 * sentence); otherwise they are "entity". Memoized: the critic's later rounds read the same sentences.
 */
export function sentenceSpans(sentence: string, language = "en", nameKinds = true): Span[] {
  const key = `${nameKinds ? 1 : 0}${language}\u0000${sentence}`;
  const cached = spanCache.get(key);
  if (cached) return cached;
  const spans = findSpans(sentence, language, nameKinds);
  if (spanCache.size >= MAX_CACHED_SENTENCES) spanCache.clear();
  spanCache.set(key, spans);
  return spans;
}

function findSpans(sentence: string, language: string, nameKinds: boolean): Span[] {
  const spans: Span[] = [];
  const free = (start: number, end: number) => spans.every((s) => end <= s.start || start >= s.end);
  const add = (span: Span) => {
    if (span.text.trim() && free(span.start, span.end)) spans.push(span);
  };

  for (const r of chrono.parse(sentence)) {
    if (!EXPLICIT_DATE.test(r.text)) continue;
    const text = r.text.replace(/^(on|in|at|from|since|by)\s+/i, "");
    const start = r.index + (r.text.length - text.length);
    add({ text, type: "date", start, end: start + text.length, iso: isoOf(r) });
  }
  for (const m of sentence.matchAll(PREPOSITIONAL_YEAR)) {
    const start = m.index + m[0].length - m[1].length;
    add({ text: m[1], type: "date", start, end: start + m[1].length, iso: m[1] });
  }
  for (const m of sentence.matchAll(PERCENT)) add({ text: m[0], type: "percent", start: m.index, end: m.index + m[0].length });
  for (const m of sentence.matchAll(MONEY)) add({ text: m[0].trim(), type: "money", start: m.index, end: m.index + m[0].trim().length });
  const capitalized = capitalizedSpans(sentence, language);
  const names = nameKinds && capitalized.length > 0 ? namesInSentence(sentence) : null;
  let from = 0;
  for (const name of capitalized) {
    if (MONTHS.test(name)) continue;
    const start = sentence.indexOf(name, from);
    if (start < 0) continue;
    // Model names carry numbers that split capitalized runs: "Trail Runner 2", "Expedition 65 Backpack".
    const tail = /^(?:\s\d+(?:\s\p{Lu}[\p{L}\d-]*)*)+/u.exec(sentence.slice(start + name.length))?.[0] ?? "";
    const full = name + tail;
    from = start + full.length;
    // "the Company", "the Group's", "our Board": a document's defined term for itself or its parts, not a name.
    if (
      !tail &&
      DEFINED_TERM.test(full) &&
      /\b(?:the|our|its|their)\s+$/i.test(sentence.slice(Math.max(0, start - 8), start)) &&
      !knownProperNoun(full)
    )
      continue;
    const key = normalizeLabel(full);
    const covered = (set: Set<string>) => [...set].some((n) => n === key || n.includes(key) || key.includes(n));
    const type: ValueType = !names
      ? "entity"
      : covered(names.person)
        ? "person"
        : covered(names.organisation)
          ? "organisation"
          : covered(names.location)
            ? "location"
            : "entity";
    add({ text: full, type, start, end: start + full.length });
  }

  for (const m of sentence.matchAll(NUMBER)) {
    const unit = unitAfter(sentence, m.index + m[0].length);
    // A lone year-like number with nothing counted after it ("2025 was a strong year") is a date.
    const type: ValueType = isYearLike(m[0]) && !unit ? "date" : "number";
    const text = type === "number" && unit ? `${m[0]} ${unit}` : m[0];
    add({ text, type, start: m.index, end: m.index + text.length, ...(type === "date" ? { iso: m[0] } : {}) });
  }
  for (const m of sentence.matchAll(WORD_NUMBER)) {
    const unit = unitAfter(sentence, m.index + m[0].length);
    if (!unit) continue; // "one" alone is usually a pronoun ("the one that…").
    add({ text: `${m[0]} ${unit}`, type: "number", start: m.index, end: m.index + m[0].length + 1 + unit.length });
  }

  return spans.sort((a, b) => a.start - b.start);
}

/** The number a word-number span stands for ("two stores" → 2), so it agrees with "2" elsewhere. */
export function spanNumber(span: Span): number | null {
  const first = span.text.split(/\s+/)[0].toLowerCase();
  return WORD_NUMBERS[first] ?? parseNumber(span.text);
}
