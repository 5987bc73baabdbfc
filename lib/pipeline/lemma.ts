import nlp from "compromise";
import { stemmer } from "stemmer";
import { isStopword, terms, words } from "./text";

/**
 * Relation words meet their schema names through lemmas, not just stems: Porter leaves irregular verbs
 * and agent nouns apart ("makes" → make, "made" → made, "maker" → maker), so "Who makes the Fjord Down
 * Jacket?" missed the predicate "made by". compromise knows the irregular conjugations; an agent noun
 * ("maker", "director", "founder") is its verb when compromise reads the stripped word as a verb.
 * Used for relation linking only: a handful of words per question and schema, memoized.
 */
const cache = new Map<string, string>();
const CACHE_LIMIT = 20_000;

/** "direct" alone reads as an adjective; after "to" it reads as the verb it also is. */
function isVerb(word: string): boolean {
  return nlp(word).has("#Verb") || nlp(`to ${word}`).match(word).has("#Verb");
}

function verbRoot(word: string): string | null {
  const doc = nlp(word);
  if (!doc.has("#Verb")) return null;
  doc.compute("root");
  const root = (doc.json() as { terms?: { root?: string }[] }[])[0]?.terms?.[0]?.root;
  return typeof root === "string" && /^[a-z]+$/.test(root) ? root : null;
}

/** The lemma of one lower-case word: a verb's infinitive, an agent noun's verb, else the word. */
export function lemma(word: string): string {
  const hit = cache.get(word);
  if (hit !== undefined) return hit;
  let out = word;
  if (/^[a-z]{3,}$/.test(word)) {
    const root = verbRoot(word);
    if (root) out = root;
    else if (/(?:er|or)$/.test(word) && word.length > 4) {
      // "maker" → make, "writer" → write, "director" → direct, "founder" → found.
      out = [word.slice(0, -1), word.slice(0, -2)].find((base) => base.length >= 3 && isVerb(base)) ?? word;
    }
  }
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(word, out);
  return out;
}

/** Content terms through lemma then stem, comparable with each other (not with `terms`). */
export function lemmaTerms(text: string): string[] {
  return words(text)
    .filter((w) => !isStopword(w, "en"))
    .map((w) => (/^[a-z]+$/.test(w) ? stemmer(lemma(w)) : w));
}

/** `terms` and `lemmaTerms` together: a bag to test coverage against, where either form may match. */
export function lemmaBag(text: string): Set<string> {
  return new Set([...terms(text), ...lemmaTerms(text)]);
}
