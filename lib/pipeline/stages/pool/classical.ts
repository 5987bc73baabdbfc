import type { EvidencePiece } from "../../../backends/types";
import { Bm25Index } from "../../bm25";
import { FLOOR_SCORE_KEY, floorScore, pieceTokens, structuredFewResultIds } from "../../scorers";
import { fusedOrder, inCollectionOrder, rankingUnitFor, retrievalRanks, withinSearchOrderScores } from "../../rank-fusion";
import { RunCancelledError, type StageContext, type StageStrategy } from "../../stage";
import { type Intent, type ScoredEvidence, intentText } from "../../contracts";

export interface PoolInput {
  intent: Intent;
  /** Every piece from every executed query, all candidates together. */
  pieces: EvidencePiece[];
  /** How many pieces survive into re-ranking (Quasar: 1,000). */
  limit?: number;
}

export const DEFAULT_POOL_LIMIT = 1000;

/** The same piece found by two queries is one piece (its id is its KB and place); the first copy is kept. */
export function dedupePieces(pieces: EvidencePiece[]): EvidencePiece[] {
  const seen = new Set<string>();
  return pieces.filter((p) => !seen.has(p.id) && (seen.add(p.id), true));
}

/**
 * Quasar's global pool: all pieces from all sources in one BM25 ranking against the concatenated
 * intent, top `limit`. One index over the whole pool makes scores from different engines comparable
 * (each engine's own scores are not). Pieces from a structured query that returned few results keep
 * at least a floor score (see scorers/structured-floor.ts): a COUNT row shares no word with the
 * question but may be its answer. Scores: `bm25` is the raw BM25, `structured-floor` the floor given.
 *
 * The pool's BM25 sees only the retrieved pieces, so it cannot replace a search engine's ranking of
 * its collection: each search's pieces get the BM25 fitted to the engine's order (withinSearchOrderScores,
 * rank-fusion.ts), so the pool decides how different searches and structured pieces interleave, not
 * the order within one search; that order is then fused with each search's own. Structured pieces,
 * which no engine ranked by relevance, keep the BM25 order among themselves. `score` is the fitted
 * score, `scores.bm25` the raw BM25.
 */
export function poolEvidence(input: PoolInput): ScoredEvidence[] {
  // Floor eligibility is decided on all copies: a piece also returned by a targeted query keeps it.
  const floored = structuredFewResultIds(input.pieces);
  // A statement's searches of one collection are one ranking; a question's each their own (rank-fusion.ts RankingUnit).
  const unit = rankingUnitFor(input.intent);
  const ranks = retrievalRanks(input.pieces, unit);
  const deduped = dedupePieces(input.pieces);
  const pieces = unit === "collection" ? inCollectionOrder(deduped, ranks) : deduped;
  if (!pieces.length) return [];
  const raw = new Bm25Index(pieces.map(pieceTokens)).scores(intentText(input.intent));
  const floor = floorScore(raw);
  const ordered = withinSearchOrderScores(input.pieces, pieces, raw, unit);
  const scored = pieces.map((piece, i): ScoredEvidence => {
    const retrievalRank = ranks.get(piece.id);
    const rank = retrievalRank === undefined ? {} : { retrievalRank };
    if (!floored.has(piece.id)) return { piece, score: ordered[i], scores: { bm25: raw[i] }, ...rank };
    return { piece, score: Math.max(raw[i], floor), scores: { bm25: raw[i], [FLOOR_SCORE_KEY]: floor }, ...rank };
  });
  // Ties keep the order the queries returned them in (engine order within a query).
  const order = fusedOrder(
    scored.map((e) => e.score),
    scored.map((e) => e.retrievalRank),
  );
  return order.map((i) => scored[i]).slice(0, Math.max(1, input.limit ?? DEFAULT_POOL_LIMIT));
}

export const classicalPool: StageStrategy<PoolInput, ScoredEvidence[]> = {
  name: "classical",
  async run(input: PoolInput, ctx: StageContext): Promise<ScoredEvidence[]> {
    if (ctx.signal.aborted) throw new RunCancelledError();
    const pooled = poolEvidence(input);
    const floored = pooled.filter((e) => FLOOR_SCORE_KEY in e.scores).length;
    ctx.trace({
      stage: "pool",
      type: "INFO",
      strategy: "classical",
      summary: `${input.pieces.length} pieces → ${pooled.length} in the pool${floored ? ` (${floored} from targeted structured queries kept at a floor score)` : ""}`,
      payload: { received: input.pieces.length, pooled: pooled.length, floored },
    });
    return pooled;
  },
};
