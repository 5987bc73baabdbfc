import {
  FIRST_ROUND_SCORER,
  FLOOR_SCORE_KEY,
  LAST_ROUND_SCORER,
  defaultScorers,
  floorScore,
  isCompositeScorer,
  scorerByName,
} from "../../scorers";
import type { EvidencePiece } from "../../../backends/types";
import { type RankingUnit, fusedOrder, inSearchOrder, rankingUnitFor, searchOf } from "../../rank-fusion";
import { RunCancelledError, type StageContext, type StageStrategy } from "../../stage";
import type { EvidenceScorer, Intent, RerankRound, ScoredEvidence } from "../../contracts";

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
  /** What the round did to the order within each search's results (absent when no two pieces came from one search). */
  searchOrder?: SearchOrder;
}

function checkCancelled(signal?: AbortSignal) {
  if (signal?.aborted) throw new RunCancelledError();
}

/**
 * What a round did to the order within each search's results: kept it because the scorer brought no
 * new evidence (everything it scored repeats what the engine ranked by), kept it although it had some,
 * or reordered on that new evidence. Absent when no two pieces came from one search.
 */
export type SearchOrder = "kept: no new evidence" | "kept" | "reordered";

interface RoundResult {
  kept: ScoredEvidence[];
  searchOrder?: SearchOrder;
}

/**
 * Scores, their parts and the share that repeats retrieval (none: the scorer is all new evidence).
 *
 * For a statement (Intent.statement) a composite scorer's whole score repeats retrieval: a statement
 * asks for no kind of answer and no relation, so what the fusions have beyond the engine's own signals
 * (answer type, relation fit) says nothing about it, and what is left (the statement's words and
 * names, its sentence vector) the engine ranked the whole collection by. Only a cross-encoder, which
 * reads the statement and the passage together, judges the search's results anew.
 */
async function scoreRound(
  intent: Intent,
  pieces: EvidencePiece[],
  scorer: EvidenceScorer,
  signal: AbortSignal | undefined,
  previous: number[],
) {
  if (isCompositeScorer(scorer)) {
    const { total, parts, repeated } = await scorer.scoreParts(intent, pieces, signal, previous);
    return { total, parts, repeated: intent.statement ? total : (repeated ?? total.map(() => 0)) };
  }
  const total = await scorer.score(intent, pieces, signal, previous);
  return { total, parts: {} as Record<string, number[]>, repeated: total.map(() => 0) };
}

/** Whether two of the pieces came from one search (else there is no search order for a round to keep or change). */
function rankedTogether(pieces: EvidencePiece[], unit: RankingUnit): boolean {
  const searches = new Set<string>();
  return pieces.some((piece) => {
    const search = searchOf(piece, unit);
    if (search === null) return false;
    if (searches.has(search)) return true;
    searches.add(search);
    return false;
  });
}

/** The searches whose pieces the new evidence (total minus the repeated share) tells apart. */
function searchesWithNewEvidence(pieces: EvidencePiece[], total: number[], repeated: number[], unit: RankingUnit): Set<string> {
  const first = new Map<string, number>();
  const out = new Set<string>();
  pieces.forEach((piece, i) => {
    const search = searchOf(piece, unit);
    if (search === null) return;
    const fresh = (Number.isFinite(total[i]) ? total[i] : 0) - repeated[i];
    const seen = first.get(search);
    if (seen === undefined) first.set(search, fresh);
    else if (Math.abs(fresh - seen) > 1e-9) out.add(search);
  });
  return out;
}

/** Whether every search's surviving pieces are in the order the round received them. */
function searchOrderHeld(before: EvidencePiece[], after: EvidencePiece[], unit: RankingUnit): boolean {
  const position = new Map(before.map((p, i) => [p.id, i]));
  const last = new Map<string, number>();
  for (const piece of after) {
    const search = searchOf(piece, unit);
    if (search === null) continue;
    const at = position.get(piece.id) ?? 0;
    if (at < (last.get(search) ?? -1)) return false;
    last.set(search, at);
  }
  return true;
}

/**
 * One round: score the survivors, record the score under the scorer's name (and a composite scorer's
 * parts under theirs), give structured few-result pieces the floor (their pool mark says so), sort,
 * keep. Ties keep the previous round's order, so a scorer that cannot tell pieces apart (no entities
 * in the question) leaves the ranking as it was.
 *
 * Within one search's results a round changes the order only on new evidence: a scorer whose score
 * there only repeats what the engine ranked by (its `repeated` share: BM25 recomputed over the few
 * retrieved pieces, the search's own sentence vectors, names that are one word of the question, the
 * rounds before) knows less than the engine did over the whole collection, so that search keeps the
 * order the round received, its scores handed out high to low in that order (rank-fusion.ts,
 * inSearchOrder), which still decide how it interleaves with other searches and structured pieces.
 * Where the scorer has new evidence about a search's pieces (a cross-encoder; the kind of answer asked
 * for, the relation asked about, a name of several words or another name of an entity) it judges them
 * with everything it has. The round says which it did.
 *
 * The order is then fused with the search engines' own (rank-fusion.ts): a round re-ranks what
 * retrieval found, it does not start over. A piece's score stays its scorer's, which later stages read
 * as relevance.
 */
