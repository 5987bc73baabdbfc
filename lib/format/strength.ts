/**
 * Scores in words. Business users read the candidate sources and guides a run used; the numbers behind
 * them (selection scores, guide similarities) are the pipeline's own scales, kept in the run's trace.
 */

/** A candidate source's score against the best one of the same run: the best is the best match. */
export function matchAgainstBest(score: number, best: number): "Best match" | "Good match" | "Weak match" {
  if (best <= 0 || score >= best) return "Best match";
  return score / best >= 0.5 ? "Good match" : "Weak match";
}

/** A guide's similarity to the question (0..1, 1 = the guide's own question). */
export function guideLikeness(similarity: number): string {
  if (similarity >= 0.9) return "the same question";
  if (similarity >= 0.5) return "a similar question";
  return "a related question";
}
