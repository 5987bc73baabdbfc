import type { Answer, ScoredEvidence } from "../../types";
import { type QuestionFocus, pieceMentionsEntity } from "./question-focus";
import { type ScoredCandidate, claimedElsewhere } from "./score";

export const REFUSAL_TEXT = "Not found in the sources.";
/** A rival claim (from other pieces) this close to the winner makes a low-confidence answer a disagreement rather than weak evidence. */
const DISAGREEMENT_SHARE = 0.7;

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

function sourceOf(candidate: ScoredCandidate, evidence: ScoredEvidence[]): string {
  const first = candidate.pieces[0];
  return first ? evidence[first.index].piece.provenance.kbName : "unknown source";
}

function formatScore(x: number): string {
  return x.toFixed(2);
}

/**
 * Why a low-confidence answer is withheld, in words a person can act on: two values supported almost
 * equally are a disagreement between sources (name them, so the user can check which is right);
 * otherwise the best value was too weakly supported.
 */
export function lowConfidenceReason(ranked: ScoredCandidate[], confidence: number, threshold: number, evidence: ScoredEvidence[]): string {
  const first = ranked[0];
  const rival = first ? ranked.slice(1).find((c) => !c.penalized && claimedElsewhere(c, first)) : undefined;
  if (first && rival && rival.score >= DISAGREEMENT_SHARE * first.score) {
    const [a, b] = [sourceOf(first, evidence), sourceOf(rival, evidence)];
    if (a === b) {
      // One source, several values (rows of a table, figures of a report): the question is under-specified.
      return `The evidence holds several answers: ${first.display} and ${rival.display} (both in ${a}); add what tells them apart (a date, a place, a product).`;
    }
    return `The sources disagree: ${first.display} (${a}) vs ${rival.display} (${b}).`;
  }
  return `The best candidate ('${first?.display ?? "none"}') scored ${formatScore(confidence)}, below the ${formatScore(threshold)} threshold.`;
}

/** When the evidence holds no value at all of a usable shape. */
export function noCandidateReason(focus: QuestionFocus, evidence: ScoredEvidence[]): string {
  const types = focus.wanted.length > 0 ? ` of the expected type (${focus.wanted.join(" or ")})` : "";
  return `None of the ${evidence.length} evidence pieces holds a value${types} that answers the question.`;
}
