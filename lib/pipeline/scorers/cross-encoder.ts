import type { CrossEncoder } from "../../models/types";
import type { EvidenceScorer } from "../contracts";

/** Logit → probability: scorers are read as "higher is better, 0 is irrelevant" and compared as ratios. */
export function sigmoid(x: number): number {
  return 1 / (1 + Math.exp(-x));
}

/**
 * Quasar's re-ranker: a cross-encoder reads the question and each piece together and gives a relevance
 * logit. The pairs go to the runtime in one request; it batches them (with other runs' pairs) by
 * length. A failure (the model is busy, timed out or crashed) falls back to `fallback`, the best
 * fusion available without it, and the trace says so.
 */
export function crossEncoderScorer(model: CrossEncoder, fallback: EvidenceScorer): EvidenceScorer & { fallback: EvidenceScorer } {
  return {
    name: "cross-encoder",
    fallback,
    async score(intent, pieces, signal) {
      if (!pieces.length) return [];
      const question = intent.completed || intent.question;
      const logits = await model.score(
        pieces.map((p) => [question, p.text] as [string, string]),
        { signal },
      );
      return logits.map(sigmoid);
    },
  };
}
