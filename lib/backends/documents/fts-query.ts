import { isStopword } from "./stopwords";

/** Upper bound on query terms: a pasted page of text must not turn into a thousand-way OR. */
export const MAX_QUERY_TERMS = 48;

/** Words as FTS5's unicode61 tokenizer sees them: runs of letters, digits and combining marks. */
const WORD = /[\p{L}\p{N}\p{M}]+/gu;

export function queryTerms(text: string, language: string): string[] {
  const words = (text.normalize("NFKC").match(WORD) ?? []).map((w) => w.toLowerCase());
  const unique = [...new Set(words)];
  const content = unique.filter((w) => !isStopword(w, language));
  // A question made only of function words ("Who are The Who?") still searches for them.
  return (content.length > 0 ? content : unique).slice(0, MAX_QUERY_TERMS);
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
