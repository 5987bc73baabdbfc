import type { Constructs } from "../../contracts";

/**
 * What a question says its answers lack, read once by understand into the Intent's constructs: the
 * noun phrase after "do not have", "with no", "lacks" (constructs.lacked: a property missing, "suppliers
 * that do not have a fax number"), and the word after "without any", "never had" (constructs.without:
 * related rows missing, "stadiums without any concert"); and its converse, what the answers have some of
 * (constructs.existence: "dogs that went through any treatments", "at least one order").
 */

const WITHOUT =
  /\b(?:without\s+(?:any\s+|a\s+|an\s+)?|(?:do|does|did|have|has|had)\s+not\s+(?:have\s+)?(?:any\s+|a\s+|an\s+)?|(?:have|has|had|with)\s+no\s+|never\s+(?:had\s+)?(?:any\s+|a\s+|an\s+)?)([\p{L}_]+)/giu;

const LACKED =
  /\b(?:without\s+(?:any\s+|a\s+|an\s+)?|(?:do|does|did|have|has|had)\s+not\s+(?:have\s+)?(?:any\s+|a\s+|an\s+)?|(?:do|does|did)n't\s+have\s+(?:any\s+|a\s+|an\s+)?|(?:have|has|had|with)\s+no\s+|lacks?\s+(?:a\s+|an\s+)?|(?:is|are)\s+missing\s+(?:a\s+|an\s+)?)((?:[\p{L}_]+)(?:\s+[\p{L}_]+){0,2})/giu;

/**
 * The noun phrases the question says the answers lack, up to three words each, with their offsets:
 * "suppliers that do not have a fax number" → "fax number", "with no listed phone number" → "listed phone number".
 */
export function lackedPhrases(question: string): Constructs["lacked"] {
  return (
    [...question.matchAll(LACKED)]
      // "do not have the type 'Live final'": a particular value is negated, not a property lacked.
      .filter((m) => !/^(?:the|this|that|these|those)\b/i.test(m[1]) && !/^\s*["'‘“\d]/u.test(question.slice(m.index + m[0].length)))
      .map((m) => ({ text: m[1], at: m.index + m[0].length - m[1].length }))
  );
}

/** The word whose related rows the answers lack ("stadiums without any concert" → concert). */
export function withoutWords(question: string): string[] {
  return [...question.matchAll(WITHOUT)].map((m) => m[1]);
}

const EXISTS = /\b(?:any|some|at\s+least\s+one)\s+([\p{L}_]+(?:\s+[\p{L}_]+)?)/giu;

/**
 * What the question says the answers have some of ("went through any treatments" → "treatments"), one or
 * two words after "any", "some", "at least one": outside what it asks for (`ask`: "list any two …" is
 * not a condition), and not negated ("without any", "not … any" are lacked rows, read above).
 */
export function existencePhrases(question: string, ask: Constructs["ask"]): Constructs["existence"] {
  const out: Constructs["existence"] = [];
  for (const m of question.matchAll(EXISTS)) {
    const at = m.index ?? 0;
    if (ask && at >= ask.start && at < ask.end) continue;
    if (/\b(?:no|not|without|never|n't)\s+(?:\w+\s+){0,2}$/i.test(question.slice(Math.max(0, at - 30), at))) continue;
    out.push({ text: m[1], at: at + m[0].length - m[1].length });
  }
  return out;
}
