import { isStopword, terms } from "../../text";

/**
 * The part of a sentence that answers a "what does X consist of / how is X stated / what is X related
 * to" question: a report sentence usually restates the question's subject and verb first ("Goodwill
 * consists of …", "Land, property and equipment are stated at cost, net of …") and the answer is what
 * follows. The restated lead is found as the sentence's opening words that the question itself uses
 * (a few other words allowed: "primarily", "our"); the linking words after it are dropped.
 */

/** Words that join the restated lead to the answer: verbs of being and relating, and their prepositions. */
const LINKING = new Set([
  "is",
  "are",
  "was",
  "were",
  "be",
  "been",
  "being",
  "of",
  "to",
  "by",
  "as",
  "primarily",
  "mainly",
  "principally",
  "largely",
  "generally",
  "typically",
  "also",
  "that",
  "which",
]);
/** Opening words that are not the subject: footnote marks, connectives. */
const OPENERS = /^(\(\w{1,3}\)|\d{1,2}\.|in addition,?|additionally,?|however,?|further(more)?,?|also,?)\s+/i;
/** At most this many words of the lead may be words the question does not use. */
const MAX_FOREIGN = 2;
/** The lead restates at least this many of the question's content words. */
const MIN_RESTATED = 2;

export function answerComplement(sentence: string, question: string, language = "en"): string | null {
  const qTerms = new Set(terms(question, language));
  let text = sentence.trim();
  for (let m = OPENERS.exec(text); m; m = OPENERS.exec(text)) text = text.slice(m[0].length);
  const tokens = [...text.matchAll(/\S+/g)].map((m) => ({ word: m[0], start: m.index, end: m.index + m[0].length }));
  let restated = 0;
  let foreign = 0;
  let leadEnd = -1;
  for (let i = 0; i < tokens.length; i++) {
    const word = tokens[i].word.replace(/[^\p{L}\p{N}'’-]/gu, "").toLowerCase();
    if (!word) continue;
    const t = terms(word, language);
    if (t.length === 0 || isStopword(word, language)) continue;
    if (t.some((x) => qTerms.has(x))) {
      restated++;
      leadEnd = i;
      continue;
    }
    if (LINKING.has(word)) continue;
    // Once the lead restates the question, a word of its own starts the answer: "Tax fees comprise fees for preparation of tax returns" answers from "for preparation", though "tax" comes again.
    if (restated >= MIN_RESTATED) break;
    foreign++;
    if (foreign > MAX_FOREIGN) break;
  }
  if (restated < MIN_RESTATED || leadEnd < 0) return null;
  let k = leadEnd + 1;
  while (k < tokens.length && LINKING.has(tokens[k].word.toLowerCase().replace(/[^\p{L}]/gu, ""))) k++;
  if (k >= tokens.length) return null;
  const rest = text
    .slice(tokens[k].start)
    .replace(/[.;:]\s*$/, "")
    .trim();
  // An answer of a word or two is a fragment ("it"), and one that ends where the question does restates nothing new.
  return rest.split(/\s+/).length >= 2 ? rest : null;
}
