import type { Answer } from "../../types";
import type { AnswerInput, AnswerResult } from "./answer";
import { refusal } from "./refusal";
import { answerFromTables } from "./table-answer";

/**
 * Where the table reading (located cells, computed operations) and the candidate scoring meet: a
 * computed answer or a located cell replaces the candidate answer when it is at least as sure; a
 * question that asks for an operation the evidence cannot support is refused with what was missing.
 */
export function withTableAnswer(input: AnswerInput, result: AnswerResult): AnswerResult {
  const outcome = answerFromTables(input.intent.completed, input.evidence, input.intent.language || "en");
  if (!outcome) return result;
  const current = result.answer;
  if ("problem" in outcome) {
    if (!current.refrained) return result;
    return { ...result, answer: refusal(outcome.problem.problem, current.confidence, current.candidates), notes: [...result.notes, outcome.problem.problem] };
  }
  const t = outcome.answer;
  const currentScore = current.refrained ? 0 : current.confidence;
  if (t.kind !== "computed" && t.confidence < currentScore) return { ...result, notes: [...result.notes, `Table reading (not used): ${t.note}`] };
  const confidence = Math.round(t.confidence * 1000) / 1000;
  const answer: Answer = {
    text: t.text,
    refrained: false,
    reason: null,
    confidence,
    citations: t.citations,
    candidates: current.candidates,
    ...(t.derivation ? { derivation: t.derivation } : {}),
  };
  return { ...result, answer, notes: [...result.notes, t.note] };
}
