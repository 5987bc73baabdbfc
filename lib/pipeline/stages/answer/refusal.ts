import type { Answer, ScoredEvidence } from "../../contracts";
import { type QuestionFocus, pieceMentionsEntity } from "./question-focus";

export const REFUSAL_TEXT = "Not found in the sources.";

/**
 * Nothing came back to answer from. Said without blaming "the selected sources": there may have been
 * none (the run's outcome then says why, see unread-question.ts), and the stage summary must not
 * contradict the Candidate sources panel.
 */
export function noEvidenceReason(about = ""): string {
  return `No evidence was found${about}; try other knowledge bases or rephrase the question.`;
}
export const NO_EVIDENCE_REASON = noEvidenceReason();

export function refusal(reason: string, confidence: number, candidates: Answer["candidates"]): Answer {
  return { text: REFUSAL_TEXT, refrained: true, reason, confidence, citations: [], candidates };
}

/** The question's entities that no link resolved and that no evidence piece mentions: nothing can answer about them. */
export function unknownEntities(evidence: ScoredEvidence[], focus: QuestionFocus): string[] {
  return focus.entities
    .filter((e) => !e.linked && !evidence.some((ev) => pieceMentionsEntity(ev.piece, e, focus.language)))
    .map((e) => e.mention);
}

export function quoteList(values: string[]): string {
  return joinList(values.map((v) => `'${v}'`));
}

/** "A", "A and B", "A, B and C". */
export function joinList(values: string[]): string {
  if (values.length <= 1) return values[0] ?? "";
  return `${values.slice(0, -1).join(", ")} and ${values[values.length - 1]}`;
}
