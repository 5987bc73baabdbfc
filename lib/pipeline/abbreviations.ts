/**
 * Abbreviations a text defines in parentheses ("Apolipoprotein E4 (APOE4)", "value added tax (VAT)"):
 * the short form and the words before it that spell it, found as Schwartz & Hearst (2003) do. The
 * short form's letters and digits are matched right to left against the preceding words, its first
 * one at the start of a word; the long form starts at that word. Scientific and business writing
 * defines its abbreviations this way, and a passage may then use either name for the one thing.
 */
export interface Abbreviation {
  long: string;
  short: string;
}

/** A short form: one or two words, at most ten characters, a letter among them, starting with a letter or digit. */
const SHORT_FORM = /^[\p{L}\p{N}][^\s()]*(?:\s[^\s()]+)?$/u;
const MAX_SHORT_CHARS = 10;

export function definedAbbreviations(text: string): Abbreviation[] {
  const out: Abbreviation[] = [];
  for (const m of text.matchAll(/\(([^()]{1,20})\)/g)) {
    const short = m[1].trim();
    if (short.length < 2 || short.length > MAX_SHORT_CHARS || !SHORT_FORM.test(short) || !/\p{L}/u.test(short)) continue;
    const before = text.slice(0, m.index).trimEnd();
    // Schwartz & Hearst look back at most min(|short| + 5, 2 |short|) words.
    const words = before.split(/\s+/);
    const window = words.slice(-Math.min(short.length + 5, 2 * short.length)).join(" ");
    const long = longFormFor(short, window);
    if (long && long.length > short.length) out.push({ long, short });
  }
  return out;
}

const isAlnum = (c: string | undefined) => c !== undefined && /[\p{L}\p{N}]/u.test(c);

/** The shortest end of `candidate` whose letters spell `short` in order, its first letter starting a word; null when none does. */
function longFormFor(short: string, candidate: string): string | null {
  const s = short.toLowerCase();
  const l = candidate.toLowerCase();
  let li = l.length - 1;
  for (let si = s.length - 1; si >= 0; si--) {
    const c = s[si];
    if (!isAlnum(c)) continue;
    while (li >= 0 && (l[li] !== c || (si === 0 && isAlnum(l[li - 1])))) li--;
    if (li < 0) return null;
    li--;
  }
  const start = l.lastIndexOf(" ", li + 1) + 1;
  return candidate.slice(start).replace(/[\s,;:]+$/, "") || null;
}
