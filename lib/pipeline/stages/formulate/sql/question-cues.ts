import { terms } from "../../../text";
import { singularIrregulars } from "../lexicon";
import type { Intent } from "../../../contracts";

/**
 * Cues SQL formulation reads from the question's wording besides the intent: where words are (to tie
 * an aggregate, a comparison or a time cue to the nearest column), numeric comparisons ("capacity
 * between 5000 and 10000", "older than 30", "above the average"), quoted phrases ("'Hey'") and
 * negated relations ("stadiums without any concert").
 */

export interface PositionedTerm {
  term: string;
  /** Character offset of the word. */
  at: number;
}

/** Every word of the question with its stemmed term ("" for stopwords) and offset. */
export function positionedTerms(question: string): PositionedTerm[] {
  const out: PositionedTerm[] = [];
  for (const m of question.matchAll(/[\p{L}\p{N}_]+/gu)) {
    const irregular = singularIrregulars(m[0]);
    if (irregular !== m[0]) {
      out.push({ term: terms(irregular)[0] ?? "", at: m.index });
      continue;
    }
    // A quoted schema identifier ("unitsInStock") is several words, each at its own offset.
    const parts = [
      ...m[0]
        .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
        .replace(/_/g, " ")
        .matchAll(/\S+/g),
    ];
    if (parts.length <= 1) {
      const [term = ""] = terms(m[0].replace(/_/g, " "));
      out.push({ term, at: m.index });
      continue;
    }
    let offset = 0;
    for (const part of parts) {
      const [term = ""] = terms(part[0]);
      out.push({ term, at: m.index + offset });
      offset += part[0].length;
    }
  }
  return out;
}

/**
 * Distance in words from the character offset `at` to the nearest occurrence of any of `wanted`,
 * looking `before` words back and `after` words ahead; Infinity when none is that close.
 */
export function wordDistance(words: PositionedTerm[], at: number, wanted: string[], before = 4, after = 4): number {
  const set = new Set(wanted);
  let index = words.findIndex((w) => w.at >= at);
  if (index < 0) index = words.length;
  let bestDistance = Infinity;
  for (let i = Math.max(0, index - before); i < Math.min(words.length, index + after + 1); i++) {
    if (set.has(words[i].term)) bestDistance = Math.min(bestDistance, Math.abs(i - index));
  }
  return bestDistance;
}

// ---------------------------------------------------------------------------------------------
// Numeric comparisons

export type ComparisonOp = ">" | "<" | ">=" | "<=" | "=" | "between";

export interface NumericComparison {
  op: ComparisonOp;
  /** One number, two for between; none when compared with the average. */
  values: number[];
  /** Compared with the column's own average ("older than average"). */
  withAverage: boolean;
  /** Offset of the phrase, for finding the column next to it. */
  at: number;
  /** Words between the comparator and the number ("above age 20" → age), or the comparative adjective. */
  attribute: string;
  text: string;
}

/**
 * A number as questions write it: "$25", "€1,500.50", "25" (the currency sign and thousands separators
 * are how amounts are written, not part of the value: "a freight charge over $25" compares with 25).
 */
const NUMBER = String.raw`[$€£¥]?\s?(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)`;

/** The value of a NUMBER capture: "1,500.50" → 1500.5. */
function numberValue(text: string): number {
  return Number(text.replace(/,/g, ""));
}
const GAP = String.raw`((?:[\p{L}_]+\s+){0,2}?)`;
const GREATER = String.raw`more\s+than|greater\s+than|larger\s+than|bigger\s+than|higher\s+than|over|above|exceeding|(?:[\p{L}]+er)\s+than`;
const LESS = String.raw`less\s+than|fewer\s+than|smaller\s+than|lower\s+than|under|below`;

const PATTERNS: { re: RegExp; op: ComparisonOp }[] = [
  { re: new RegExp(String.raw`\bbetween\s+${NUMBER}\s+and\s+${NUMBER}`, "giu"), op: "between" },
  {
    re: new RegExp(String.raw`\b(?:at\s+least|no\s+(?:less|fewer)\s+than|not\s+(?:less|fewer)\s+than)\s+${GAP}${NUMBER}`, "giu"),
    op: ">=",
  },
  { re: new RegExp(String.raw`\b(?:at\s+most|no\s+more\s+than|not\s+more\s+than|up\s+to)\s+${GAP}${NUMBER}`, "giu"), op: "<=" },
  { re: new RegExp(String.raw`\b(?:${LESS})\s+${GAP}${NUMBER}`, "giu"), op: "<" },
  { re: new RegExp(String.raw`\b(${GREATER})\s+${GAP}${NUMBER}`, "giu"), op: ">" },
];

/** Comparative adjectives that mean "less" ("younger than 30", "cheaper than 100"). */
const LESS_ADJECTIVES = /^(?:young|cheap|small|light|short|low|slow|early|few|less)/i;

