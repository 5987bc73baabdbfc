import { mentionForms } from "../../scorers/mentions";
import { containsPhrase, preparePiece } from "../../scorers/piece-text";
import { RunCancelledError, type StageContext, type StageStrategy } from "../../stage";
import { normalizeLabel, terms } from "../../text";
import type { EvidencePiece } from "../../../backends/types";
import type { Candidate, EvidenceSelection, ExecutedQuery, Intent, QueryResult, ScoredEvidence } from "../../contracts";
import { type Commitment, commitSource, committedResult, evidenceWinnerCommitment } from "./commit";
import { type KbContribution, TOP_WINDOW, evidenceKindLabel, kbContributions, plainEvidenceKind } from "./contributions";

export { type Commitment, commitSource, committedResult } from "./commit";

export {
  CONTRIBUTION_WEIGHTS,
  type KbContribution,
  TOP_WINDOW,
  evidenceKindLabel,
  kbContributions,
  plainEvidenceKind,
} from "./contributions";

export interface SelectEvidenceInput {
  intent: Intent;
  /** The re-ranked evidence, best first. */
  ranked: ScoredEvidence[];
  candidates: Candidate[];
  executed: ExecutedQuery[];
  /** At most this many pieces are kept (Quasar answers from 30). */
  limit?: number;
  /** Every piece the queries returned (the committed answer query's whole result is read from them). */
  pieces?: EvidencePiece[];
  /** The row cap answer queries ran under (PipelineConfig.answerRowCap), reported with the result. */
  answerRowCap?: number;
}

export const DEFAULT_SELECTED_EVIDENCE = 30;
/**
 * At most this share of the kept pieces comes from KBs other than the winner: the answer stage weighs
 * agreement across pieces, and the winner's pieces are the ones that agree on the winning reading.
 */
export const MAX_SUPPORTING_SHARE = 1 / 3;
/** Another KB's piece this close to the best score is a competing answer, not noise: it is kept. */
export const NEAR_BEST_RATIO = 0.9;

export type KeptBecause = "winner" | "near-best" | "agrees" | "complements";

/**
 * What the question already says: its words and its entities' names and linked labels. Two pieces that
 * both name the question's entity are about the same thing, not agreeing on an answer.
 */
interface Given {
  /** " normalized question " padded for word-boundary tests. */
  words: string;
  entities: Set<string>;
}

const isGiven = (value: string, given: Given) => given.entities.has(value) || given.words.includes(` ${value} `);

/** Values a piece states beyond what the question gives: entity names and numbers. */
function statedValues(e: ScoredEvidence, given: Given): Set<string> {
  const values = new Set<string>();
  for (const name of e.piece.entities) {
    const n = normalizeLabel(name);
    if (n && !isGiven(n, given)) values.add(n);
  }
  for (const num of e.piece.text.match(/\d+(?:\.\d+)?/g) ?? []) if (!isGiven(num, given)) values.add(num);
  return values;
}

/**
 * Why another KB's piece is kept beside the winner's: it is nearly as good as the best piece; it
 * states a value the winner's top pieces state too (two sources agree on the answer); or it names one
 * of the question's entities that none of the winner's pieces names (the question needs two kinds of
 * source, e.g. a policy passage and a sales figure). Null: not needed.
 */
function supportingReason(
  e: ScoredEvidence,
  globalBest: number,
  winnerValues: Set<string>,
  uncovered: string[][],
  given: Given,
): KeptBecause | null {
  if (globalBest > 0 && e.score >= NEAR_BEST_RATIO * globalBest) return "near-best";
  for (const v of statedValues(e, given)) if (winnerValues.has(v)) return "agrees";
  if (uncovered.length) {
    const prepared = preparePiece(e.piece);
    if (uncovered.some((forms) => forms.some((f) => containsPhrase(prepared, f)))) return "complements";
  }
  return null;
}

