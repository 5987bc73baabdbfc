import { terms } from "../../../text";
import { singularIrregulars } from "../lexicon";

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
// Numeric comparisons are read once, by understand (understand/comparisons.ts), into the Intent's constructs.

export type { ComparisonOp } from "../../../contracts";

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
