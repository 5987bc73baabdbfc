import type { Answer, Intent, QueryResult, ScoredEvidence } from "../../contracts";
import type { ScoredCandidate } from "./score";

export interface AnswerInput {
  intent: Intent;
  /** The selected evidence, best first (about 30 pieces). */
  evidence: ScoredEvidence[];
  /**
   * Refrain below this confidence. Default: the pipeline config's `answerThreshold` (0.35). With the
   * scoring in score.ts, one top-ranked piece that points squarely at a value of the right type gives
   * 0.65; a value of merely plausible type (an untyped name for "who") about 0.45; a value only a
   * mid-ranked piece supports, or two values supported equally, fall below 0.35. So the default keeps
   * "at least one strong piece, or two weaker ones that agree" and refuses guesses.
   */
  threshold?: number;
  /** The committed answer query's result (select-evidence): when set, it is the answer (result-answer.ts). */
  result?: QueryResult | null;
  /** What the result's source says about the tables it read (descriptions): where the unit of its figures may be stated. */
  sourceTexts?: string[];
}

export interface AnswerResult {
  answer: Answer;
  /** Every scored candidate, best first (the answer keeps the top 5). */
  ranked: ScoredCandidate[];
  /** Notes for the trace: counted answers and list gathering. */
  notes: string[];
}
