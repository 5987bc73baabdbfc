import nlp from "compromise";
import { normalizeLabel } from "../../text";

/** A word of the question with its character offsets and what compromise thinks it is. */
export interface Token {
  /** Position in the token list. */
  i: number;
  text: string;
  /** Lower-cased surface form. */
  lower: string;
  /** normalizeLabel(text): the entity-index key of this word. */
  norm: string;
  start: number;
  end: number;
  /** Compromise part-of-speech tags ("Noun", "ProperNoun", "Place", "Verb", "QuestionWord"...). */
  tags: Set<string>;
  /** Text between the previous token and this one (",", " ", "'", "? "). */
  gapBefore: string;
}

/** Words, numbers and joined forms ("FIN-04", "2.5", "U.S"); apostrophes split ("Tom's" → "Tom", "s"). */
const TOKEN = /[\p{L}\p{N}]+(?:[.\-&/][\p{L}\p{N}]+)*/gu;
/** Past this many characters the rest of a question is not tagged (bounded work for huge input). */
export const MAX_TAGGED_CHARS = 1_000;

export function tokenize(text: string, maxTokens = Number.POSITIVE_INFINITY): Token[] {
  const tokens: Token[] = [];
  let prevEnd = 0;
  for (const m of text.matchAll(TOKEN)) {
    if (tokens.length >= maxTokens) break;
    const start = m.index ?? 0;
    const t = m[0];
    tokens.push({
      i: tokens.length,
      text: t,
      lower: t.toLowerCase(),
      norm: normalizeLabel(t),
      start,
      end: start + t.length,
      tags: new Set(),
      gapBefore: text.slice(prevEnd, start),
    });
    prevEnd = start + t.length;
  }
  tagTokens(text, tokens);
  return tokens;
}

interface CompromiseTerm {
  text: string;
  tags: string[];
  offset?: { start: number; length: number };
}

/** Attaches compromise's tags to our tokens by character offset (its tokenization differs slightly). */
function tagTokens(text: string, tokens: Token[]): void {
  if (!tokens.length) return;
  const limit = Math.min(text.length, MAX_TAGGED_CHARS);
  let terms: CompromiseTerm[];
  try {
    const doc = nlp(text.slice(0, limit)) as unknown as { json(opts: object): { terms: CompromiseTerm[] }[] };
    terms = doc.json({ offset: true, terms: { offset: true } }).flatMap((s) => s.terms);
  } catch {
    return; // tagging is a refinement; questions are still analysed without it
  }
  let k = 0;
  for (const term of terms) {
    if (!term.offset) continue;
    const tStart = term.offset.start;
    const tEnd = tStart + term.offset.length;
    while (k < tokens.length && tokens[k].end <= tStart) k++;
    for (let j = k; j < tokens.length && tokens[j].start < tEnd; j++) for (const tag of term.tags) tokens[j].tags.add(tag);
  }
}

export const isNumberToken = (t: Token) => /^\d+(?:[.,]\d+)*$/.test(t.text);
/** "Tent", "Lindqvist", "AB" — not "CEO"-style all-caps words, which compromise must vouch for. */
export const isTitleCase = (t: Token) => /^\p{Lu}[\p{Ll}\p{N}]/u.test(t.text) || /^\p{Lu}$/u.test(t.text);

/** Tokens i..j-1 are adjacent words with nothing but spaces between them (no comma, no "?"). */
export function contiguous(tokens: Token[], i: number, j: number): boolean {
  for (let k = i + 1; k < j; k++) if (!/^[ \t]+$/.test(tokens[k].gapBefore)) return false;
  return true;
}

/** The possessive/contraction tail split off by an apostrophe ("Tom's" → "s", "don't" → "t"). */
export function isApostropheTail(t: Token): boolean {
  return /['’]$/.test(t.gapBefore) && /^(s|t|d|ll|re|ve|m)$/i.test(t.text);
}
