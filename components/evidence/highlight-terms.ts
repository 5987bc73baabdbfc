/**
 * Which words of a piece of evidence to mark as matching the question. Question words are compared by
 * prefix in both directions ("product" ~ "products", "recycl" ~ "recycled") so the stems the pipeline
 * keeps as keywords also match; short and function words never match.
 */

const STOP = new Set(
  "a an and are as at be been being but by can could did do does for from had has have how i if in into is it its many much of on or our per than that the their them then there these they this those to was we were what when where which who whom whose why will with would you your about after before between during over under up down out via".split(
    " ",
  ),
);

const WORD = /[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu;

export function questionTerms(question: string, keywords: readonly string[] = []): string[] {
  const words = [...question.matchAll(WORD)].map((m) => m[0].toLowerCase());
  const terms = new Set<string>();
  for (const w of [...words, ...keywords.map((k) => k.toLowerCase())]) {
    if (w.length < 3 || STOP.has(w)) continue;
    terms.add(w);
  }
  return [...terms];
}

function matches(word: string, term: string): boolean {
  if (word === term) return true;
  if (word.length < 3) return false;
  const [short, long] = word.length <= term.length ? [word, term] : [term, word];
  // A prefix of at least 4 letters that covers most of the shorter word: "product"/"products", not "or"/"order".
  return short.length >= 4 && long.startsWith(short) && long.length - short.length <= 4;
}

export interface Segment {
  text: string;
  hit: boolean;
}

export function markTerms(text: string, terms: readonly string[]): Segment[] {
  if (!terms.length) return [{ text, hit: false }];
  const out: Segment[] = [];
  let last = 0;
  for (const m of text.matchAll(WORD)) {
    const word = m[0].toLowerCase();
    if (STOP.has(word) || !terms.some((t) => matches(word, t))) continue;
    const start = m.index ?? 0;
    if (start > last) out.push({ text: text.slice(last, start), hit: false });
    out.push({ text: m[0], hit: true });
    last = start + m[0].length;
  }
  if (last < text.length) out.push({ text: text.slice(last), hit: false });
  return out;
}
