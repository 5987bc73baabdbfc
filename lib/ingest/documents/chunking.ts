import type { SentenceSpan } from "../../backends/documents/sentences";

/** A passage: consecutive whole sentences of one text segment. */
export interface SentenceChunk {
  /** Index of the chunk's first sentence in the input list. */
  firstSentence: number;
  sentences: SentenceSpan[];
  /** From the first sentence's start to the last sentence's end, in the same coordinates as the spans. */
  start: number;
  end: number;
}

/**
 * Greedy packing of whole sentences into passages of at most `maxChars` (measured start to end, so
 * the separators count). A sentence never splits: one longer than `maxChars` becomes a passage alone.
 * No overlap: every sentence is in exactly one passage, so passages can be stitched back into the
 * document's sentence list by their first sentence index.
 */
export function chunkSentences(sentences: SentenceSpan[], maxChars: number): SentenceChunk[] {
  const chunks: SentenceChunk[] = [];
  let current: SentenceChunk | null = null;
  sentences.forEach((sentence, i) => {
    if (current && sentence.end - current.start <= maxChars) {
      current.sentences.push(sentence);
      current.end = sentence.end;
      return;
    }
    current = { firstSentence: i, sentences: [sentence], start: sentence.start, end: sentence.end };
    chunks.push(current);
  });
  return chunks;
}