/**
 * Why the winner answers, for the person who asked (the answer card shows it): the kind of evidence
 * that matched best, in plain words. No counts of ranked items: the card shows only the cited
 * evidence, and "4 of the top 5" would contradict one evidence panel.
 */
function winnerReason(winner: KbContribution, runnerUp: KbContribution | undefined): string {
  const lead = winner.pieces[0];
  const what = lead ? plainEvidenceKind(lead.piece) : "its evidence";
  const other = runnerUp && runnerUp.pieces.length ? `; ${runnerUp.kbName} was searched too and matched less well` : "";
  return `${what} matched the question best${other}.`;
}

/** The tally behind the choice, for the run's trace (analysts): ranks, scores and queries. */
function winnerTally(winner: KbContribution, runnerUp: KbContribution | undefined, window: number): string {
  const lead = winner.pieces[0];
  const what = lead ? ` (${evidenceKindLabel(lead.piece)})` : "";
  const share = winner.inTop > 0 ? `${winner.inTop} of the top ${window} pieces` : `its best piece`;
  let tally = `${share}${winner.holdsBest ? " and the best score" : ""} came from ${winner.kbName}${what}`;
  if (runnerUp && runnerUp.pieces.length) tally += `; next was ${runnerUp.kbName} with ${runnerUp.inTop} of the top ${window}`;
  if (winner.queriesRun)
    tally += `; ${winner.queriesOk} of its ${winner.queriesRun} ${winner.queriesRun === 1 ? "query" : "queries"} returned results`;
  return tally;
}

export interface EvidenceSelectionDetail extends EvidenceSelection {
  contributions: KbContribution[];
  /** The numbers behind the winner, for the trace; null without a winner. */
  tally: string | null;
  keptBecause: Record<string, KeptBecause>;
  commitment: Commitment | null;
}

/** Citations point into the kept evidence: the committed result's first rows lead it (these many at most). */
const RESULT_ROWS_KEPT = 10;

/** The committed result's first rows as evidence, with their ranking scores where the ranking kept them. */
function resultEvidence(result: QueryResult, pieces: EvidencePiece[], ranked: ScoredEvidence[]): ScoredEvidence[] {
  const rankedById = new Map(ranked.map((e) => [e.piece.id, e]));
  const pieceById = new Map(pieces.map((p) => [p.id, p]));
  const out: ScoredEvidence[] = [];
  for (const id of new Set(result.pieceIds)) {
    if (out.length >= RESULT_ROWS_KEPT) break;
    const e = rankedById.get(id) ?? (pieceById.has(id) ? { piece: pieceById.get(id)!, score: 0, scores: {} } : null);
    if (e) out.push(e);
  }
  return out;
}

/**
 * OmniRetrieval's cross-source selection: score each KB by the evidence it contributed, pick the
 * winner, and keep the evidence that answers the question: the winner's best pieces and the other
 * KBs' pieces that compete, agree or complement (see supportingReason), best first.
 */
