import { unknownWords } from "../../spelling";
import { isStopword, normalizeLabel } from "../../text";
import type { EntityLink } from "../../contracts";
import type { Token } from "./tokens";

/**
 * Misspelt question words read as the catalog's words: "How many oders were retruned?" is asked about
 * the table "orders" and the value "returned". A word is corrected only when it is lower case (names
 * have their own fuzzy linking), at least five letters (shorter words are too often one slip from
 * another), unknown to an English dictionary (a real word the catalog lacks, "different", stays), and
 * unknown to every source as written, and only to a one-word label of a source a slip or two away
 * (entity-lookup.ts fuzzyMatchScore). The words ride along in the question's one entity lookup; only
 * a question with a correction is analysed again, as corrected.
 */
export interface Correction {
  from: string;
  to: string;
  start: number;
  end: number;
}

/** Words tried per question at most: a question is short; a pasted text is not proofread. */
const MAX_TRIED_WORDS = 6;
const MIN_WORD_LETTERS = 5;

/** The question's words worth a fuzzy lookup: lower case, five letters or more, not stopwords; the first few. */
export function spellingCandidates(tokens: Token[]): Set<string> {
  const words = tokens.filter((t) => t.text.length >= MIN_WORD_LETTERS && /^\p{Ll}+$/u.test(t.text) && !isStopword(t.lower, "en"));
  return new Set([...new Set(words.map((t) => t.text))].slice(0, MAX_TRIED_WORDS));
}

/**
 * The corrections the links of the candidate words allow (the lookup matched them fuzzily when nothing
 * matched outright): a word with a nearby one-word label and none exact is checked against the
 * dictionary (loaded on first need), and corrected when the dictionary does not know it either.
 */
export async function spellingCorrections(
  tokens: Token[],
  candidates: Set<string>,
  links: Map<string, EntityLink[]>,
): Promise<Correction[]> {
  const nearby = new Map<string, string>();
  for (const word of candidates) {
    const key = normalizeLabel(word);
    const found = links.get(word) ?? [];
    // A source that has the word as written (or inflected) knows it: nothing to correct.
    if (found.some((l) => normalizeLabel(l.label) === key || l.score >= 0.9)) continue;
    const best = found.find((l) => /^\p{L}+$/u.test(normalizeLabel(l.label)));
    if (best) nearby.set(word, normalizeLabel(best.label));
  }
  if (!nearby.size) return [];
  const unknown = new Set(await unknownWords([...nearby.keys()]));
  return tokens.filter((t) => unknown.has(t.text)).map((t) => ({ from: t.text, to: nearby.get(t.text)!, start: t.start, end: t.end }));
}

/** The text with each correction put in place of the word it corrects. */
export function applyCorrections(text: string, corrections: Correction[]): string {
  let out = text;
  for (const c of [...corrections].sort((a, b) => b.start - a.start)) out = out.slice(0, c.start) + c.to + out.slice(c.end);
  return out;
}

/** "Read “oders” as “orders” and “retruned” as “returned”": for the trace. */
export function correctionNote(corrections: Correction[]): string {
  const pairs = [...new Map(corrections.map((c) => [c.from, `“${c.from}” as “${c.to}”`])).values()];
  const list = pairs.length > 1 ? `${pairs.slice(0, -1).join(", ")} and ${pairs.at(-1)}` : pairs[0];
  return `Read ${list}: neither the dictionary nor any source knows the word${pairs.length > 1 ? "s" : ""} as typed.`;
}
