import type { Answer, Critique } from "../contracts";
import { CHECKS, CONSTRUCT_CHECKS, STOP_CHECK } from "../stages/critique/classical";

/**
 * The critic's last word holds (issue 32): an answer the critic did not accept in the round the run
 * keeps is never shown as a plain answer. When the critic found that the answer is not what the
 * question asks (a value of another kind, evidence that never mentions what the question names, a named value, "not"
 * or "per" the query left out) the run
 * refrains and says so; when it only could not tie the answer to the question's words in the evidence,
 * the answer is shown at most as "not certain", with the critic's reason. The confidence is left as
 * the answer stage gave it: how often a rejected answer is still right differs by kind of source (the
 * critic cannot tie a right table figure to the question's words as often as it can a query result),
 * and the calibrator, which reads the verdict among its features, says what it means.
 */

/** Failed checks that mean the answer is about something else than the question asks. */
const NOT_THE_QUESTION = new Set<string>([
  CHECKS.answerType,
  CHECKS.entitiesCited,
  CONSTRUCT_CHECKS.filters,
  CONSTRUCT_CHECKS.negation,
  CONSTRUCT_CHECKS.grouping,
]);

/** The failed checks that say why, most telling first (the stop note and the refusal check add nothing). */
function failedChecks(critique: Critique): Critique["checks"] {
  const failed = critique.checks.filter((c) => !c.passed && c.name !== STOP_CHECK && c.name !== CHECKS.notRefused);
  return [...failed.filter((c) => NOT_THE_QUESTION.has(c.name)), ...failed.filter((c) => !NOT_THE_QUESTION.has(c.name))];
}

/** The critic's reason in one sentence a person can read. */
export function criticReason(critique: Critique): string | null {
  const first = failedChecks(critique)[0];
  if (first) return first.detail;
  return critique.feedback?.detail ?? null;
}

export function withCriticVerdict(answer: Answer, critique: Critique): Answer {
  if (answer.refrained || critique.accepted) return answer;
  const failed = failedChecks(critique);
  const reason = criticReason(critique) ?? "the check of the answer against the evidence did not pass";
  const confidence = answer.confidence;
  if (failed.some((c) => NOT_THE_QUESTION.has(c.name))) {
    const found = answer.text.length > 80 ? `${answer.text.slice(0, 77)}…` : answer.text;
    return {
      text: "Not found in the sources.",
      refrained: true,
      reason: `What was found ('${found}') does not answer the question as asked: ${reason}`,
      confidence,
      citations: [],
      candidates: answer.candidates,
    };
  }
  return {
    ...answer,
    confidence,
    certainty: "uncertain",
    reason: `Not certain — the answer could not be checked against the question: ${reason}`,
  };
}
