import { RunCancelledError, type StageStrategy } from "../../stage";
import type { Critique } from "../../contracts";
import { type CritiqueInput, analyzeRound } from "./analysis";
import { validate } from "./checks";
import { type Check } from "./types";
import { comment } from "./commentor";

export { type CritiqueInput, analyzeRound, type RoundAnalysis } from "./analysis";
export { CHECKS, validate } from "./checks";
export { type Check } from "./types";
export { CONSTRUCT_CHECKS, answerQueryOf, constructChecks, constructFeedback } from "./construct-checks";
export { RULES, alreadyGiven, comment } from "./commentor";
export { describeChange } from "./describe-change";

/** Name of the extra check that explains why the critic stopped without feedback. */
export const STOP_CHECK = "corrective feedback";
/** Name of the check that accepts an answer of "none" from a filtered query that found nothing. */
export const EMPTY_RESULT_CHECK = "empty result stated with its conditions";

/**
 * HybGRAG's critic: the validator's checks, then (when a check failed and rounds remain) the
 * commentor's one corrective feedback. Outcomes:
 * - every check passes → accepted, no feedback;
 * - a check fails, a round remains and a feedback not tried before applies → not accepted, that feedback;
 * - a check fails but every applicable feedback was already tried (or none applies) → accepted, no
 *   feedback: another round would repeat itself. A refusal is not "accepted" this way: the run keeps its
 *   best earlier answer instead (run.ts replaces its best round with an accepted one);
 * - the last round → not accepted (unless every check passed), no feedback: the loop ends.
 * The reason for stopping is an extra check with the explanation.
 */
export function critique(input: CritiqueInput): Critique {
  // "None": the committed query found no rows under the question's conditions. Another round would
  // only drop a condition and answer about everything else (issue 32).
  const none = input.answer.emptyResult;
  if (none && !input.answer.refrained) {
    return {
      accepted: true,
      checks: [
        {
          name: EMPTY_RESULT_CHECK,
          passed: true,
          detail: `The answer query on ${none.kbName} found no rows for ${none.conditions.join(", ")}; the answer says so.`,
        },
      ],
      feedback: null,
    };
  }
  const analysis = analyzeRound(input);
  const checks = validate(analysis);
  if (checks.every((c) => c.passed)) return { accepted: true, checks, feedback: null };
  if (input.round >= input.maxRounds) {
    const stop: Check = {
      name: STOP_CHECK,
      passed: false,
      detail: `Round ${input.round} of ${input.maxRounds}: no round left for corrective feedback; the run keeps its best answer.`,
    };
    return { accepted: false, checks: [...checks, stop], feedback: null };
  }
  const { feedback, skipped } = comment(analysis, checks);
  if (feedback) return { accepted: false, checks, feedback };
  const tried =
    skipped.length > 0
      ? `already tried: ${skipped.map((f) => `${f.type}${f.target ? ` '${f.target}'` : ""}`).join(", ")}`
      : "no corrective feedback applies to the failed checks";
  const refused = input.answer.refrained;
  const stop: Check = {
    name: STOP_CHECK,
    passed: !refused,
    detail: refused
      ? `No useful feedback remains (${tried}); the refusal stands and the run keeps its best answer.`
      : `No useful feedback remains (${tried}); another round would repeat itself, so the answer is accepted as it stands.`,
  };
  return { accepted: !refused, checks: [...checks, stop], feedback: null };
}

export const classicalCritique: StageStrategy<CritiqueInput, Critique> = {
  name: "classical",
  async run(input, ctx) {
    if (ctx.signal.aborted) throw new RunCancelledError();
    const result = critique(input);
    const failed = result.checks.filter((c) => !c.passed).map((c) => c.name);
    ctx.trace({
      stage: "critique",
      type: "INFO",
      strategy: "classical",
      summary: result.accepted
        ? `accepted${failed.length ? ` (failed: ${failed.join(", ")})` : ""}`
        : result.feedback
          ? `feedback ${result.feedback.type}${result.feedback.target ? ` '${result.feedback.target}'` : ""}: ${result.feedback.detail}`
          : `not accepted, no feedback (failed: ${failed.join(", ")})`,
      payload: result,
    });
    return result;
  },
};
