import { RunCancelledError, type StageStrategy } from "../../stage";
import type { Answer } from "../../contracts";
import { answerQuestion } from "./answer";
import type { AnswerInput } from "./types";

export { answerQuestion, listMembers } from "./answer";
export type { AnswerInput, AnswerResult } from "./types";
export {
  buildQuestionFocus,
  type QuestionFocus,
  type QuestionEntity,
  mentions,
  pieceMentionsEntity,
  queryNamesEntity,
} from "./question-focus";
export {
  answerConfidence,
  normalizeEvidenceScores,
  scoreCandidates,
  type ScoredCandidate,
  PIECE_RELIABILITY,
  ENTITY_PENALTY,
} from "./score";
export { classifyValue, columnValueType, hintFromLabel, typeFit, type ValueType } from "./value-types";
export { valueKey, parseNumber } from "./value-key";
export { sentenceSpans, type Span } from "./passage-spans";
export { extractOccurrences } from "./extract";
export { REFUSAL_TEXT, joinList } from "./refusal";
export { connectsToEntityOf, connectsToQuestion, statesValue } from "./connection";

/**
 * The classical answer stage (no model): candidate values from the top evidence scored by evidence
 * score, agreement across pieces and KBs, and answer-type fit; cells located in report tables and
 * operations computed over them (with their derivation); below the confidence bar a supported value is
 * shown as uncertain, and Mosaic refuses, with a reason, only when the evidence does not hold the answer.
 */
export const classicalAnswer: StageStrategy<AnswerInput, Answer> = {
  name: "classical",
  async run(input, ctx) {
    if (ctx.signal.aborted) throw new RunCancelledError();
    const { answer, ranked, notes } = answerQuestion(input);
    ctx.trace({
      stage: "answer",
      type: "INFO",
      strategy: "classical",
      summary: answer.refrained
        ? `Refrained: ${answer.reason}`
        : `${ranked.length} candidate values; answer '${answer.text}' (confidence ${answer.confidence.toFixed(2)}${answer.certainty === "uncertain" ? ", shown as uncertain" : ""})${answer.derivation ? `; computed: ${answer.derivation.expression}` : ""}`,
      payload: { notes, candidates: answer.candidates, ...(answer.derivation ? { derivation: answer.derivation } : {}) },
    });
    return answer;
  },
};