function yearLike(n: number, text: string): boolean {
  return Number.isInteger(n) && n >= 1000 && n <= 2999 && /^\d{4}$/.test(text);
}

/**
 * "zero units on order", "a unitsOnOrder of zero": the word is the number 0. Written as the digit padded
 * to the word's length, so positions in the question still hold. Other number words stay words: "one"
 * is as often a pronoun ("the one with …") as a count.
 */
function zeroAsDigit(question: string): string {
  return question.replace(/\bzero\b/gi, "0   ");
}

/**
 * The numeric comparisons of the question. Numbers the intent already reads as time (years in time
 * cues) or as part of an entity are left to those.
 */
export function numericComparisons(intent: Pick<Intent, "completed" | "time" | "entities">): NumericComparison[] {
  const question = zeroAsDigit(intent.completed);
  const taken = new Set(
    [...intent.time.map((t) => t.text), ...intent.entities.map((e) => e.mention)].flatMap((t) => t.match(/\d+(?:\.\d+)?/g) ?? []),
  );
  const out: NumericComparison[] = [];
  const covered: [number, number][] = [];
  for (const { re, op } of PATTERNS) {
    for (const m of question.matchAll(re)) {
      const start = m.index;
      const end = start + m[0].length;
      if (covered.some(([a, b]) => start < b && end > a)) continue;
      if (op === "between") {
        const values = [numberValue(m[1]), numberValue(m[2])];
        out.push({ op, values, withAverage: false, at: start, attribute: "", text: m[0] });
      } else {
        const groups = m.slice(1).filter((g) => g !== undefined);
        const numberText = groups[groups.length - 1];
        const gap = (groups[groups.length - 2] ?? "").trim();
        const comparator = op === ">" ? groups[0] : "";
        if (taken.has(numberText) && yearLike(numberValue(numberText), numberText)) continue;
        const adjective = /^([\p{L}]+er)\s+than$/iu.exec(comparator ?? "")?.[1] ?? "";
        // "other than 5", "rather than 5" compare nothing.
        if (/^(?:other|rather)$/i.test(adjective)) continue;
        const realOp: ComparisonOp = op === ">" && adjective && LESS_ADJECTIVES.test(adjective) ? "<" : op;
        out.push({
          op: realOp,
          values: [numberValue(numberText)],
          withAverage: false,
          at: start,
          attribute: [adjective, gap].filter(Boolean).join(" "),
          text: m[0],
        });
      }
      covered.push([start, end]);
    }
  }
  const average =
    /\b(?:(more|greater|larger|bigger|higher|[\p{L}]+er)\s+than|above|over|(less|fewer|smaller|lower)\s+than|below|under)\s+(?:the\s+)?(?:average|mean)(?:\s+([\p{L}_]+))?/giu;
  for (const m of question.matchAll(average)) {
    const lessWord = m[2] !== undefined || /\b(?:below|under)\b/i.test(m[0]);
    const adjective = m[1] && !/^(?:more|greater|larger|bigger|higher)$/i.test(m[1]) ? m[1] : "";
    const less = lessWord || (adjective !== "" && LESS_ADJECTIVES.test(adjective));
    out.push({
      op: less ? "<" : ">",
      values: [],
      withAverage: true,
      at: m.index,
      attribute: [adjective, m[3] ?? ""].filter(Boolean).join(" "),
      text: m[0],
    });
  }
  // "with 4 cylinders": a count followed by what it counts; "grade 9 or 10": a column word and its values.
  // Both are equalities, kept only when the word names a numeric column (checked by the caller).
  const equalities: [RegExp, (m: RegExpMatchArray) => { values: number[]; attribute: string }][] = [
    // "with 0 units on order": the words after "on"/"in" tell apart units on order from units in stock.
    // "an age of 20 and …" counts nothing: a conjunction is not what a number counts.
    // "with '0' units on order": a quoted count is still a count.
    [
      /\b(?:with|has|have|having|of)\s+(?:exactly\s+)?['"‘“]?(\d+)['"’”]?\s+(?!(?:and|or|but)\b)([\p{L}_]+(?:\s+(?:on|in)\s+[\p{L}_]+)?)/giu,
      (m) => ({ values: [Number(m[1])], attribute: m[2] }),
    ],
    // "a reorder level of 10", "an age of 20", "reorder levels set at 30", "a 'unitsInStock' of exactly 50":
    // the attribute (quoted or not), then its value.
    [
      /\b([\p{L}_]+(?:\s+[\p{L}_]+)?)['"’”]?\s+(?:of|equal\s+to|set\s+(?:at|to))\s+(?:exactly\s+)?(\d+(?:\.\d+)?)\b(?!\s*(?:%|percent|or\s+(?:more|less|fewer|greater|higher|lower|above|below)))/giu,
      (m) => ({ values: [Number(m[2])], attribute: m[1] }),
    ],
    [
      /\b([\p{L}_]+)\s+(\d+(?:\.\d+)?)(?:\s+or\s+(\d+(?:\.\d+)?))?\b/giu,
      (m) => ({ values: [Number(m[2]), ...(m[3] ? [Number(m[3])] : [])], attribute: m[1] }),
    ],
  ];
  for (const [re, read] of equalities) {
    for (const m of question.matchAll(re)) {
      const start = m.index ?? 0;
      const end = start + m[0].length;
      const numbers = m[0].match(/\d+(?:\.\d+)?/g) ?? [];
      if (covered.some(([a, b]) => start < b && end > a) || numbers.some((n) => taken.has(n))) continue;
      covered.push([start, end]);
      out.push({ op: "=", withAverage: false, at: start, text: m[0], ...read(m) });
    }
  }
  // The question's own words in each comparison's text: "of zero", not "of 0" (a match ends after the digit, inside the word).
  const wordEnd = (end: number) => end + (/^\p{L}*/u.exec(intent.completed.slice(end))?.[0].length ?? 0);
  return out.map((c) => ({ ...c, text: intent.completed.slice(c.at, wordEnd(c.at + c.text.length)) })).sort((a, b) => a.at - b.at);
}

// ---------------------------------------------------------------------------------------------
// Quoted phrases and negation

/** Phrases the question quotes ('Hey', "Star Wars"): matched as text, not linked as entities. */
export function quotedPhrases(question: string): { text: string; at: number }[] {
  const out: { text: string; at: number }[] = [];
  for (const m of question.matchAll(/(?:^|[\s(])['"‘“]([^'"‘’“”]{1,80})['"’”](?=[\s,.?!)]|$)/gu))
    out.push({ text: m[1].trim(), at: m.index });
  return out.filter((q) => q.text.length > 0);
}

/** "starting with the letter 'L'": a word for the text itself may stand between the cue and the quote. */
const TEXT_WORD = String.raw`(?:\s+(?:the|a|an)\s+(?:word|letters?|characters?|string|text|phrase|digits?|numbers?|prefix|suffix))?`;
const PREFIX_CUE = new RegExp(String.raw`\b(?:starts?|starting|begins?|beginning|began)\s+with${TEXT_WORD}\s*$`, "i");
const SUFFIX_CUE = new RegExp(String.raw`\b(?:ends?|ending|ended)\s+(?:with|in)${TEXT_WORD}\s*$`, "i");

/** Where a quoted phrase must sit in the text: anywhere, at its start, or at its end. */
export type TextAnchor = "contains" | "prefix" | "suffix";

/**
 * "cities starting with 'L'", "a phone number ending in '8'": the words right before a quoted phrase
 * (its offset from quotedPhrases) anchor it to the start or the end of the text; otherwise it may be anywhere.
 */
export function textAnchor(question: string, at: number): TextAnchor {
  const before = question.slice(Math.max(0, at - 60), at + 1);
  if (PREFIX_CUE.test(before)) return "prefix";
  if (SUFFIX_CUE.test(before)) return "suffix";
  return "contains";
}

const NEGATION =
  /\b(?:without\s+(?:any\s+|a\s+|an\s+)?|(?:do|does|did|have|has|had)\s+not\s+(?:have\s+)?(?:any\s+|a\s+|an\s+)?|(?:have|has|had|with)\s+no\s+|never\s+(?:had\s+)?(?:any\s+|a\s+|an\s+)?)([\p{L}_]+)/giu;

const LACKED =
  /\b(?:without\s+(?:any\s+|a\s+|an\s+)?|(?:do|does|did|have|has|had)\s+not\s+(?:have\s+)?(?:any\s+|a\s+|an\s+)?|(?:do|does|did)n't\s+have\s+(?:any\s+|a\s+|an\s+)?|(?:have|has|had|with)\s+no\s+|lacks?\s+(?:a\s+|an\s+)?|(?:is|are)\s+missing\s+(?:a\s+|an\s+)?)((?:[\p{L}_]+)(?:\s+[\p{L}_]+){0,2})/giu;

/**
 * The noun phrases the question says the answers lack, up to three words each, with their offsets:
 * "suppliers that do not have a fax number" → "fax number", "with no listed phone number" → "listed phone number".
 */
export function lackedPhrases(question: string): { text: string; at: number }[] {
  return (
    [...question.matchAll(LACKED)]
      // "do not have the type 'Live final'": a particular value is negated, not a property lacked.
      .filter((m) => !/^(?:the|this|that|these|those)\b/i.test(m[1]) && !/^\s*["'‘“\d]/u.test(question.slice(m.index + m[0].length)))
      .map((m) => ({ text: m[1], at: m.index + m[0].length - m[1].length }))
  );
}

/** Terms of what the question says the answers lack ("stadiums without any concert" → concert). */
export function negatedTerms(question: string): string[][] {
  return [...question.matchAll(NEGATION)].map((m) => terms(m[1])).filter((t) => t.length > 0);
}
