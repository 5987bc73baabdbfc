import { describe, expect, it } from "vitest";
import { DEFAULT_FUSION, describeHybrid, fuseRankings } from "@/lib/backends/documents/fusion";

const bm25 = [
  { rowid: 1, score: 12 },
  { rowid: 2, score: 9 },
  { rowid: 3, score: 3 },
];
const vector = [
  { rowid: 4, score: 0.71 },
  { rowid: 2, score: 0.66 },
  { rowid: 1, score: 0.2 },
];

describe("hybrid fusion of the BM25 and vector rankings", () => {
  it("reciprocal-rank fusion (k = 60) puts rows found by both first, then by their ranks", () => {
    const fused = fuseRankings(bm25, vector, { method: "rrf", k: 60, weights: { bm25: 1, vector: 1 } });
    // Row 1 (ranks 1 and 3) edges out row 2 (2 and 2): 1/61 + 1/63 > 2/62.
    expect(fused.map((r) => r.rowid)).toEqual([1, 2, 4, 3]);
    expect(fused[1]).toEqual({ rowid: 2, score: 1 / 62 + 1 / 62, bm25Rank: 2, vectorRank: 2 });
    expect(fused.find((r) => r.rowid === 4)).toMatchObject({ bm25Rank: null, vectorRank: 1, score: 1 / 61 });
  });

  it("by default, a weighted blend adds normalised BM25 and cosine similarity, half and half", () => {
    const fused = fuseRankings(bm25, vector, DEFAULT_FUSION);
    expect(fused.map((r) => r.rowid)).toEqual([2, 1, 4, 3]);
    expect(fused[0].score).toBeCloseTo(0.5 * (9 / 12) + 0.5 * 0.66, 10);
    expect(fused[2].score).toBeCloseTo(0.5 * 0.71, 10);
  });

  it("says in the native query that the search was hybrid, with the weights", () => {
    expect(describeHybrid(DEFAULT_FUSION, { name: "all-MiniLM-L6-v2", precision: "int8" })).toBe(
      "hybrid search: BM25 (SQLite FTS5) + vector similarity (all-MiniLM-L6-v2, int8), weighted blend of normalised BM25 and cosine similarity, weights BM25 0.50 : vector 0.50",
    );
    expect(describeHybrid({ method: "rrf", k: 60, weights: { bm25: 1, vector: 1 } }, { name: "all-MiniLM-L6-v2", precision: "int8" })).toBe(
      "hybrid search: BM25 (SQLite FTS5) + vector similarity (all-MiniLM-L6-v2, int8), reciprocal-rank fusion (k = 60), weights BM25 1 : vector 1",
    );
  });
});
