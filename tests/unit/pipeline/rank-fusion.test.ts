import { describe, expect, it } from "vitest";
import { RANK_FUSION_K, fusedOrder, inSearchOrder, retrievalRanks, searchOf, withinSearchOrderScores } from "@/lib/pipeline/rank-fusion";
import { poolEvidence } from "@/lib/pipeline/stages/pool/classical";
import { rerankEvidence } from "@/lib/pipeline/stages/rerank/classical";
import { intent, passage, row } from "./select-fixtures";

const DOCS = ["kb-docs", "Aurora policies and reports"] as const;

/** One search's results, in the engine's order (the fixture names each passage's query by its first words). */
function searchResults(texts: string[], query = "tent recalls"): ReturnType<typeof passage>[] {
  return texts.map((t, i) => {
    const p = passage(...DOCS, `doc-${i}`, 0, t);
    return { ...p, provenance: { ...p.provenance, query } };
  });
}

describe("rank fusion with the search engines' own ranking", () => {
  it("reads each search's order as its ranks, the best place of a piece several searches found, none for structured pieces", () => {
    const [a, b, c] = searchResults(["first", "second", "third"]);
    const again = { ...a, provenance: { ...a.provenance, query: "another search" } };
    const sql = row("kb-sales", "Aurora sales database", "Query result", ["n"], [4], "SELECT count(*) AS n FROM stores", 0);
    const ranks = retrievalRanks([b, c, a, sql, again]);
    expect(ranks.get(b.id)).toBe(1);
    expect(ranks.get(c.id)).toBe(2);
    expect(ranks.get(a.id)).toBe(1);
    expect(ranks.has(sql.id)).toBe(false);
  });

  it("a statement's searches of one collection are one ranking, their reciprocal-rank fusion; a question's keep their own", async () => {
    // Two phrasings of one statement: the second puts the first one's third passage first.
    const [a, b, c] = searchResults(["alpha", "beta", "gamma"], "tent recalls reduce injuries");
    const again = [c, a, b].map((p) => ({ ...p, provenance: { ...p.provenance, query: "reduce injuries tent recalls" } }));
    const pieces = [a, b, c, ...again];
    const byCollection = retrievalRanks(pieces, "collection");
    // a: 1/61 + 1/62, c: 1/63 + 1/61, b: 1/62 + 1/63.
    expect([a, c, b].map((p) => byCollection.get(p.id))).toEqual([1, 2, 3]);
    // By search, each keeps its best place in either list.
    expect([a, b, c].map((p) => retrievalRanks(pieces).get(p.id))).toEqual([1, 2, 1]);
    const claim = intent("Tent recalls reduce injuries.", { keywords: ["tent", "recalls", "reduce", "injuries"], statement: true });
    expect(poolEvidence({ intent: claim, pieces }).map((e) => e.piece.id)).toEqual([a, c, b].map((p) => p.id));
    expect(searchOf(a, "collection")).toBe(searchOf(again[0], "collection"));
    expect(searchOf(a)).not.toBe(searchOf(again[0]));
  });

  it("fuses by reciprocal rank: a stage's top piece the engine put last does not jump pieces both rank high", () => {
    // Stage scores rank item 2 first; the engine ranked it 50th of 50.
    const stage = Array.from({ length: 50 }, (_, i) => (i === 49 ? 10 : 5 - i * 0.01));
    const retrieval = Array.from({ length: 50 }, (_, i) => i + 1);
    const order = fusedOrder(stage, retrieval);
    expect(order[0]).toBe(0);
    expect(order.indexOf(49)).toBeGreaterThan(0);
    expect(1 / (RANK_FUSION_K + 1) + 1 / (RANK_FUSION_K + 50)).toBeLessThan(2 / (RANK_FUSION_K + 2));
    // Without a retrieval ranking (structured pieces) the order is the stage's own.
    expect(fusedOrder([1, 3, 2], [undefined, undefined, undefined])).toEqual([1, 2, 0]);
  });

  it("the pool keeps the engine's best passages ahead of a keyword-stuffed one the engine ranked low", () => {
    const q = intent("Do tent recalls reduce injuries?", { keywords: ["tent", "recalls", "reduce", "injuries"] });
    const results = searchResults([
      "Product withdrawals of camping shelters lowered harm in a cohort of campers.",
      ...Array.from({ length: 30 }, (_, i) => `Unrelated study ${i} about cell growth in patients.`),
      "Tent recalls tent recalls reduce injuries injuries: an index of tent recalls terms.",
    ]);
    const pooled = poolEvidence({ intent: q, pieces: results });
    expect(pooled[0].piece.id).toBe(results[0].id);
    expect(pooled[0].retrievalRank).toBe(1);
    // Its raw BM25 over the retrieved pieces still prefers the stuffed passage; within one search it does not decide the order.
    const stuffed = pooled.find((e) => e.piece.id === results[31].id)!;
    expect(stuffed.scores.bm25).toBeGreaterThan(pooled[0].scores.bm25);
    expect(pooled.map((e) => e.piece.id)).toEqual(results.map((p) => p.id));
  });

  it("a re-ranking round fuses its scorer's order with the engine's and keeps the piece's own score", async () => {
    const q = intent("Do tent recalls reduce injuries?", { keywords: ["tent", "recalls", "reduce", "injuries"] });
    const results = searchResults([
      "Product withdrawals of camping shelters lowered harm in a cohort of campers.",
      ...Array.from({ length: 30 }, (_, i) => `Unrelated study ${i} about cell growth in patients.`),
      "Tent recalls tent recalls reduce injuries injuries: an index of tent recalls terms.",
    ]);
    const pool = poolEvidence({ intent: q, pieces: results });
    const ranked = await rerankEvidence({ intent: q, pool, rounds: [{ scorer: "bm25", keep: 5 }] });
    expect(ranked.map((e) => e.piece.id)).toContain(results[0].id);
    expect(ranked[0].piece.id).toBe(results[0].id);
    expect(ranked[0].score).toBe(ranked[0].scores.bm25);
  });
});

