import type { Constructs } from "../../contracts";

/**
 * The phrases a question quotes ('Hey', "Star Wars"), read once by understand into the Intent's
 * constructs (constructs.quoted): matched as text, not linked as entities, each with where in the text
 * it must sit ("cities starting with 'L'" → at the start).
 */

/** "starting with the letter 'L'": a word for the text itself may stand between the cue and the quote. */
const TEXT_WORD = String.raw`(?:\s+(?:the|a|an)\s+(?:word|letters?|characters?|string|text|phrase|digits?|numbers?|prefix|suffix))?`;
const PREFIX_CUE = new RegExp(String.raw`\b(?:starts?|starting|begins?|beginning|began)\s+with${TEXT_WORD}\s*$`, "i");
const SUFFIX_CUE = new RegExp(String.raw`\b(?:ends?|ending|ended)\s+(?:with|in)${TEXT_WORD}\s*$`, "i");

export type TextAnchor = Constructs["quoted"][number]["anchor"];

/** Phrases the question quotes, with the offset of the character before the opening quote. */
export function quotedPhrases(question: string): { text: string; at: number }[] {
  const out: { text: string; at: number }[] = [];
  for (const m of question.matchAll(/(?:^|[\s(])['"‘“]([^'"‘’“”]{1,80})['"’”](?=[\s,.?!)]|$)/gu))
    out.push({ text: m[1].trim(), at: m.index });
  return out.filter((q) => q.text.length > 0);
}

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

export function quotedConstructs(question: string): Constructs["quoted"] {
  return quotedPhrases(question).map((q) => ({ ...q, anchor: textAnchor(question, q.at) }));
}
