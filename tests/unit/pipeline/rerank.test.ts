import { describe, expect, it } from "vitest";
import { FLOOR_SCORE_KEY, UnknownScorerError, scorerRegistry } from "@/lib/pipeline/scorers";
import { RunCancelledError } from "@/lib/pipeline/stage";
import { poolEvidence } from "@/lib/pipeline/stages/pool/classical";
import { DEFAULT_RERANK_ROUNDS, classicalRerank, rerankEvidence } from "@/lib/pipeline/stages/rerank/classical";
import type { EvidenceScorer } from "@/lib/pipeline/contracts";
import { context, fillerPassages, intent, mention, passage, path, row } from "./select-fixtures";

/** One search's results, in the engine's order. */
function searchResults(texts: string[], query: string): ReturnType<typeof passage>[] {
  return texts.map((t, i) => {
    const p = passage("kb-docs", "Aurora policies and reports", `doc-${query}-${i}`, 0, t);
    return { ...p, provenance: { ...p.provenance, query } };
  });
}

const DOCS = ["kb-docs", "Aurora policies and reports"] as const;
const question = intent("When did the Oslo store open?", {
  answerTypes: ["date"],
  entities: [mention("Oslo", [{ kbId: "kb-docs", label: "Oslo" }])],
});
const answer = passage(...DOCS, "stores", 2, "The Oslo store opened on March 3, 2021 after a long renovation.", ["Oslo"]);
const nearMiss = passage(...DOCS, "stores", 3, "The Oslo store sells tents and the store is open late; the Oslo store staff is friendly.", [
  "Oslo",
]);