export function selectEvidence(input: SelectEvidenceInput): EvidenceSelectionDetail {
  const contributions = kbContributions(input.ranked, input.candidates, input.executed);
  const byEvidence = contributions.find((c) => c.pieces.length > 0);
  const othersSay = () =>
    new Set(
      input.ranked
        .filter((e) => e.piece.provenance.kb !== byEvidence?.kbId)
        .slice(0, TOP_WINDOW)
        .flatMap((e) => terms(e.piece.text)),
    );
  const commitment =
    commitSource(input.candidates, input.executed) ??
    (byEvidence ? evidenceWinnerCommitment(byEvidence, input.candidates, input.executed, othersSay()) : null);
  const result = commitment
    ? committedResult(commitment, input.pieces ?? input.ranked.map((e) => e.piece), input.answerRowCap ?? commitment.query.rows)
    : null;
  const committedTo = commitment ? contributions.find((c) => c.kbId === commitment.kbId) : undefined;
  const winner = committedTo ?? contributions.find((c) => c.pieces.length > 0);
  if (!winner) return { winner: null, evidence: [], contributions, keptBecause: {}, tally: null, commitment: null };

  const window = Math.min(TOP_WINDOW, input.ranked.length);
  const runnerUp = contributions.find((c) => c !== winner && c.pieces.length > 0);
  const globalBest = input.ranked.reduce((m, e) => Math.max(m, e.score), 0);
  const mentions = mentionForms(input.intent);
  const given: Given = { words: ` ${normalizeLabel(input.intent.completed)} `, entities: new Set(mentions.flatMap((m) => m.forms)) };

  const winnerValues = new Set(winner.pieces.slice(0, 3).flatMap((e) => [...statedValues(e, given)]));
  const winnerPrepared = winner.pieces.map((e) => preparePiece(e.piece));
  const uncovered = mentions.map((m) => m.forms).filter((forms) => !winnerPrepared.some((p) => forms.some((f) => containsPhrase(p, f))));

  const limit = Math.max(1, input.limit ?? DEFAULT_SELECTED_EVIDENCE);
  const maxSupporting = Math.floor(limit * MAX_SUPPORTING_SHARE);
  const keptBecause: Record<string, KeptBecause> = {};
  const supporting: ScoredEvidence[] = [];
  for (const e of input.ranked) {
    if (e.piece.provenance.kb === winner.kbId || supporting.length >= maxSupporting) continue;
    const why = supportingReason(e, globalBest, winnerValues, uncovered, given);
    if (!why) continue;
    supporting.push(e);
    keptBecause[e.piece.id] = why;
  }
  const leading = result ? resultEvidence(result, input.pieces ?? [], input.ranked) : [];
  const leadingIds = new Set(leading.map((e) => e.piece.id));
  const own = winner.pieces.filter((e) => !leadingIds.has(e.piece.id)).slice(0, Math.max(0, limit - supporting.length - leading.length));
  for (const e of [...leading, ...own]) keptBecause[e.piece.id] = "winner";

  const kept = new Set([...own, ...supporting]);
  return {
    // People read the reason; the commitment's own account (queries, coverage, rows) goes to the trace with the tally.
    winner: { kbId: winner.kbId, kbName: winner.kbName, reason: winnerReason(winner, runnerUp) },
    tally:
      commitment?.kbId === winner.kbId
        ? `${commitment.reason}; ${winnerTally(winner, runnerUp, window)}`
        : winnerTally(winner, runnerUp, window),
    evidence: [...leading, ...input.ranked.filter((e) => kept.has(e) && !leadingIds.has(e.piece.id))],
    contributions,
    keptBecause,
    commitment,
    result,
  };
}

export const classicalSelectEvidence: StageStrategy<SelectEvidenceInput, EvidenceSelection> = {
  name: "classical",
  async run(input: SelectEvidenceInput, ctx: StageContext): Promise<EvidenceSelection> {
    if (ctx.signal.aborted) throw new RunCancelledError();
    const { winner, evidence, contributions, keptBecause, tally, result } = selectEvidence(input);
    const counts: Record<string, number> = {};
    for (const why of Object.values(keptBecause)) counts[why] = (counts[why] ?? 0) + 1;
    ctx.trace({
      stage: "select-evidence",
      type: "INFO",
      strategy: "classical",
      summary: winner ? `${winner.kbName} won: ${tally}. Kept ${evidence.length} pieces.` : "no evidence to select from",
      payload: {
        contributions: contributions.map((c) => ({
          kbId: c.kbId,
          kbName: c.kbName,
          score: +c.score.toFixed(3),
          pieces: c.pieces.length,
          inTop: c.inTop,
          best: c.best,
          queries: `${c.queriesOk}/${c.queriesRun}`,
        })),
        kept: counts,
      },
    });
    return { winner, evidence, result };
  },
};