async function runRound(
  intent: Intent,
  current: ScoredEvidence[],
  scorer: EvidenceScorer,
  keep: number,
  signal?: AbortSignal,
): Promise<RoundResult> {
  const pieces = current.map((e) => e.piece);
  const previous = current.map((e) => e.score);
  const { total: scores, parts, repeated } = await scoreRound(intent, pieces, scorer, signal, previous);
  if (scores.length !== pieces.length || repeated.length !== pieces.length)
    throw new Error(`scorer "${scorer.name}" returned ${scores.length} scores for ${pieces.length} pieces`);
  const floor = floorScore(scores);
  const scored = current.map((e, i): ScoredEvidence => {
    const own = Number.isFinite(scores[i]) ? scores[i] : 0;
    const recorded: Record<string, number> = { ...e.scores, [scorer.name]: own };
    for (const [name, values] of Object.entries(parts)) recorded[`${scorer.name}:${name}`] = values[i];
    const rank = e.retrievalRank === undefined ? {} : { retrievalRank: e.retrievalRank };
    return { piece: e.piece, score: FLOOR_SCORE_KEY in e.scores ? Math.max(own, floor) : own, scores: recorded, ...rank };
  });
  const unit = rankingUnitFor(intent);
  const informed = searchesWithNewEvidence(pieces, scores, repeated, unit);
  const held = inSearchOrder(
    pieces,
    scored.map((e) => e.score),
    unit,
  );
  const ordering = scored.map((e, i) => {
    const search = searchOf(e.piece, unit);
    return search === null || informed.has(search) ? e.score : held[i];
  });
  const order = fusedOrder(
    ordering,
    scored.map((e) => e.retrievalRank),
  );
  const kept = order.slice(0, keep).map((i) => scored[i]);
  if (!rankedTogether(pieces, unit)) return { kept };
  if (!informed.size) return { kept, searchOrder: "kept: no new evidence" };
  return {
    kept,
    searchOrder: searchOrderHeld(
      pieces,
      kept.map((e) => e.piece),
      unit,
    )
      ? "kept"
      : "reordered",
  };
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
    let result: RoundResult | null = null;
    while (ran && !result) {
      try {
        result = await runRound(input.intent, current, ran, round.keep, options.signal);
      } catch (e) {
        checkCancelled(options.signal);
        errors.push(`${ran.name}: ${(e as Error).message}`);
        ran = ran.fallback;
      }
    }
    current = result?.kept ?? current.slice(0, round.keep);
    const label = ran?.name ?? "previous order";
    const searchOrder = result?.searchOrder ? { searchOrder: result.searchOrder } : {};
    options.onRound?.({
      scorer: round.scorer,
      ran: label,
      before,
      after: current.length,
      ...searchOrder,
      ...(errors.length ? { error: errors.join("; ") } : {}),
    });
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

/** What the round did within each search's results, in words; empty when it had none. */
const SEARCH_ORDER_WORDS: Record<SearchOrder, string> = {
  "kept: no new evidence": "kept the search engine's order: no scorer with new evidence",
  kept: "kept the search engine's order: its new evidence moved nothing",
  reordered: "reordered search results on new evidence",
};

/**
 * "cross-encoder failed (…); combined-dense ran instead, 100 → 30", "hybrid (bm25-entity): 1000 → 100",
 * each followed by what the round did within searches ("; kept the search engine's order: no scorer with new evidence").
 */
export function roundSummary(r: RoundReport): string {
  return `${roundHead(r)}${r.searchOrder ? `; ${SEARCH_ORDER_WORDS[r.searchOrder]}` : ""}`;
}

function roundHead(r: RoundReport): string {
  const counts = `${r.before} → ${r.after}`;
  if (r.error)
    return r.ran === "previous order"
      ? `${r.scorer} failed (${r.error}); kept the previous order, ${counts}`
      : `${r.error.split(":")[0]} failed (${r.error}); ${r.ran} ran instead, ${counts}`;
  if (r.scorer === LAST_ROUND_SCORER && r.ran !== LAST_ROUND_SCORER)
    return `no cross-encoder is installed; ${r.ran} ran in its place: ${counts}`;
  return r.ran === r.scorer ? `${r.scorer}: ${counts}` : `${r.scorer} (${r.ran}): ${counts}`;
}
