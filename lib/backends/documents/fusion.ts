/**
 * Hybrid retrieval: the BM25 ranking (FTS5) and the vector ranking (sqlite-vec) fused into one.
 * Two methods, both measured on SciFact (`npm run bench -- models`, "fusion"; 809 training claims,
 * BEIR relevance, all-MiniLM-L6-v2 int8; claim text as the query):
 * - reciprocal-rank fusion (Cormack et al. 2009): Σ w / (k + rank), k = 60 as published:
 *   NDCG@10 0.722, Recall@100 0.944 (BM25 alone 0.698 / 0.910, vectors alone 0.679 / 0.915);
 * - a weighted blend of scores, w_bm25 · bm25 / best bm25 + w_vector · cosine: 0.730 / 0.937 at 0.5 : 0.5.
 * The blend at equal weights is the default. Measured again with the search text the pipeline writes
 * (keywords, each index token once) on a sample of 300 claims (seed 2) kept apart from the one the
 * evaluation reports: blend 0.730 / 0.952, RRF k = 60 0.716 / 0.957. RRF throws away how far apart two
 * scores are: a passage that BM25 ranks 1st by a wide margin and one that just made 5th are 4 ranks
 * apart either way, and the vector ranking's cosines, bunched within a few hundredths, move that as
 * much as a large gap would. Equal weights, not weights fitted to the sample. A row found by one
 * ranking only gets nothing from the other.
 */

export type FusionMethod = "rrf" | "weighted";

export interface FusionSettings {
  method: FusionMethod;
  /** RRF's rank offset. */
  k: number;
  weights: { bm25: number; vector: number };
}

export const DEFAULT_FUSION: FusionSettings = { method: "weighted", k: 60, weights: { bm25: 0.5, vector: 0.5 } };

export interface RankedRow {
  rowid: number;
  /** BM25 as a positive number (higher is better), or the cosine similarity. */
  score: number;
}

export interface FusedRow {
  rowid: number;
  score: number;
  /** 1-based ranks in each list (null: not found by it). */
  bm25Rank: number | null;
  vectorRank: number | null;
}

/** Both lists best first. */
export function fuseRankings(bm25: RankedRow[], vector: RankedRow[], s: FusionSettings = DEFAULT_FUSION): FusedRow[] {
  const rows = new Map<number, FusedRow & { bm25Score: number; similarity: number }>();
  const entry = (rowid: number) => {
    let r = rows.get(rowid);
    if (!r) {
      r = { rowid, score: 0, bm25Rank: null, vectorRank: null, bm25Score: 0, similarity: 0 };
      rows.set(rowid, r);
    }
    return r;
  };
  bm25.forEach((h, i) => {
    const r = entry(h.rowid);
    r.bm25Rank = i + 1;
    r.bm25Score = h.score;
  });
  vector.forEach((h, i) => {
    const r = entry(h.rowid);
    r.vectorRank = i + 1;
    r.similarity = h.score;
  });
  const best = Math.max(1e-9, ...bm25.map((h) => h.score));
  for (const r of rows.values()) {
    if (s.method === "rrf") {
      r.score = (r.bm25Rank ? s.weights.bm25 / (s.k + r.bm25Rank) : 0) + (r.vectorRank ? s.weights.vector / (s.k + r.vectorRank) : 0);
    } else {
      r.score = s.weights.bm25 * (r.bm25Score / best) + s.weights.vector * Math.max(0, r.similarity);
    }
  }
  // Ties (rare) keep BM25's order, then the vector order.
  return [...rows.values()]
    .sort(
      (a, b) =>
        b.score - a.score || (a.bm25Rank ?? Infinity) - (b.bm25Rank ?? Infinity) || (a.vectorRank ?? Infinity) - (b.vectorRank ?? Infinity),
    )
    .map(({ rowid, score, bm25Rank, vectorRank }) => ({ rowid, score, bm25Rank, vectorRank }));
}

const number = (n: number) => (Number.isInteger(n) ? String(n) : n.toFixed(2));

/** What the evidence panel shows under the search text: that it was hybrid, and how it was fused. */
export function describeHybrid(s: FusionSettings, model: { name: string; precision: string }): string {
  const how = s.method === "rrf" ? `reciprocal-rank fusion (k = ${s.k})` : "weighted blend of normalised BM25 and cosine similarity";
  return `hybrid search: BM25 (SQLite FTS5) + vector similarity (${model.name}, ${model.precision}), ${how}, weights BM25 ${number(s.weights.bm25)} : vector ${number(s.weights.vector)}`;
}
