import type { RunOutcome } from "../pipeline/run/types";

type AnsweredOutcome = Pick<RunOutcome, "status" | "answer" | "evidence" | "winner">;

/**
 * The knowledge bases a run's answer came from: those of the evidence it cites, or the winning source
 * when the answer cites nothing. A run that gave no answer (refrained, failed, cancelled) answered from
 * none, even though evidence selection still named a best source.
 */
export function answeredFromKbs(outcome: AnsweredOutcome): Set<string> {
  if (outcome.status !== "ANSWERED" || outcome.answer.refrained) return new Set();
  const cited = new Set(outcome.answer.citations);
  const kbs = new Set(outcome.evidence.filter((e) => cited.has(e.piece.id)).map((e) => e.piece.provenance.kb));
  if (kbs.size === 0 && outcome.winner) kbs.add(outcome.winner.kbId);
  return kbs;
}
