import { describe, expect, it } from "vitest";
import { aggregate, flattenMetrics, percentile, stageMetrics } from "@/lib/eval/metrics/aggregate";
import { result } from "./fixtures";

describe("suite metrics from per-question results", () => {
  it("percentiles are nearest-rank", () => {
    const ms = [10, 20, 30, 40, 50, 60, 70, 80, 90, 100];
    expect(percentile(ms, 50)).toBe(50);
    expect(percentile(ms, 95)).toBe(100);
    expect(percentile([5], 95)).toBe(5);
    expect(percentile([], 50)).toBeNaN();
  });

  it("source selection: gold among the candidates, ranked first, answer from it", () => {
    const src = (inCandidates: boolean, rankedFirst: boolean, winnerCorrect: boolean) => ({
      candidates: [],
      winner: null,
      inCandidates,
      rankedFirst,
      winnerCorrect,
    });
    const m = aggregate([
      result({ id: "1", gold: { answers: [], unanswerable: false, kbNames: ["A"] }, source: src(true, true, true) }),
      result({ id: "2", gold: { answers: [], unanswerable: false, kbNames: ["A"] }, source: src(true, false, false) }),
      result({ id: "3", gold: { answers: [], unanswerable: false, kbNames: ["B"] }, source: src(false, false, false) }),
      result({ id: "4", gold: { answers: [], unanswerable: true, kbNames: [] } }), // no gold source: not scored
    ]);
    expect(m.source.n).toBe(3);
    expect(m.source.values.inCandidates).toBeCloseTo(2 / 3, 12);
    expect(m.source.values.rankedFirst).toBeCloseTo(1 / 3, 12);
    expect(m.source.values.winner).toBeCloseTo(1 / 3, 12);
  });

  it("refrain rate over all questions; refrain accuracy over judgeable decisions", () => {
    const m = aggregate([
      // answered and right; answered and wrong; refrained on an unanswerable question; refrained although it knew.
      result({ id: "1", scores: { p1: true, em: 1, f1: 1 }, refrain: { refrained: false, correctDecision: true } }),
      result({ id: "2", scores: { p1: false, em: 0, f1: 0.5 }, refrain: { refrained: false, correctDecision: false } }),
      result({
        id: "3",
        status: "REFRAINED",
        answer: null,
        gold: { answers: [], unanswerable: true, kbNames: [] },
        refrain: { refrained: true, correctDecision: true },
      }),
      result({
        id: "4",
        status: "REFRAINED",
        answer: null,
        scores: { p1: false, em: 0, f1: 0 },
        refrain: { refrained: true, correctDecision: false },
      }),
    ]);
    expect(m.refrain.values.rate).toBe(0.5);
    expect(m.refrain.values.accuracy).toBe(0.5);
    expect(m.refrain.values.unanswerableRefrained).toBe(1);
    // Results without what was shown (reports written before it) give no shown accuracy.
    expect(m.refrain.values.shownAccuracy).toBeUndefined();
    // Answer accuracy only over the three answerable questions: P@1 1/3, EM 1/3, F1 (1 + 0.5 + 0) / 3.
    expect(m.answer.n).toBe(3);
    expect(m.answer.values["p@1"]).toBeCloseTo(1 / 3, 12);
    expect(m.answer.values.f1).toBeCloseTo(0.5, 12);
    expect(m.counts).toEqual({ answered: 2, refrained: 2, failed: 0 });
  });

  it("right to show or hold back: an answer marked not certain is held back, rightly when it is wrong", () => {
    const judged = (id: string, shown: boolean, correct: boolean, refrained = false) =>
      result({
        id,
        shown,
        correct,
        scores: { p1: correct, em: 0, f1: 0 },
        refrain: { refrained, correctDecision: refrained ? !correct : correct },
      });
    const m = aggregate([
      judged("1", true, true), // shown and right
      judged("2", false, false), // not certain and wrong: rightly held back
      judged("3", false, true), // not certain although right
      judged("4", false, false, true), // refrained, the held-back value wrong
      judged("5", true, false), // shown and wrong
    ]);
    // Refrain accuracy reads only refusals: 1, 4 right; 2 and 3 count as answers (2 wrong, 3 right), 5 wrong.
    expect(m.refrain.values.accuracy).toBeCloseTo(3 / 5, 12);
    // As the user sees it: 1, 2 and 4 right; 3 and 5 wrong.
    expect(m.refrain.values.shownAccuracy).toBeCloseTo(3 / 5, 12);
    const m2 = aggregate([judged("1", true, true), judged("2", false, false), judged("3", true, false)]);
    expect(m2.refrain.values.accuracy).toBeCloseTo(1 / 3, 12);
    expect(m2.refrain.values.shownAccuracy).toBeCloseTo(2 / 3, 12);
  });

  it("AP@k per ranking: share of questions whose first answer-bearing piece is within k", () => {
    const p = (pool: number | null, rr: number | null) => ({ pool: { rank: pool, depth: 200 }, "rerank:1:bm25": { rank: rr, depth: 30 } });
    const m = aggregate([
      result({ id: "1", presence: p(1, 1) }),
      result({ id: "2", presence: p(7, 3) }),
      result({ id: "3", presence: p(150, null) }),
      result({ id: "4", presence: p(null, null) }),
    ]);
    expect(m.presence.pool.values["ap@1"]).toBe(0.25);
    expect(m.presence.pool.values["ap@10"]).toBe(0.5);
    expect(m.presence.pool.values["ap@100"]).toBe(0.5);
    // Cuts deeper than the ranking are not reported (AP@1000 of a 200-deep pool says nothing new).
    expect(m.presence.pool.values["ap@1000"]).toBeUndefined();
    expect(m.presence["rerank:1:bm25"].values["ap@5"]).toBe(0.5);
    expect(m.presence["rerank:1:bm25"].values["ap@100"]).toBeUndefined();
  });

  it("retrieval, execution and latency, with breakdowns by kind", () => {
    const m = aggregate([
      result({
        id: "1",
        kind: "DOCUMENTS",
        retrieval: { relevant: 1, ranks: [1], retrievedDepth: 50, top: [] },
        timings: { total: 100, pool: 10 },
      }),
      result({
        id: "2",
        kind: "DOCUMENTS",
        retrieval: { relevant: 2, ranks: [3, null], retrievedDepth: 50, top: [] },
        timings: { total: 300, pool: 30 },
      }),
      result({
        id: "3",
        kind: "SQL",
        execution: {
          language: "sql",
          kbName: "k",
          query: "q",
          match: true,
          matchColumns: true,
          anyMatch: true,
          goldRows: 1,
          predictedRows: 1,
        },
        timings: { total: 200 },
      }),
      result({
        id: "4",
        kind: "SQL",
        execution: {
          language: "sql",
          kbName: "k",
          query: "q",
          match: false,
          matchColumns: true,
          anyMatch: false,
          goldRows: 1,
          predictedRows: 1,
        },
        timings: { total: 400 },
      }),
    ]);
    expect(m.retrieval.n).toBe(2);
    expect(m.retrieval.values["hit@1"]).toBe(0.5);
    expect(m.retrieval.values["mrr@10"]).toBeCloseTo((1 + 1 / 3) / 2, 12);
    expect(m.retrieval.values["recall@100"]).toBe(0.75);
    expect(m.execution.values.match).toBe(0.5);
    expect(m.execution.values.matchColumns).toBe(1);
    expect(m.latency.total).toEqual({ p50: 200, p95: 400, n: 4 });
    expect(m.latency.pool).toEqual({ p50: 10, p95: 30, n: 2 });
    expect(Object.keys(m.byKind)).toEqual(["DOCUMENTS", "SQL"]);
    expect(m.byKind.SQL.values["execution.match"]).toBe(0.5);
    expect(m.byKind.DOCUMENTS.values["execution.match"]).toBeUndefined();
    const flat = flattenMetrics(m);
    expect(flat["retrieval.hit@1"]).toBe(0.5);
    expect(flat["latency.total.p95"]).toBe(400);
  });

  it("strict execution match counts only the gold database; the wrong-database figure is kept as a diagnostic", () => {
    const ex = (kbName: string, onGoldKb: boolean, resultMatch: boolean, matchColumns: boolean) => ({
      language: "sql",
      kbName,
      query: "q",
      match: onGoldKb && resultMatch,
      matchColumns: onGoldKb && matchColumns,
      anyMatch: onGoldKb && resultMatch,
      onGoldKb,
      resultMatch,
      goldRows: 0,
      predictedRows: 0,
    });
    const m = aggregate([
      // Right rows on the gold database; right rows (an empty result) from another database; extra columns on the gold one; wrong rows.
      result({ id: "1", tags: ["db:a", "hardness:easy"], execution: ex("Spider: a", true, true, true) }),
      result({ id: "2", tags: ["db:a", "hardness:hard"], execution: ex("Spider: b", false, true, true) }),
      result({ id: "3", tags: ["db:c", "hardness:easy"], execution: ex("Spider: c", true, false, true) }),
      result({ id: "4", tags: ["db:c", "hardness:extra"], execution: ex("Spider: c", true, false, false) }),
    ]);
    expect(m.execution.values.match).toBe(0.25);
    expect(m.execution.values.matchColumns).toBe(0.5);
    expect(m.execution.values.matchAnyKb).toBe(0.5);
    // Per database and per hardness class.
    expect(m.breakdowns?.db.a).toEqual({
      n: 2,
      values: expect.objectContaining({ "execution.match": 0.5, "execution.matchColumns": 0.5 }),
    });
    expect(m.breakdowns?.db.c.values["execution.match"]).toBe(0);
    expect(m.breakdowns?.hardness.easy.values["execution.match"]).toBe(0.5);
    expect(m.breakdowns?.hardness.hard.values["execution.match"]).toBe(0);
    expect(Object.keys(m.breakdowns?.hardness ?? {}).sort()).toEqual(["easy", "extra", "hard"]);
    // A tag with a single value says nothing a breakdown could add.
    expect(aggregate([result({ id: "1", tags: ["db:a"] }), result({ id: "2", tags: ["db:a"] })]).breakdowns).toEqual({});
  });

  it("document retrieval per ranking stage, with the change from the stage before (a stage that hurts is negative)", () => {
    const stages = (first: number | null, pool: number | null, rerank: number | null) => [
      { label: "retrieval", ranks: [first], depth: 100 },
      { label: "pool", ranks: [pool], depth: 100 },
      { label: "rerank:1:bm25", ranks: [rerank], depth: 100 },
    ];
    const rs = [
      // The pool pushes the relevant document from 1 to 3; the re-rank brings it back to 1.
      result({ id: "1", kind: "DOCUMENTS", retrieval: { relevant: 1, ranks: [1], retrievedDepth: 100, top: [], stages: stages(1, 3, 1) } }),
      // Found at 2 by the first stage, lost beyond 100 by the pool, not recovered.
      result({
        id: "2",
        kind: "DOCUMENTS",
        retrieval: { relevant: 1, ranks: [null], retrievedDepth: 100, top: [], stages: stages(2, null, null) },
      }),
    ];
    const m = stageMetrics(rs);
    expect(m.map((s) => s.label)).toEqual(["retrieval", "pool", "rerank:1:bm25"]);
    // NDCG@10: first stage (1 + 1/log2 3) / 2 = 0.81546; pool (1/log2 4 + 0) / 2 = 0.25; re-rank (1 + 0) / 2 = 0.5.
    expect(m[0].values["ndcg@10"]).toBeCloseTo((1 + 1 / Math.log2(3)) / 2, 12);
    expect(m[1].values["ndcg@10"]).toBeCloseTo(0.25, 12);
    expect(m[2].values["ndcg@10"]).toBeCloseTo(0.5, 12);
    expect(m[0].delta["ndcg@10"]).toBeNull();
    expect(m[1].delta["ndcg@10"]).toBeCloseTo(0.25 - (1 + 1 / Math.log2(3)) / 2, 12);
    expect(m[2].delta["ndcg@10"]).toBeCloseTo(0.25, 12);
    expect(m[1].values["recall@100"]).toBe(0.5);
    expect(m[1].delta["recall@100"]).toBe(-0.5);
    expect(m[1].values["mrr@10"]).toBeCloseTo(1 / 6, 12);
    // The same figures reach the report and the flat keys the comparison reads.
    const all = aggregate(rs);
    expect(all.retrievalStages).toEqual(m);
    expect(flattenMetrics(all)["stage.pool.ndcg@10"]).toBeCloseTo(0.25, 12);
    // A question whose run had no re-rank keeps the pool's ranking for that stage.
    const skipped = stageMetrics([
      result({
        id: "3",
        retrieval: { relevant: 1, ranks: [2], retrievedDepth: 9, top: [], stages: [{ label: "pool", ranks: [2], depth: 9 }] },
      }),
      ...rs,
    ]);
    expect(skipped.find((s) => s.label === "rerank:1:bm25")!.values["mrr@10"]).toBeCloseTo((0.5 + 1 + 0) / 3, 12);
    // Results recorded before stage metrics have none.
    expect(stageMetrics([result({ id: "4", retrieval: { relevant: 1, ranks: [1], retrievedDepth: 1, top: [] } })])).toEqual([]);
  });

  it("leaves questions the evaluation could not start out of the metrics, counting them as failed", () => {
    const m = aggregate([
      result({ id: "1", scores: { p1: true, em: 1, f1: 1 } }),
      result({ id: "2", status: "ERROR", answer: null, error: "no access", scores: { p1: null, em: null, f1: null } }),
    ]);
    expect(m.answer.n).toBe(1);
    expect(m.answer.values["p@1"]).toBe(1);
    expect(m.counts.failed).toBe(1);
  });

  it("sums LLM usage when runs report it", () => {
    const m = aggregate([
      result({ id: "1", usage: { tokens: 1200, costUsd: 0.002, calls: 3, model: "m" } }),
      result({ id: "2", usage: { tokens: 800, costUsd: 0.001, calls: 2, model: "m" } }),
      result({ id: "3" }),
    ]);
    expect(m.usage).toEqual({ runsWithLlm: 2, tokens: 2000, costUsd: expect.closeTo(0.003, 12) });
    expect(aggregate([result({ id: "1" })]).usage).toBeNull();
  });
});
