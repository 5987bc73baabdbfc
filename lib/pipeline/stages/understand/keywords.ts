import { isStopword, terms, words } from "../../text";

/** Keywords per question, enough for any BM25 query; a 10,000-character question is cut here. */
export const MAX_KEYWORDS = 64;

/**
 * Content words for BM25: each word as written (lower-cased, stopwords and question scaffolding such
 * as "many" in "how many" dropped) followed by its stem when that differs ("orders", "order"), so a
 * consumer can match either raw words or terms(); Bm25Index re-tokenizes and de-duplicates anyway.
 */
export function extractKeywords(text: string, language: string, scaffold: Set<string>): string[] {
  const out = new Set<string>();
  for (const w of words(text)) {
    if (out.size >= MAX_KEYWORDS) break;
    if (isStopword(w, language) || scaffold.has(w)) continue;
    out.add(w);
    const stem = terms(w, language)[0];
    if (stem && stem !== w) out.add(stem);
  }
  return [...out].slice(0, MAX_KEYWORDS);
}
