import { stemmer } from "stemmer";
import { isStopword } from "./stopwords";

/** Upper bound on query terms: a pasted page of text must not turn into a thousand-way OR. */
export const MAX_QUERY_TERMS = 48;

/** Words as FTS5's unicode61 tokenizer sees them: runs of letters, digits and combining marks. */
const WORD = /[\p{L}\p{N}\p{M}]+/gu;

/**
 * The token the index stores for a word: the index's tokenizer is "porter unicode61", whose Porter
 * stemmer rewrites ASCII words only. Two query words with one token ("drugs", "drug") are one term:
 * quoted twice, BM25 would count that token twice, so a question whose keywords come with their
 * stems (as formulation writes them) weighs the words that have a distinct stem double and the others
 * single, an order that has nothing to do with the words' importance (SciFact claims, seed 2, 300: BM25
 * alone NDCG@10 65.7 with the repeats, 70.1 without).
 */
export function indexToken(word: string): string {
  return /^[a-z]+$/.test(word) ? stemmer(word) : word;
}

/** Words with one index token counted once, the first spelling kept. */
function distinctTokens(words: string[]): string[] {
  const tokens = new Set<string>();
  return words.filter((w) => {
    const token = indexToken(w);
    return !tokens.has(token) && (tokens.add(token), true);
  });
}

export function queryTerms(text: string, language: string): string[] {
  const words = (text.normalize("NFKC").match(WORD) ?? []).map((w) => w.toLowerCase());
  const content = distinctTokens(words.filter((w) => !isStopword(w, language)));
  // A question made only of function words ("Who are The Who?") still searches for them.
  return (content.length > 0 ? content : distinctTokens(words)).slice(0, MAX_QUERY_TERMS);
}

/**
 * Turns free text into an FTS5 MATCH expression that can only mean "any of these words": every term
 * is a quoted FTS5 string, so operators (AND, NEAR, NOT), column filters (`col:`), prefixes (`*`),
 * parentheses and stray quotes in the user's text are plain words or are dropped, never syntax.
 * Returns null when the text has no searchable word.
 */
export function buildFtsQuery(text: string, language: string): string | null {
  const terms = queryTerms(text, language);
  if (terms.length === 0) return null;
  return terms.map((t) => `"${t.replace(/"/g, '""')}"`).join(" OR ");
}
