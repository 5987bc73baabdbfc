import type { QuestionResult } from "./types";

/** The quick "was it right" flag of a result: the answer for answerable questions, the decision for the others. */
export function correctOf(r: QuestionResult): boolean | null {
  if (r.scores.p1 !== null) return r.scores.p1;
  if (r.gold.unanswerable) return r.refrain.correctDecision;
  if (r.execution) return r.execution.match;
  if (r.retrieval) return r.retrieval.ranks.some((x) => x !== null && x <= 10);
  return null;
}
