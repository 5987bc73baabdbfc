import type { EvidencePiece } from "../../backends/types";
import type { EvidenceScorer, Intent } from "../contracts";

/**
 * A scorer made of named parts; rerank records each part's score beside the total, for the trace and the UI.
 * `repeated`, per piece, is the share of `total` that repeats what a search engine already ranked the
 * piece by (its words, the collection's sentence vector, the rounds before); the rest is new evidence.
 * Rerank reorders a search's results only where the new evidence tells them apart (stages/rerank). A
 * scorer that gives none is taken to be all new evidence.
 */
export interface CompositeScorer extends EvidenceScorer {
  scoreParts(
    intent: Intent,
    pieces: EvidencePiece[],
    signal?: AbortSignal,
    previous?: number[],
  ): Promise<{ total: number[]; parts: Record<string, number[]>; repeated?: number[] }>;
}

export function isCompositeScorer(scorer: EvidenceScorer): scorer is CompositeScorer {
  return typeof (scorer as Partial<CompositeScorer>).scoreParts === "function";
}
