import { normalizeLabel, terms } from "@/lib/pipeline/text";

/**
 * A document search text as people read it: each word once, as first written, leaving out any word
 * whose stem an earlier word already has. The pipeline's search texts carry every keyword followed by
 * its stem ("returned orders refund policy polici return order"); the collection's index stems words
 * itself, so "policy" and "polici" find the same passages (the search counts them as one term:
 * backends/documents/fts-query.ts) and the stems are noise to a reader.
 */
export function searchTextForPeople(text: string, language = "en"): string {
  // A trailing bracketed note (how the search ran: "[hybrid search: BM25 + vectors …]") is shown as written.
  const note = /\s*(\[[^\]]*\])\s*$/.exec(text);
  const words = note ? text.slice(0, note.index) : text;
  const seen = new Set<string>();
  const out: string[] = [];
  for (const word of words.split(/\s+/)) {
    const key = normalizeLabel(word);
    if (!key) continue;
    const stem = terms(key, language).join(" ") || key;
    if (seen.has(stem)) continue;
    seen.add(stem);
    out.push(word);
  }
  return note ? `${out.join(" ")} ${note[1]}`.trim() : out.join(" ");
}
