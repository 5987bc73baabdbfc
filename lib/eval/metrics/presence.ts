import { answerTokens, numberStates, parseNumberToken, shownDecimals } from "./normalize";

/**
 * Answer presence (Quasar's AP@k): is a gold answer among the top-k evidence pieces of a ranking? A
 * piece holds an answer when the answer's normalized tokens occur in it as a contiguous phrase, or, for
 * a numeric answer, when one of the piece's numbers states it at the precision it was written with
 * (evidence shows "76.67" for an average of 76.666…).
 */

export interface PreparedAnswer {
  tokens: string[];
  number: number | null;
}

/** At most this many gold answers are looked for (a result of 5,000 rows would make every check slow). */
const MAX_ANSWERS = 200;

export function prepareAnswers(answers: string[]): PreparedAnswer[] {
  const out: PreparedAnswer[] = [];
  for (const a of answers.slice(0, MAX_ANSWERS)) {
    const tokens = answerTokens(a);
    if (!tokens.length) continue;
    const numeric = tokens.filter((t) => t !== "percent");
    const number = numeric.length === 1 && Number.isFinite(Number(numeric[0])) ? Number(numeric[0]) : null;
    out.push({ tokens, number });
  }
  return out;
}

function containsPhrase(haystack: string[], needle: string[]): boolean {
  if (needle.length > haystack.length) return false;
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return true;
  }
  return false;
}

export function holdsAnswer(text: string, answers: PreparedAnswer[]): boolean {
  if (!answers.length) return false;
  const tokens = answerTokens(text);
  let numbers: { value: number; decimals: number }[] | null = null;
  for (const a of answers) {
    if (containsPhrase(tokens, a.tokens)) return true;
    if (a.number !== null) {
      numbers ??= text
        .split(/[\s:;|=]+/)
        .map((raw) => ({ n: parseNumberToken(raw), raw }))
        .filter((x) => x.n !== null)
        .map((x) => ({ value: x.n!.value, decimals: shownDecimals(x.raw) }));
      if (numbers.some((n) => numberStates(n.value, n.decimals, a.number!))) return true;
    }
  }
  return false;
}

/** 1-based rank of the first piece holding an answer, or null. */
export function presenceRank(texts: string[], answers: PreparedAnswer[]): number | null {
  if (!answers.length) return null;
  for (let i = 0; i < texts.length; i++) if (holdsAnswer(texts[i], answers)) return i + 1;
  return null;
}

/** The k values AP@k is reported at (Quasar reports the pool and each re-ranking round's cut). */
export const PRESENCE_KS = [1, 5, 10, 30, 100, 1000] as const;