describe("the pool's scores fitted to each search's own order", () => {
  it("gives a run of pieces out of the engine's order its mean score and leaves an ordered list alone", () => {
    const results = searchResults(["first", "second", "third", "fourth"]);
    expect(withinSearchOrderScores(results, results, [4, 3, 2, 1])).toEqual([4, 3, 2, 1]);
    // The engine's 2nd and 3rd are out of BM25 order: both get 2.5; the list keeps its total (10).
    expect(withinSearchOrderScores(results, results, [4, 2, 3, 1])).toEqual([4, 2.5, 2.5, 1]);
    // The whole list reversed: one block at the mean.
    expect(withinSearchOrderScores(results, results, [1, 2, 3, 4])).toEqual([2.5, 2.5, 2.5, 2.5]);
  });

  it("fits each search on its own, a piece two searches found in the list where it ranked best, structured pieces untouched", () => {
    const [a, b] = searchResults(["alpha first", "beta second"], "search one");
    const [c, d] = searchResults(["gamma first", "delta second"], "search two").map((p) => ({ ...p, id: `${p.id}-two` }));
    const bAgain = { ...b, provenance: { ...b.provenance, query: "search two" } };
    const sql = row("kb-sales", "Aurora sales database", "Query result", ["n"], [4], "SELECT count(*) AS n FROM stores", 0);
    // b is 2nd in search one and 1st in search two: it belongs to search two, where it leads c and d.
    const found = [a, b, bAgain, c, d, sql];
    const pieces = [a, b, c, d, sql];
    expect(withinSearchOrderScores(found, pieces, [1, 5, 3, 6, 9])).toEqual([1, 5, 4.5, 4.5, 9]);
  });

  it("the pool interleaves two searches by their fitted scores and keeps each one's order", () => {
    const q = intent("Do tent recalls reduce injuries?", { keywords: ["tent", "recalls", "reduce", "injuries"] });
    const weak = searchResults(["Unrelated study about cell growth.", "Another unrelated study about patients."], "cell growth");
    const strong = searchResults(
      ["Tent recalls reduce injuries in campers.", "Unrelated note on tent pegs.", "Tent recalls and injuries: recalls reduce injuries."],
      "tent recalls",
    ).map((p, i) => ({
      ...p,
      id: `${p.id}-strong-${i}`,
    }));
    const pooled = poolEvidence({ intent: q, pieces: [...weak, ...strong] }).map((e) => e.piece.id);
    const positions = (list: { id: string }[]) => list.map((p) => pooled.indexOf(p.id));
    for (const list of [weak, strong]) expect(positions(list)).toEqual([...positions(list)].sort((x, y) => x - y));
    expect(pooled[0]).toBe(strong[0].id);
  });
});

describe("values kept in each search's order (re-ranking's repeated signals)", () => {
  it("gives a search's k-th piece the search's k-th highest value, each search on its own, structured pieces untouched", () => {
    const [a, b, c] = searchResults(["alpha first", "beta second", "gamma third"], "search one");
    const [d, e] = searchResults(["delta first", "epsilon second"], "search two").map((p) => ({ ...p, id: `${p.id}-two` }));
    const sql = row("kb-sales", "Aurora sales database", "Query result", ["n"], [4], "SELECT count(*) AS n FROM stores", 0);
    // Search one arrives a, b, c with values 1, 3, 2: a gets the highest, 3. Search two is in order already.
    expect(inSearchOrder([a, d, b, sql, c, e], [1, 9, 3, 7, 2, 4])).toEqual([3, 9, 2, 7, 1, 4]);
    // The spread survives (no averaging into ties), so new evidence added on top moves pieces by exactly what it outweighs.
    expect(inSearchOrder([a, b, c], [1, 2, Number.NaN])).toEqual([2, 1, 0]);
  });
});

describe("the first round's blend of lexical and semantic scores", () => {
  it("weighs the halves on one scale: a wide-spread lexical score does not drown the bunched cosines", async () => {
    const { blendWithDense, minMaxScale } = await import("@/lib/pipeline/scorers");
    // Piece 0 is a little better lexically; piece 1 is far better by meaning (0.62 vs 0.30, the whole cosine range here).
    const lexical = [1.6, 1.0, 0.1];
    const dense = [0.3, 0.62, 0.31];
    const blended = blendWithDense(lexical, dense);
    expect(blended[1]).toBeGreaterThan(blended[0]);
    expect(minMaxScale([2, 4, Number.NaN, 3])).toEqual([0, 1, Number.NaN, 0.5]);
    expect(minMaxScale([5, 5])).toEqual([0, 0]);
    // A piece without a vector counts its lexical score for both halves.
    expect(blendWithDense([0, 1], [0.5, Number.NaN])).toEqual([0, 1]);
  });
});
