import { FIRST_ROUND_SCORER, FLOOR_SCORE_KEY, LAST_ROUND_SCORER, defaultScorers, floorScore, isCompositeScorer, scorerByName } from "../../scorers";
import { fusedOrder } from "../../rank-fusion";
import { RunCancelledError, type StageContext, type StageStrategy } from "../../stage";
import type { EvidenceScorer, Intent, RerankRound, ScoredEvidence } from "../../types";

export interface RerankInput {
  intent: Intent;
  /** The pool, best first (pool gives up to 1,000). */
  pool: ScoredEvidence[];
  /** Rounds of {scorer, keep}; DEFAULT_RERANK_ROUNDS when empty or omitted. */
  rounds?: RerankRound[];
  /** Scorers by name; defaultScorers() when omitted. A cross-encoder joins here under its name. */
  scorers?: Record<string, EvidenceScorer>;
  /** Sees each round's ranking as it is kept (evaluation measures answer presence after every round). */
  observe?: (round: { index: number; scorer: string; ranked: ScoredEvidence[] }) => void;
}

/**
 * Quasar's 1000 → 100 → 30: the pool gives 1,000; a cheap round keeps 100 (`hybrid`: bm25-entity,
 * blended with semantic similarity when a sentence embedder runs); the last round keeps 30
 * (`cross-encoder` when one is installed, otherwise the best fusion: "combined" — BM25 coverage,
 * entity overlap, answer-type fit and relation fit — with semantic similarity joining it when an
 * embedder runs). Not answer-type alone: ranking 100 pieces by answer type only would put every
 * passage that holds a year above the one that says when the thing happened.
 */
export const DEFAULT_RERANK_ROUNDS: RerankRound[] = [
  { scorer: FIRST_ROUND_SCORER, keep: 100 },
  { scorer: LAST_ROUND_SCORER, keep: 30 },
];

export interface RoundReport {
  /** The round's configured scorer name. */
  scorer: string;
  /** The scorer that produced the kept order (a round name resolves to one; a failed scorer's fallback). */
  ran: string;
  before: number;
  after: number;
  /** Set when the scorer failed: its fallback ran, or the round kept the previous order, cut to `keep`. */
  error?: string;
}

function checkCancelled(signal?: AbortSignal) {
  if (signal?.aborted) throw new RunCancelledError();
}

/**
 * One round: score the survivors, record the score under the scorer's name (and a composite scorer's
 * parts under theirs), give structured few-result pieces the floor (their pool mark says so), sort,
 * keep. Ties keep the previous round's order, so a scorer that cannot tell pieces apart (no entities
 * in the question) leaves the ranking as it was. The order is the scorer's fused with the search
 * engines' own (rank-fusion.ts): a round re-ranks what retrieval found, it does not start over; a
 * piece's score stays its scorer's, which later stages read as relevance.
 */
async function runRound(intent: Intent, current: ScoredEvidence[], scorer: EvidenceScorer, keep: number, signal?: AbortSignal): Promise<ScoredEvidence[]> {
  const pieces = current.map((e) => e.piece);
  let scores: number[];
  let parts: Record<string, number[]> = {};
  const previous = current.map((e) => e.score);
  if (isCompositeScorer(scorer)) {
    ({ total: scores, parts } = await scorer.scoreParts(intent, pieces, signal, previous));
  } else {
    scores = await scorer.score(intent, pieces, signal, previous);
  }
  if (scores.length !== pieces.length) throw new Error(`scorer "${scorer.name}" returned ${scores.length} scores for ${pieces.length} pieces`);
  const floor = floorScore(scores);
  const scored = current.map((e, i): ScoredEvidence => {
    const own = Number.isFinite(scores[i]) ? scores[i] : 0;
    const recorded: Record<string, number> = { ...e.scores, [scorer.name]: own };
    for (const [name, values] of Object.entries(parts)) recorded[`${scorer.name}:${name}`] = values[i];
    const rank = e.retrievalRank === undefined ? {} : { retrievalRank: e.retrievalRank };
    return { piece: e.piece, score: FLOOR_SCORE_KEY in e.scores ? Math.max(own, floor) : own, scores: recorded, ...rank };
  });
  const order = fusedOrder(
    scored.map((e) => e.score),
    scored.map((e) => e.retrievalRank),
  );
  return order.slice(0, keep).map((i) => scored[i]);
}

/** Runs the rounds in order; an unknown scorer name is a configuration error and fails before any round runs. */
export async function rerankEvidence(
  input: RerankInput,
  options: { signal?: AbortSignal; onRound?: (report: RoundReport) => void } = {},
): Promise<ScoredEvidence[]> {
  const rounds = input.rounds?.length ? input.rounds : DEFAULT_RERANK_ROUNDS;
  const registry = input.scorers ?? defaultScorers();
  const scorers = rounds.map((r) => scorerByName(r.scorer, registry));
  let current = input.pool;
  for (const [i, round] of rounds.entries()) {
    checkCancelled(options.signal);
    const before = current.length;
    const errors: string[] = [];
    // A scorer that fails (a model busy, timed out or crashed) degrades the ranking, not the run: its fallback runs, else the order stays.
    let ran: EvidenceScorer | undefined = scorers[i];
    let kept: ScoredEvidence[] | null = null;
    while (ran && !kept) {
      try {
        kept = await runRound(input.intent, current, ran, round.keep, options.signal);
      } catch (e) {
        checkCancelled(options.signal);
        errors.push(`${ran.name}: ${(e as Error).message}`);
        ran = ran.fallback;
      }
    }
    current = kept ?? current.slice(0, round.keep);
    const label = ran?.name ?? "previous order";
    options.onRound?.({ scorer: round.scorer, ran: label, before, after: current.length, ...(errors.length ? { error: errors.join("; ") } : {}) });
    input.observe?.({ index: i, scorer: label, ranked: current });
  }
  return current;
}

export const classicalRerank: StageStrategy<RerankInput, ScoredEvidence[]> = {
  name: "classical",
  async run(input: RerankInput, ctx: StageContext): Promise<ScoredEvidence[]> {
    return rerankEvidence(input, {
      signal: ctx.signal,
      onRound: (r) =>
        ctx.trace({
          stage: "rerank",
          type: r.error ? "ERROR" : "INFO",
          strategy: "classical",
          summary: roundSummary(r),
          payload: r,
        }),
    });
  },
};

/** "cross-encoder failed (…); combined-dense ran instead, 100 → 30", "hybrid (bm25-entity): 1000 → 100". */
export function roundSummary(r: RoundReport): string {
  const counts = `${r.before} → ${r.after}`;
  if (r.error) return r.ran === "previous order" ? `${r.scorer} failed (${r.error}); kept the previous order, ${counts}` : `${r.error.split(":")[0]} failed (${r.error}); ${r.ran} ran instead, ${counts}`;
  if (r.scorer === LAST_ROUND_SCORER && r.ran !== LAST_ROUND_SCORER) return `no cross-encoder is installed; ${r.ran} ran in its place: ${counts}`;
  return r.ran === r.scorer ? `${r.scorer}: ${counts}` : `${r.scorer} (${r.ran}): ${counts}`;
}
