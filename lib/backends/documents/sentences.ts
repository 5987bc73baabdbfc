/** A sentence and where it sits in the text it came from ([start, end) in UTF-16 code units, trimmed). */
export interface SentenceSpan {
  text: string;
  start: number;
  end: number;
}

/**
 * ICU's sentence rules break after every "Dr." or "Fig."; merging after these common English
 * abbreviations keeps "Fig. 2 shows …" one sentence. Other languages get ICU's rules unchanged.
 */
const TITLE_ABBREVIATIONS = new Set(["mr", "mrs", "ms", "dr", "prof", "sr", "jr", "st", "vs", "cf", "approx", "ca", "al", "e.g", "i.e"]);
/** These also end ordinary sentences ("The answer is no."), so they only merge before a number ("No. 5"). */
const NUMBER_ABBREVIATIONS = new Set(["fig", "figs", "eq", "eqs", "no", "nos", "vol", "ref", "refs", "sec", "tab", "p", "pp"]);

/** Collapses runs of whitespace (including the line breaks of wrapped text) into single spaces. */
export function normalizeWhitespace(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

function endsWithAbbreviation(sentence: string, next: string): boolean {
  const m = /(?:^|[\s(])([A-Za-z][A-Za-z.]*)\.$/.exec(sentence.trimEnd());
  if (!m) return false;
  const word = m[1].toLowerCase();
  return TITLE_ABBREVIATIONS.has(word) || (NUMBER_ABBREVIATIONS.has(word) && /^\s*\d/.test(next));
}

/**
 * Splits text into sentences with Intl.Segmenter (ICU rules, built into Node). Text without sentence
 * punctuation (a PDF dump, a list of words) can form one enormous "sentence"; such spans longer than
 * `maxSentenceChars` are cut at the last space before the limit so a passage stays readable and bounded.
 */
export function splitSentences(text: string, language: string, maxSentenceChars = 2_100): SentenceSpan[] {
  const segmenter = new Intl.Segmenter(language, { granularity: "sentence" });
  const english = language.toLowerCase().startsWith("en");
  const raw: { start: number; end: number }[] = [];
  for (const s of segmenter.segment(text)) {
    const start = s.index;
    const end = s.index + s.segment.length;
    const previous = raw[raw.length - 1];
    if (english && previous && endsWithAbbreviation(text.slice(previous.start, previous.end), s.segment)) {
      previous.end = end;
    } else {
      raw.push({ start, end });
    }
  }
  const out: SentenceSpan[] = [];
  for (const span of raw) {
    for (const piece of cutOverlong(text, span.start, span.end, maxSentenceChars)) {
      const trimmed = trimSpan(text, piece.start, piece.end);
      if (trimmed) out.push(trimmed);
    }
  }
  return out;
}

function trimSpan(text: string, start: number, end: number): SentenceSpan | null {
  let s = start;
  let e = end;
  while (s < e && /\s/.test(text[s])) s++;
  while (e > s && /\s/.test(text[e - 1])) e--;
  return s < e ? { text: text.slice(s, e), start: s, end: e } : null;
}

function cutOverlong(text: string, start: number, end: number, max: number): { start: number; end: number }[] {
  const pieces: { start: number; end: number }[] = [];
  let s = start;
  while (end - s > max) {
    const space = text.lastIndexOf(" ", s + max);
    // No space in the window (one giant token): cut hard rather than keep an unbounded passage.
    const cut = space > s ? space : s + max;
    pieces.push({ start: s, end: cut });
    s = cut;
  }
  pieces.push({ start: s, end });
  return pieces;
}
