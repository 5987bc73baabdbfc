import { isStopword } from "../../text";
import { PARTICLES, WH_WORDS } from "./lexicon";
import { type Token, contiguous, isApostropheTail, isNumberToken, isTitleCase } from "./tokens";

/** A span of the question that may name something in a KB. */
export interface MentionCandidate {
  text: string;
  start: number;
  end: number;
  /** Token range [first, last + 1). */
  from: number;
  to: number;
  words: number;
  /** A name by form: capitalised words, a quoted string, or what compromise tags a person/place/organisation. */
  proper: boolean;
}

/** Mentions are generated from this many tokens at most (a 10,000-character question stays cheap). */
export const MAX_MENTION_TOKENS = 150;
export const MAX_NGRAM_WORDS = 5;
const MAX_QUOTED_CHARS = 120;
/** Words that join a name's parts ("Bank of America", "Ludwig van Beethoven"). */
const NAME_JOINERS = new Set(["of", "de", "van", "von", "der", "den", "la", "le", "du", "da", "di", "&"]);
const NAME_TAGS = ["ProperNoun", "Person", "Place", "Organization", "Acronym"];
const NOT_NAME_TAGS = ["QuestionWord", "Pronoun", "Date", "Month", "WeekDay"];

/** Looks like a year; numbers inside names ("Summit 2 Tent", "Daypack 22") are fine. */
const isYear = (t: Token) => /^(1[5-9]|2[01])\d\d$/.test(t.text);

export function isNameToken(t: Token, sentenceStart: boolean): boolean {
  if (NOT_NAME_TAGS.some((tag) => t.tags.has(tag)) || WH_WORDS.has(t.lower)) return false;
  if (isStopword(t.lower, "en") && !NAME_TAGS.some((tag) => t.tags.has(tag))) return false;
  // The first word of a sentence is capitalised anyway; only compromise can say it is a name.
  if (sentenceStart) return NAME_TAGS.some((tag) => t.tags.has(tag)) && /^\p{Lu}/u.test(t.text);
  // A capitalised verb or adverb mid-sentence is emphasis or a heading ("the Operating income").
  if (isTitleCase(t))
    return !(t.tags.has("Verb") || t.tags.has("Gerund") || t.tags.has("Adverb")) || NAME_TAGS.some((tag) => t.tags.has(tag));
  // All-caps words are names only when compromise agrees ("IBM", not "CEO").
  return /^\p{Lu}{2,}\d*$/u.test(t.text) && NAME_TAGS.some((tag) => t.tags.has(tag));
}

const startsSentence = (t: Token) => t.i === 0 || /[.?!:;]\s*$/.test(t.gapBefore) || /["“(]\s*$/.test(t.gapBefore);

function candidate(text: string, tokens: Token[], from: number, to: number, proper: boolean): MentionCandidate {
  const start = tokens[from].start;
  const end = tokens[to - 1].end;
  return { text: text.slice(start, end), start, end, from, to, words: to - from, proper };
}

/**
 * Maximal runs of name words, with numbers inside or closing them ("Trail Runner 2") and joiners
 * between name words ("Bank of America"); years and blocked tokens end a run.
 */
export function properSpans(text: string, tokens: Token[], blocked: (t: Token) => boolean): MentionCandidate[] {
  const out: MentionCandidate[] = [];
  const name = tokens.map((t) => !blocked(t) && isNameToken(t, startsSentence(t)));
  let i = 0;
  while (i < tokens.length) {
    if (!name[i]) {
      i++;
      continue;
    }
    let j = i + 1;
    while (j < tokens.length && contiguous(tokens, j - 1, j + 1) && !blocked(tokens[j])) {
      if (name[j]) j++;
      else if (isNumberToken(tokens[j]) && !isYear(tokens[j])) j++;
      else if (NAME_JOINERS.has(tokens[j].lower) && name[j + 1] && contiguous(tokens, j, j + 2)) j += 2;
      else break;
    }
    // A lone capital letter ("Vitamin D", "plan B") is part of a phrase, not a name of its own.
    if (j - i > 1 || tokens[i].text.length > 1) out.push(candidate(text, tokens, i, j, true));
    i = j;
  }
  return out;
}

/** Quoted strings: 'the "Storm Shell" jacket' names something exactly. */
export function quotedSpans(text: string, tokens: Token[]): MentionCandidate[] {
  const out: MentionCandidate[] = [];
  for (const m of text.matchAll(/["“”«»]([^"“”«»]{2,120})["“”«»]|(?<![\p{L}\p{N}])['‘]([^'‘’]{2,120})['’](?![\p{L}\p{N}])/gu)) {
    const inner = m[1] ?? m[2];
    const innerStart = (m.index ?? 0) + 1;
    const innerEnd = innerStart + inner.length;
    const from = tokens.findIndex((t) => t.start >= innerStart);
    let to = from;
    while (to >= 0 && to < tokens.length && tokens[to].end <= innerEnd) to++;
    if (from < 0 || to <= from || inner.length > MAX_QUOTED_CHARS) continue;
    out.push(candidate(text, tokens, from, to, true));
  }
  return out;
}

/**
 * Every word n-gram (1..5 words) that could be a label: contiguous, not starting with a stopword, not
 * ending with one (a closing preposition is kept: "made by", "chief executive of" are predicate
 * labels), not only numbers, no possessive tail inside.
 */
export function ngramSpans(text: string, tokens: Token[], blocked: (t: Token) => boolean): MentionCandidate[] {
  const out: MentionCandidate[] = [];
  const n = Math.min(tokens.length, MAX_MENTION_TOKENS);
  for (let i = 0; i < n; i++) {
    const first = tokens[i];
    if (blocked(first) || isStopword(first.lower, "en") || WH_WORDS.has(first.lower) || isApostropheTail(first)) continue;
    for (let len = 1; len <= MAX_NGRAM_WORDS && i + len <= n; len++) {
      const last = tokens[i + len - 1];
      if (blocked(last) || (len > 1 && (isApostropheTail(last) || !contiguous(tokens, i, i + len)))) break;
      const span = tokens.slice(i, i + len);
      if (span.every(isNumberToken)) continue;
      if (isStopword(last.lower, "en") && !(len > 1 && PARTICLES.has(last.lower))) continue;
      if (len === 1 && first.norm.length < 2) continue;
      out.push(candidate(text, tokens, i, i + len, false));
    }
  }
  return out;
}
