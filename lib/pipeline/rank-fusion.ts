import type { EvidencePiece } from "../backends/types";

/**
 * Reciprocal-rank fusion of a stage's own ranking with the first stage's (what the engines returned).
 *
 * A search engine ranks a collection with corpus-wide statistics (BM25 over the whole collection, the
 * vector index), which a later stage cannot recompute: the pool and the re-ranking rounds see only the
 * retrieved pieces, where the question's own words occur in nearly every piece and so get almost no
 * weight (BM25's idf over a retrieved set). Replacing the engine's order with such a score loses what
 * the engine knew; fusing the two orders keeps it, and a later scorer still moves a piece it is sure of.
 * Ranks, not scores: the stages' scores are on different scales.
 *
 * Pieces from a structured query (SQL rows, triples, paths) have no retrieval ranking (their order is
 * the query's, not relevance), so they count their stage rank twice, "no evidence either way": a ranking
 * of structured pieces only is exactly the stage's own.
 */

/** RRF's rank offset: Cormack, Clarke & Büttcher (2009), the value the document search fuses with too. */
export const RANK_FUSION_K = 60;

const LANGUAGES_RANKED_BY_RELEVANCE: ReadonlySet<string> = new Set(["search"]);

/**
 * Each ranked-search piece's place in the results of the query that found it (1 = first); a piece that
 * several queries found keeps its best place. Structured pieces get none.
 */
export function retrievalRanks(pieces: EvidencePiece[]): Map<string, number> {
  const placeInQuery = new Map<string, number>();
  const ranks = new Map<string, number>();
  for (const piece of pieces) {
    const { language, kb, query } = piece.provenance;
    if (!LANGUAGES_RANKED_BY_RELEVANCE.has(language)) continue;
    const key = `${kb}\u0000${query}`;
    const rank = (placeInQuery.get(key) ?? 0) + 1;
    placeInQuery.set(key, rank);
    ranks.set(piece.id, Math.min(rank, ranks.get(piece.id) ?? Number.POSITIVE_INFINITY));
  }
  return ranks;
}

/** 1-based ranks of `scores`, higher first; equal scores share the order they arrive in. */
function ranksOf(scores: number[]): number[] {
  const order = scores.map((s, i) => ({ s: Number.isFinite(s) ? s : Number.NEGATIVE_INFINITY, i })).sort((a, b) => b.s - a.s);
  const ranks = new Array<number>(scores.length);
  order.forEach(({ i }, r) => {
    ranks[i] = r + 1;
  });
  return ranks;
}

/**
 * Indices of the items in fused order, best first: 1/(k + stage rank) + 1/(k + retrieval rank), the
 * retrieval rank replaced by the stage rank where there is none. A tie goes to the stage's own order
 * (the later, better-informed judgement), and equal stage scores keep the order the items arrive in.
 */
export function fusedOrder(stageScores: number[], retrieval: (number | undefined)[]): number[] {
  const stage = ranksOf(stageScores);
  const fused = stage.map((r, i) => 1 / (RANK_FUSION_K + r) + 1 / (RANK_FUSION_K + (retrieval[i] ?? r)));
  return fused
    .map((f, i) => ({ f, i }))
    .sort((a, b) => b.f - a.f || stage[a.i] - stage[b.i])
    .map((x) => x.i);
}