describe("rerank: rounds of {scorer, keep}", () => {
  it("runs 1000 → 100 → 30 by default and records every round's scores", async () => {
    const pool = poolEvidence({ intent: question, pieces: [...fillerPassages(1100), nearMiss, answer] });
    expect(pool).toHaveLength(1000);
    const ranked = await rerankEvidence({ intent: question, pool });
    expect(DEFAULT_RERANK_ROUNDS.map((r) => r.keep)).toEqual([100, 30]);
    expect(ranked).toHaveLength(30);
    expect(ranked[0].piece.id).toBe(answer.id);
    expect(ranked[1].piece.id).toBe(nearMiss.id);
    for (const name of [
      "bm25",
      "bm25-entity",
      "combined",
      "combined:bm25",
      "combined:entity-overlap",
      "combined:answer-type",
      "combined:relation-fit",
    ]) {
      expect(ranked[0].scores[name]).toEqual(expect.any(Number));
    }
    expect(ranked[0].score).toBe(ranked[0].scores.combined);
  });

  it("follows configured rounds and keeps", async () => {
    const pool = poolEvidence({ intent: question, pieces: [...fillerPassages(50), nearMiss, answer] });
    const ranked = await rerankEvidence({
      intent: question,
      pool,
      rounds: [
        { scorer: "entity-overlap", keep: 10 },
        { scorer: "answer-type", keep: 3 },
      ],
    });
    expect(ranked).toHaveLength(3);
    // Only the two Oslo passages survive the entity round on merit; answer type then puts the dated one first.
    expect(ranked.slice(0, 2).map((e) => e.piece.id)).toEqual([answer.id, nearMiss.id]);
    expect(Object.keys(ranked[0].scores)).toEqual(expect.arrayContaining(["entity-overlap", "answer-type"]));
  });

  it("ties keep the previous order: a scorer that cannot tell pieces apart changes nothing", async () => {
    const pool = poolEvidence({ intent: question, pieces: fillerPassages(20) });
    const ranked = await rerankEvidence({
      intent: intent("When did the Oslo store open?"),
      pool,
      rounds: [{ scorer: "entity-overlap", keep: 20 }],
    });
    expect(ranked.map((e) => e.piece.id)).toEqual(pool.map((e) => e.piece.id));
  });

  it("keeps floored structured pieces through every round", async () => {
    const count = row("kb-sales", "Aurora sales database", "Query result", ["n"], [4], "SELECT count(*) AS n FROM stores", 0);
    const q = intent("How many stores are there in Norway?", { answerTypes: ["count"], aggregate: "count" });
    const pool = poolEvidence({ intent: q, pieces: [...fillerPassages(300), count] });
    expect(pool.find((e) => e.piece.id === count.id)!.scores[FLOOR_SCORE_KEY]).toBeGreaterThan(0);
    const ranked = await rerankEvidence({
      intent: q,
      pool,
      rounds: [
        { scorer: "bm25-entity", keep: 100 },
        { scorer: "bm25", keep: 30 },
      ],
    });
    const kept = ranked.find((e) => e.piece.id === count.id);
    expect(kept).toBeDefined();
    expect(kept!.scores["bm25-entity"]).toBe(0);
    expect(kept!.score).toBeGreaterThan(0);
  });

  it("takes an async batch scorer by name, passing the run's signal", async () => {
    const seen: { batch: number; signal?: AbortSignal }[] = [];
    const crossEncoder: EvidenceScorer = {
      name: "cross-encoder",
      async score(_intent, pieces, signal) {
        seen.push({ batch: pieces.length, signal });
        await new Promise((r) => setTimeout(r, 1));
        return pieces.map((p) => (p.kind === "path" ? 10 : 1));
      },
    };
    const graph = path("kb-movies", "Movies graph", [{ id: "a", label: "Person", caption: "Tom Hanks" }], []);
    const pool = poolEvidence({ intent: question, pieces: [answer, nearMiss, graph] });
    const ctx = context();
    const ranked = await classicalRerank.run(
      { intent: question, pool, rounds: [{ scorer: "cross-encoder", keep: 2 }], scorers: scorerRegistry(crossEncoder) },
      ctx,
    );
    // The path first; the two passages tie, so the search's order decides (the answer came first).
    expect(ranked.map((e) => e.piece.id)).toEqual([graph.id, answer.id]);
    expect(seen).toEqual([{ batch: 3, signal: ctx.signal }]);
    expect(ctx.events).toEqual([
      expect.objectContaining({
        stage: "rerank",
        type: "INFO",
        summary: "cross-encoder: 3 → 2; kept the search engine's order: no scorer with new evidence",
      }),
    ]);
  });

  it("rejects an unknown scorer before any round runs", async () => {
    const pool = poolEvidence({ intent: question, pieces: [answer] });
    await expect(
      rerankEvidence({
        intent: question,
        pool,
        rounds: [
          { scorer: "bm25", keep: 5 },
          { scorer: "nope", keep: 1 },
        ],
      }),
    ).rejects.toBeInstanceOf(UnknownScorerError);
  });

  it("a failing scorer degrades the round (previous order, cut to keep) and is traced", async () => {
    const broken: EvidenceScorer = { name: "broken", score: async () => Promise.reject(new Error("model server unreachable")) };
    const pool = poolEvidence({ intent: question, pieces: [...fillerPassages(10), answer] });
    const ctx = context();
    const ranked = await classicalRerank.run(
      { intent: question, pool, rounds: [{ scorer: "broken", keep: 4 }], scorers: scorerRegistry(broken) },
      ctx,
    );
    expect(ranked.map((e) => e.piece.id)).toEqual(pool.slice(0, 4).map((e) => e.piece.id));
    expect(ctx.events[0]).toMatchObject({ type: "ERROR", summary: expect.stringContaining("model server unreachable") });
  });

  it("stops when the run is cancelled", async () => {
    const ctx = context();
    ctx.controller.abort();
    const pool = poolEvidence({ intent: question, pieces: [answer] });
    await expect(classicalRerank.run({ intent: question, pool }, ctx)).rejects.toBeInstanceOf(RunCancelledError);
  });
});

