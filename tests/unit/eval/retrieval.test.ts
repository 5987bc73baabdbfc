import { describe, expect, it } from "vitest";
import {
  cascadeRanking,
  documentRanking,
  hitAtK,
  interleaveByQuery,
  mrrAtK,
  ndcgAtK,
  recallAtK,
  relevantRanks,
} from "@/lib/eval/metrics/retrieval";

describe("retrieval metrics (BEIR definitions, binary relevance)", () => {
  // Two relevant documents, retrieved at ranks 2 and 5.
  const ranks = [2, 5];

  it("Hit@k is 1 when any relevant document is within the top k", () => {
    expect(hitAtK(ranks, 1)).toBe(0);
    expect(hitAtK(ranks, 2)).toBe(1);
    expect(hitAtK([null, null], 100)).toBe(0);
  });

  it("MRR@k is the reciprocal rank of the first relevant document inside the cut", () => {
    expect(mrrAtK(ranks, 10)).toBe(0.5);
    expect(mrrAtK([12], 10)).toBe(0);
    expect(mrrAtK([null, 3], 10)).toBeCloseTo(1 / 3, 12);
  });

  it("NDCG@10 by hand: (1/log2 3 + 1/log2 6) / (1 + 1/log2 3)", () => {
    const dcg = 1 / Math.log2(3) + 1 / Math.log2(6);
    const idcg = 1 + 1 / Math.log2(3);
    expect(ndcgAtK(ranks, 10, 2)).toBeCloseTo(dcg / idcg, 12);
    // (0.63093 + 0.38685) / (1 + 0.63093) = 1.01778 / 1.63093 = 0.62405
    expect(ndcgAtK(ranks, 10, 2)).toBeCloseTo(0.62405, 4);
    // One relevant document at rank 1 is perfect; at rank 11 it is outside the cut.
    expect(ndcgAtK([1], 10, 1)).toBe(1);
    expect(ndcgAtK([11], 10, 1)).toBe(0);
    // A relevant document never retrieved still counts in the ideal ranking.
    expect(ndcgAtK([1, null], 10, 2)).toBeCloseTo(1 / (1 + 1 / Math.log2(3)), 12);
  });

  it("Recall@k is the share of relevant documents within the top k", () => {
    expect(recallAtK(ranks, 3, 2)).toBe(0.5);
    expect(recallAtK(ranks, 100, 2)).toBe(1);
    expect(recallAtK([null, null, 4], 10, 3)).toBeCloseTo(1 / 3, 12);
  });

  it("ranks passages as documents by their best passage (MaxP), each document once", () => {
    const ranking = documentRanking(["d3", "d1", "d3", null, "d2", "d1"]);
    expect(ranking).toEqual(["d3", "d1", "d2"]);
    expect(relevantRanks(ranking, ["d2", "d9"])).toEqual([3, null]);
  });

  it("reads a re-ranking cascade as one deep ranking: kept items first, then what each earlier round dropped", () => {
    const pool = ["a", "b", "c", "d", "e"];
    const round1 = ["c", "a", "e"];
    const round2 = ["e", "c"];
    expect(cascadeRanking([pool, round1, round2], (x) => x)).toEqual(["e", "c", "a", "b", "d"]);
  });

  it("empty results and nothing retrieved score zero, never NaN", () => {
    expect(ndcgAtK([], 10, 0)).toBe(0);
    expect(ndcgAtK([null, null], 10, 2)).toBe(0);
    expect(recallAtK([], 100, 0)).toBe(0);
    expect(mrrAtK([], 10)).toBe(0);
    expect(documentRanking([])).toEqual([]);
    expect(relevantRanks([], ["d1"])).toEqual([null]);
  });

  it("duplicates: a document found by several passages counts once, at its best passage; repeated relevant ids are not double-counted by the suite", () => {
    // Passages of d1 at 1 and 3, d2 at 2: documents d1 (1), d2 (2); the relevant d2 is at document rank 2, not passage rank 2 or 4.
    const ranking = documentRanking(["d1", "d2", "d1", "d2", "d3"]);
    expect(ranking).toEqual(["d1", "d2", "d3"]);
    expect(relevantRanks(ranking, ["d3"])).toEqual([3]);
    // NDCG@10 with relevant documents at 1 and 3: (1 + 1/log2 4) / (1 + 1/log2 3) = 1.5 / 1.63093 = 0.91972.
    expect(ndcgAtK(relevantRanks(ranking, ["d1", "d3"]), 10, 2)).toBeCloseTo(0.91972, 5);
  });

  it("ties in the engine's ranking keep the engine's order: the rank is the list position, not the score", () => {
    // Two documents with the same score: whichever the engine listed first is rank 1; the metric does not reorder.
    expect(relevantRanks(documentRanking(["tie-a", "tie-b"]), ["tie-b"])).toEqual([2]);
  });

  it("merges the first stage of several queries by taking turns, each query in its own order", () => {
    const items = [
      { q: "joint", id: "a1" },
      { q: "joint", id: "a2" },
      { q: "joint", id: "a3" },
      { q: "entity", id: "b1" },
      { q: "entity", id: "b2" },
    ];
    expect(interleaveByQuery(items, (x) => x.q).map((x) => x.id)).toEqual(["a1", "b1", "a2", "b2", "a3"]);
    // One query: its order unchanged.
    expect(interleaveByQuery(items.slice(0, 3), (x) => x.q).map((x) => x.id)).toEqual(["a1", "a2", "a3"]);
    expect(interleaveByQuery([], (x: { q: string }) => x.q)).toEqual([]);
  });
});
