import type { Constructs } from "../../contracts";

/**
 * The nouns whose rows a question counts: "how many films", "the number of vendors" (a count), "the
 * director with the most films" (a ranking by a count). Formulation finds the table each names, by its
 * words or, failing them, by meaning (formulate/noun-tables.ts).
 */

/** The noun after a count phrase, up to two words ("count the number of films": the noun after "number of"). */
export const COUNTED_NOUN =
  /\b(?:how\s+many|number\s+of|count\s+of|count(?!\s+the\s+(?:total\s+)?number\b)\s+the)\s+(?:the\s+|different\s+|distinct\s+)?([\p{L}_]+(?:\s+[\p{L}_]+)?)/iu;

/** The noun after a ranking by count ("the most films", "the greatest number of orders"), up to two words. */
const RANKED_NOUN =
  /\b(?:most|fewest|least|greatest\s+number\s+of|largest\s+number\s+of|highest\s+number\s+of|smallest\s+number\s+of)\s+(?:number\s+of\s+)?([\p{L}_]+(?:\s+[\p{L}_]+)?)/iu;

export function countNouns(question: string): Constructs["countNouns"] {
  const out: Constructs["countNouns"] = [];
  for (const [kind, re] of [
    ["count", COUNTED_NOUN],
    ["rank", RANKED_NOUN],
  ] as const) {
    const m = re.exec(question);
    if (m) out.push({ kind, noun: m[1], at: m.index + m[0].length - m[1].length });
  }
  return out;
}

/**
 * The texts a count noun is compared with table names by meaning: the phrase ("tv channels") and its
 * first word, the noun itself when a verb follows it ("films released").
 */
export function countedNounWords(noun: string): string[] {
  const phrase = noun.trim().toLowerCase();
  const first = phrase.split(/\s+/)[0] ?? phrase;
  return [...new Set([phrase, first])];
}

/**
 * Whether a count noun names a kind of row rather than a thing by name: "Acme Air flights" holds a
 * name (a value of some column, placed by the value index), and a name's meaning is not the meaning of a table
 * ("air" is close to an airlines table, but the flights are counted). Only such kinds are linked by meaning;
 * an acronym ("TV channels") is not a name.
 */
export function namesAKind(noun: string): boolean {
  return !/\b\p{Lu}\p{Ll}/u.test(noun);
}