describe("rerank within one search: the engine's order stands unless a scorer brings new evidence", () => {
  const tents = intent("Do tent recalls reduce injuries?", { keywords: ["tent", "recalls", "reduce", "injuries"] });
  /** One search's results in the engine's order: the best by meaning first, a keyword-stuffed passage the engine put last. */
  const oneSearch = (others = 4) =>
    [
      "Product withdrawals of camping shelters lowered harm in a cohort of campers.",
      ...Array.from({ length: others }, (_, i) => `Unrelated study ${i} about cell growth in patients.`),
      "Tent recalls tent recalls reduce injuries injuries: an index of tent recalls terms.",
    ].map((text, i) => {
      const p = passage(...DOCS, `doc-${i}`, 0, text);
      return { ...p, provenance: { ...p.provenance, query: "tent recalls reduce injuries" } };
    });

  it("a lexical round (BM25 over the retrieved pieces) keeps the search's order and says so", async () => {
    const results = oneSearch();
    const pool = poolEvidence({ intent: tents, pieces: results });
    const ctx = context();
    const ranked = await classicalRerank.run(
      {
        intent: tents,
        pool,
        rounds: [
          { scorer: "bm25", keep: 6 },
          { scorer: "bm25", keep: 3 },
        ],
      },
      ctx,
    );
    // BM25 over these 6 pieces puts the stuffed passage first by far; fused with the engine's ranks it would take third place.
    expect(ranked.map((e) => e.piece.id)).toEqual(results.slice(0, 3).map((p) => p.id));
    expect(ranked[0].score).toBe(ranked[0].scores.bm25);
    expect(ctx.events.map((e) => e.summary)).toEqual([
      "bm25: 6 → 6; kept the search engine's order: no scorer with new evidence",
      "bm25: 6 → 3; kept the search engine's order: no scorer with new evidence",
    ]);
    expect(ctx.events[0].payload).toMatchObject({ searchOrder: "kept: no new evidence" });
  });

  it("a question's one-word name is a word the engine matched: the entity round keeps the search's order; a name of several words reorders it", async () => {
    const results = oneSearch();
    const pool = poolEvidence({ intent: tents, pieces: results });
    const oneWord = intent("Do tent recalls reduce injuries?", {
      keywords: ["tent", "recalls", "reduce", "injuries"],
      entities: [mention("recalls")],
    });
    const ctx = context();
    const kept = await classicalRerank.run({ intent: oneWord, pool, rounds: [{ scorer: "bm25-entity", keep: 3 }] }, ctx);
    expect(kept.map((e) => e.piece.id)).toEqual(results.slice(0, 3).map((p) => p.id));
    expect(ctx.events[0].summary).toBe("bm25-entity: 6 → 3; kept the search engine's order: no scorer with new evidence");
    const phrase = intent("Do tent recalls reduce injuries?", {
      keywords: ["tent", "recalls", "reduce", "injuries"],
      entities: [mention("tent recalls")],
    });
    const informed = context();
    const reordered = await classicalRerank.run({ intent: phrase, pool, rounds: [{ scorer: "bm25-entity", keep: 6 }] }, informed);
    // The stuffed passage, which names "tent recalls" as a phrase, rises from the engine's last place to third.
    expect(reordered.map((e) => e.piece.id)).toEqual([0, 1, 5, 2, 3, 4].map((i) => results[i].id));
    expect(informed.events[0].summary).toBe("bm25-entity: 6 → 6; reordered search results on new evidence");
  });

  it("new evidence reorders a search: the passage holding the asked-for date and entity overtakes the engine's first", async () => {
    const sameSearch = (p: ReturnType<typeof passage>) => ({ ...p, provenance: { ...p.provenance, query: "oslo store open" } });
    const pieces = [sameSearch(nearMiss), sameSearch(answer)];
    const pool = poolEvidence({ intent: question, pieces });
    expect(pool.map((e) => e.piece.id)).toEqual([nearMiss.id, answer.id]);
    const ctx = context();
    const ranked = await classicalRerank.run({ intent: question, pool, rounds: [{ scorer: "combined", keep: 2 }] }, ctx);
    expect(ranked.map((e) => e.piece.id)).toEqual([answer.id, nearMiss.id]);
    expect(ctx.events[0].summary).toBe("combined: 2 → 2; reordered search results on new evidence");
  });

  it("a scorer that declares nothing repeated (a cross-encoder) is new evidence and may reorder a search", async () => {
    const results = oneSearch(3);
    const pool = poolEvidence({ intent: tents, pieces: results });
    const crossEncoder: EvidenceScorer = {
      name: "cross-encoder",
      score: async (_i, pieces) => pieces.map((p) => (p.id === results[4].id ? 0.99 : 0.1)),
    };
    const ctx = context();
    const ranked = await classicalRerank.run(
      { intent: tents, pool, rounds: [{ scorer: "cross-encoder", keep: 5 }], scorers: scorerRegistry(crossEncoder) },
      ctx,
    );
    // It rises from the engine's last place to third: the fusion with the engine's own ranking still weighs the engine's first two.
    expect(ranked.map((e) => e.piece.id)).toEqual([results[0], results[1], results[4], results[2], results[3]].map((p) => p.id));
    expect(ctx.events[0].summary).toBe("cross-encoder: 5 → 5; reordered search results on new evidence");
  });

  it("a statement asks for nothing a fusion could find: the phrase that reorders a question's search keeps the statement's", async () => {
    const results = oneSearch();
    const pool = poolEvidence({ intent: tents, pieces: results });
    const claim = intent("Tent recalls reduce injuries.", {
      keywords: ["tent", "recalls", "reduce", "injuries"],
      entities: [mention("tent recalls")],
      statement: true,
    });
    const ctx = context();
    const kept = await classicalRerank.run(
      {
        intent: claim,
        pool,
        rounds: [
          { scorer: "bm25-entity", keep: 6 },
          { scorer: "combined", keep: 3 },
        ],
      },
      ctx,
    );
    expect(kept.map((e) => e.piece.id)).toEqual(results.slice(0, 3).map((p) => p.id));
    expect(ctx.events.map((e) => e.summary)).toEqual([
      "bm25-entity: 6 → 6; kept the search engine's order: no scorer with new evidence",
      "combined: 6 → 3; kept the search engine's order: no scorer with new evidence",
    ]);
    // A cross-encoder reads the statement with each passage: it still judges the search's results.
    const crossEncoder: EvidenceScorer = {
      name: "cross-encoder",
      score: async (_i, pieces) => pieces.map((p) => (p.id === results[5].id ? 0.99 : 0.1)),
    };
    const judged = await classicalRerank.run(
      { intent: claim, pool, rounds: [{ scorer: "cross-encoder", keep: 6 }], scorers: scorerRegistry(crossEncoder) },
      context(),
    );
    expect(judged.findIndex((e) => e.piece.id === results[5].id)).toBeLessThan(5);
  });

  it("still interleaves different searches and structured pieces by the round's score", async () => {
    const weak = searchResults(["Unrelated study about cell growth.", "Another unrelated study about patients."], "cell growth");
    const strong = searchResults(["Tent recalls reduce injuries in campers.", "Unrelated note on tent pegs."], "tent recalls").map(
      (p, i) => ({ ...p, id: `${p.id}-strong-${i}` }),
    );
    const pool = poolEvidence({ intent: tents, pieces: [...weak, ...strong] });
    const ranked = await rerankEvidence({ intent: tents, pool, rounds: [{ scorer: "bm25", keep: 4 }] });
    expect(ranked[0].piece.id).toBe(strong[0].id);
    const at = (id: string) => ranked.findIndex((e) => e.piece.id === id);
    expect(at(weak[0].id)).toBeLessThan(at(weak[1].id));
    expect(at(strong[0].id)).toBeLessThan(at(strong[1].id));
  });
});
