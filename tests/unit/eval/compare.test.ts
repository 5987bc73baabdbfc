import { describe, expect, it } from "vitest";
import { compareReports } from "@/lib/eval/compare";
import { tableAnswers } from "@/lib/eval/gold/answers";
import { aggregate } from "@/lib/eval/metrics/aggregate";
import { formatComparison } from "@/lib/eval/format";
import { result } from "./fixtures";

const report = (results: ReturnType<typeof result>[], seed = 1) => ({
  suite: "demo",
  suiteLabel: "Demo",
  seed,
  n: results.length,
  perQuestion: results,
  metrics: aggregate(results),
});

describe("comparing two reports", () => {
  const right = (id: string, answer: string) => result({ id, answer, scores: { p1: true, em: 1, f1: 1 } });
  const wrong = (id: string, answer: string) => result({ id, answer, scores: { p1: false, em: 0, f1: 0 } });

  it("gives per-metric deltas (B − A) and the questions that changed", () => {
    const a = report([right("q1", "7"), wrong("q2", "3"), right("q3", "Oslo"), wrong("q4", "x")]);
    const b = report([wrong("q1", "8"), right("q2", "4"), right("q3", "Oslo"), wrong("q4", "y")]);
    const c = compareReports(a, b);
    const p1 = c.metrics.find((m) => m.key === "answer.p@1")!;
    expect(p1).toMatchObject({ a: 0.5, b: 0.5, delta: 0 });
    expect(c.counts).toMatchObject({ common: 4, fixed: 1, broken: 1, changed: 1 });
    expect(c.changes.map((x) => [x.id, x.change])).toEqual([
      ["q1", "broken"],
      ["q2", "fixed"],
      ["q4", "changed"],
    ]);
    expect(c.warnings).toEqual([]);
    const text = formatComparison(c);
    expect(text).toContain("Broken (right in A, wrong in B)");
    expect(text).toMatch(/P@1 \(answer correct\)\s+50\.0%\s+50\.0%\s+±0\.0 pt/);
  });

  it("warns when the reports are not over the same questions", () => {
    const c = compareReports(report([right("q1", "7")], 1), report([right("q1", "7"), right("q9", "1")], 2));
    expect(c.counts.onlyInB).toBe(1);
    expect(c.warnings.join(" ")).toMatch(/different seeds/);
    expect(c.warnings.join(" ")).toMatch(/only in the second/);
  });

  it("warns when the reports read different question files (ids are positions in a file)", () => {
    const file = (sha: string) => ({ name: "held-out.json", sha256: sha.repeat(64) });
    const a = { ...report([right("q1", "7")]), questionsFile: file("a") };
    expect(compareReports(a, { ...report([right("q1", "7")]), questionsFile: file("a") }).warnings).toEqual([]);
    expect(compareReports(a, { ...report([right("q1", "7")]), questionsFile: file("b") }).warnings).toEqual([
      `The reports read different questions (held-out.json (sha256 ${"a".repeat(12)}…) and held-out.json (sha256 ${"b".repeat(12)}…)): questions with the same id may differ.`,
    ]);
    expect(compareReports(a, report([right("q1", "7")])).warnings.join(" ")).toMatch(/and the suite's own questions/);
  });

  it("compares retrieval per ranking stage between reports", () => {
    const stages = (first: number, pool: number) =>
      result({
        id: "d1",
        retrieval: {
          relevant: 1,
          ranks: [pool],
          retrievedDepth: 10,
          top: [],
          stages: [
            { label: "retrieval", ranks: [first], depth: 10 },
            { label: "pool", ranks: [pool], depth: 10 },
          ],
        },
      });
    const c = compareReports(report([stages(1, 3)]), report([stages(1, 1)]));
    expect(c.metrics.find((m) => m.key === "stage.pool.mrr@10")).toMatchObject({
      group: "Retrieval by stage",
      label: "MRR@10 after pool",
      a: 1 / 3,
      b: 1,
      delta: expect.closeTo(2 / 3, 12),
    });
    expect(c.metrics.find((m) => m.key === "stage.retrieval.ndcg@10")).toMatchObject({
      label: "NDCG@10 after first-stage retrieval",
      delta: 0,
    });
    // Stages come right after the final retrieval figures, in the order the run makes them.
    const keys = c.metrics.map((m) => m.key).filter((k) => k.startsWith("stage."));
    expect(keys.slice(0, 4)).toEqual([
      "stage.retrieval.ndcg@10",
      "stage.retrieval.recall@100",
      "stage.retrieval.mrr@10",
      "stage.pool.ndcg@10",
    ]);
  });
});

describe("a gold result table read as an answer", () => {
  const t = (columns: string[], rows: unknown[][]) => ({ columns, rows, truncated: false });

  it("one value; one column as a list; one row of several columns as its cells", () => {
    expect(tableAnswers(t(["count"], [[7]]))).toMatchObject({ items: ["7"], list: false });
    expect(tableAnswers(t(["name"], [["Oslo"], ["Berlin"], ["Oslo"]]))).toMatchObject({ items: ["Oslo", "Berlin"], list: true });
    expect(tableAnswers(t(["name", "age"], [["Joe", 52]]))).toMatchObject({ items: ["Joe", "52"], list: true });
    expect(
      tableAnswers(
        t(
          ["name", "age"],
          [
            ["Joe", 52],
            ["Ann", 41],
          ],
        ),
      ),
    ).toMatchObject({ items: ["Joe 52", "Ann 41"], cells: ["Joe", "52", "Ann", "41"] });
    expect(tableAnswers(t(["avg"], [[76.66666666666667]])).items).toEqual(["76.6666666667"]);
  });

  it("names RDF terms and graph nodes as people do", () => {
    const node = { __kind: "node", id: "4:x:1", labels: ["Person"], properties: { name: "Keanu Reeves", born: 1964 } };
    const iri = { termType: "NamedNode", value: "http://mosaic.local/spider/x/singer/Singer_ID=1" };
    expect(tableAnswers(t(["p"], [[node]])).items).toEqual(["Keanu Reeves"]);
    expect(tableAnswers(t(["s"], [[{ termType: "Literal", value: "Joe Sharp" }]])).items).toEqual(["Joe Sharp"]);
    expect(tableAnswers(t(["s"], [[iri]])).items).toEqual(["Singer ID=1"]);
    expect(tableAnswers(t(["x"], [])).items).toEqual([]);
  });
});

describe("command-line tables", () => {
  it("summarizes suites side by side, and says which were skipped", async () => {
    const { formatSummary, formatReport } = await import("@/lib/eval/format");
    const results = [
      result({ id: "a", scores: { p1: true, em: 1, f1: 1 }, timings: { total: 120 } }),
      result({ id: "b", scores: { p1: false, em: 0, f1: 0.5 }, timings: { total: 80 } }),
    ];
    const r = {
      ...report(results),
      suiteLabel: "Demo",
      config: {},
      configInput: {},
      limit: 2,
      reportId: "r1",
      startedAt: null,
      finishedAt: null,
      concurrency: 2,
      wallMs: 1000,
      status: "DONE" as const,
      error: null,
    };
    const text = formatSummary([
      { suite: "demo", report: r, wallMs: 1500 },
      { suite: "text2cypher", skipped: "no Neo4j", wallMs: 10 },
    ]);
    expect(text).toMatch(/demo\s+2\s+.*50\.0%\s+75\.0%/);
    expect(text).toMatch(/text2cypher\s+skipped/);
    const full = formatReport(r);
    expect(full).toMatch(/Demo · 2 questions · seed 1 · limit 2/);
    expect(full).toMatch(/P@1 \(answer correct\)\s+50\.0%\s+2/);
    expect(full).toMatch(/total\s+80 ms\s+120 ms/);
  });
});

describe("metric order survives storage", () => {
  it("sorts stages, rankings and metric keys as the pipeline runs them, whatever order JSONB returned", async () => {
    const { compareMetricKeys, rankingRank, sortedEntries, stageRank } = await import("@/lib/eval/metric-labels");
    // JSONB orders keys by length: this is how stored latency comes back.
    const stored = {
      pool: 1,
      answer: 2,
      rerank: 3,
      select: 4,
      execute: 5,
      critique: 6,
      formulate: 7,
      understand: 8,
      "select-evidence": 9,
      total: 10,
    };
    expect(sortedEntries(stored, stageRank).map(([k]) => k)).toEqual([
      "understand",
      "select",
      "formulate",
      "execute",
      "pool",
      "rerank",
      "select-evidence",
      "answer",
      "critique",
      "total",
    ]);
    expect(sortedEntries({ evidence: 1, "rerank:2:combined": 2, pool: 3, "rerank:1:bm25": 4 }, rankingRank).map(([k]) => k)).toEqual([
      "pool",
      "rerank:1:bm25",
      "rerank:2:combined",
      "evidence",
    ]);
    const keys = [
      "latency.total.p50",
      "answer.f1",
      "presence.pool.ap@100",
      "presence.pool.ap@5",
      "source.winner",
      "source.inCandidates",
      "presence.rerank:1:x.ap@1",
      "answer.p@1",
    ];
    expect([...keys].sort(compareMetricKeys)).toEqual([
      "source.inCandidates",
      "source.winner",
      "presence.pool.ap@5",
      "presence.pool.ap@100",
      "presence.rerank:1:x.ap@1",
      "answer.p@1",
      "answer.f1",
      "latency.total.p50",
    ]);
  });
});
