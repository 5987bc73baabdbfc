import { describe, expect, it } from "vitest";
import type { EvidencePiece } from "@/lib/backends/types";
import {
  classicalSelectEvidence,
  evidenceKindLabel,
  kbContributions,
  plainEvidenceKind,
  selectEvidence,
} from "@/lib/pipeline/stages/select-evidence/classical";
import type { Candidate, ExecutedQuery, ScoredEvidence } from "@/lib/pipeline/contracts";
import { context, intent, mention, passage, path, row, triple } from "./select-fixtures";

const SALES = ["kb-sales", "Aurora sales database"] as const;
const DOCS = ["kb-docs", "Aurora policies and reports"] as const;
const GRAPH = ["kb-graph", "Aurora product and organisation graph"] as const;

const scored = (pieces: [EvidencePiece, number][]): ScoredEvidence[] =>
  pieces.map(([piece, score]) => ({ piece, score, scores: { combined: score } }));
const candidate = (kbId: string, kbName: string, score: number, kind: Candidate["kind"]): Candidate => ({
  kbId,
  kbName,
  kind,
  score,
  sourceObjects: [],
  reasons: [],
});
const executed = (kbId: string, kbName: string, status: ExecutedQuery["status"], rows: number): ExecutedQuery => ({
  kbId,
  kbName,
  kind: "SQL",
  query: { language: "sql", text: "SELECT 1" },
  strategy: "schema-linking",
  sourceObject: null,
  explanation: "",
  status,
  rows,
  truncated: false,
  ms: 3,
  evidenceIds: [],
});

const q = intent("How many Summit 2 Tents were sold in the Nordics in 2025?", {
  answerTypes: ["count"],
  aggregate: "count",
  entities: [
    mention("Summit 2 Tent", [{ kbId: "kb-sales", label: "Summit 2 Tent" }]),
    mention("Nordics", [{ kbId: "kb-sales", label: "Nordics" }]),
  ],
});
const SQL =
  "SELECT sum(quantity) AS tents FROM order_lines JOIN products USING (product_id) JOIN orders USING (order_id) JOIN regions USING (region_id) WHERE products.name = 'Summit 2 Tent' AND regions.name = 'Nordics'";
const total = row(...SALES, "Query result", ["tents"], [412], SQL, 0);
const byMonth = [1, 2].map((m) =>
  row(
    ...SALES,
    "order_lines",
    ["product", "region", "month", "quantity"],
    ["Summit 2 Tent", "Nordics", `2025-0${m}`, 30 + m],
    "SELECT … GROUP BY month",
    m,
  ),
);
const report = passage(...DOCS, "annual-report", 4, "The Nordics sold 412 Summit 2 Tents in 2025, our best-selling tent.", [
  "Nordics",
  "Summit 2 Tents",
]);
const policy = passage(...DOCS, "returns-policy", 1, "Tents may be returned within 30 days.", []);
const material = triple(
  ...GRAPH,
  ["http://aurora.example/p/summit-2", "Summit 2 Tent"],
  ["http://aurora.example/madeOf", "made of"],
  ["http://aurora.example/m/ripstop", "ripstop nylon"],
);

describe("select evidence: OmniRetrieval's cross-source selection", () => {
  const candidates = [candidate(...SALES, 0.6, "SQL"), candidate(...DOCS, 0.4, "DOCUMENTS"), candidate(...GRAPH, 0.2, "SPARQL")];
  const runs = [executed(...SALES, "ok", 1), executed(...SALES, "ok", 2), executed(...DOCS, "ok", 5), executed(...GRAPH, "empty", 0)];

  it("picks the KB that contributed the best and most of the top pieces, and says why in plain words (the tally goes to the trace)", () => {
    const ranked = scored([
      [total, 0.9],
      [report, 0.7],
      [byMonth[0], 0.6],
      [byMonth[1], 0.55],
      [policy, 0.3],
      [material, 0.2],
    ]);
    const { winner, contributions, tally } = selectEvidence({ intent: q, ranked, candidates, executed: runs });
    expect(winner).toEqual({
      kbId: "kb-sales",
      kbName: "Aurora sales database",
      reason:
        "a count or total over its database matched the question best; Aurora policies and reports was searched too and matched less well.",
    });
    expect(winner?.reason).not.toMatch(/pieces|SQL|aggregate|score|\d/);
    expect(tally).toBe(
      "3 of the top 5 pieces and the best score came from Aurora sales database (SQL aggregate); next was Aurora policies and reports with 2 of the top 5; 2 of its 2 queries returned results",
    );
    expect(contributions.map((c) => c.kbId)).toEqual(["kb-sales", "kb-docs", "kb-graph"]);
    expect(contributions[2]).toMatchObject({ inTop: 0, queriesOk: 0, queriesRun: 1 });
  });

  it("keeps the winner's pieces and the others' that agree, compete or complement; drops the rest", () => {
    const ranked = scored([
      [total, 0.9],
      [report, 0.7],
      [byMonth[0], 0.6],
      [byMonth[1], 0.55],
      [policy, 0.3],
      [material, 0.2],
    ]);
    const { evidence, keptBecause } = selectEvidence({ intent: q, ranked, candidates, executed: runs });
    // The report states 412 as the SQL total does: two sources agree. The returns policy and the material fact do not help.
    expect(evidence.map((e) => e.piece.id)).toEqual([total.id, report.id, byMonth[0].id, byMonth[1].id]);
    expect(keptBecause[report.id]).toBe("agrees");
    expect(keptBecause[total.id]).toBe("winner");

    const near = selectEvidence({
      intent: q,
      ranked: scored([
        [total, 0.9],
        [policy, 0.85],
      ]),
      candidates,
      executed: runs,
    });
    expect(near.keptBecause[policy.id]).toBe("near-best");
  });

  it("keeps another kind of source when it names an entity the winner's evidence does not (two kinds needed)", () => {
    const twoKinds = intent("What is the Summit 2 Tent made of, and how many sold in the Nordics?", {
      entities: [
        mention("Summit 2 Tent", [{ kbId: "kb-graph", label: "Summit 2 Tent" }]),
        mention("Nordics", [{ kbId: "kb-sales", label: "Nordics" }]),
      ],
    });
    const nordics = row(
      ...SALES,
      "regions",
      ["name", "tents_sold"],
      ["Nordics", 380],
      "SELECT name, tents_sold FROM regions WHERE name = 'Nordics'",
      0,
    );
    const ranked = scored([
      [material, 0.8],
      [nordics, 0.5],
      [policy, 0.4],
    ]);
    const { winner, evidence, keptBecause } = selectEvidence({ intent: twoKinds, ranked, candidates, executed: [] });
    expect(winner?.kbId).toBe("kb-graph");
    expect(winner?.reason).toContain("facts in its graph");
    expect(evidence.map((e) => e.piece.id)).toEqual([material.id, nordics.id]);
    expect(keptBecause[nordics.id]).toBe("complements");
  });

  it("caps the evidence at the limit, the winner's first, and has no winner without evidence", () => {
    const many = Array.from({ length: 40 }, (_, i) =>
      row(...SALES, "orders", ["order_id", "total"], [i, 100 + i], "SELECT * FROM orders", i),
    );
    const ranked = scored(many.map((p, i) => [p, 1 - i / 100] as [EvidencePiece, number]));
    expect(selectEvidence({ intent: q, ranked, candidates, executed: runs }).evidence).toHaveLength(30);
    expect(selectEvidence({ intent: q, ranked, candidates, executed: runs, limit: 5 }).evidence.map((e) => e.piece.id)).toEqual(
      many.slice(0, 5).map((p) => p.id),
    );
    expect(selectEvidence({ intent: q, ranked: [], candidates, executed: runs })).toMatchObject({ winner: null, evidence: [] });
  });

  it("query success and selection break ties between equal evidence", () => {
    const a = passage(...DOCS, "a", 0, "Tents.");
    const b = row(...SALES, "products", ["name"], ["Tent"], "SELECT name FROM products", 0);
    const ranked = scored([
      [a, 0.5],
      [b, 0.5],
    ]);
    const contributions = kbContributions(ranked, candidates, [executed(...DOCS, "error", 0), executed(...SALES, "ok", 1)]);
    expect(contributions[0].kbId).toBe("kb-sales");
  });

  it("labels evidence kinds in words", () => {
    expect(evidenceKindLabel(total)).toBe("SQL aggregate");
    expect(evidenceKindLabel(byMonth[0])).toBe("SQL rows");
    expect(evidenceKindLabel(report)).toBe("document passages");
    expect([total, byMonth[0], report, material].map(plainEvidenceKind)).toEqual([
      "a count or total over its database",
      "records in its database",
      "passages of its documents",
      "facts in its graph",
    ]);
    expect(evidenceKindLabel(material)).toBe("RDF facts");
    expect(evidenceKindLabel(path("kb-movies", "Movies graph", [{ id: "a", label: "Person", caption: "A" }], []))).toBe("graph paths");
  });

  it("the stage strategy returns the selection and traces the contributions", async () => {
    const ctx = context();
    const ranked = scored([
      [total, 0.9],
      [policy, 0.3],
    ]);
    const selection = await classicalSelectEvidence.run({ intent: q, ranked, candidates, executed: runs }, ctx);
    expect(Object.keys(selection).sort()).toEqual(["evidence", "result", "winner"]);
    // No answer query ran: nothing to commit to, the evidence decides.
    expect(selection.result).toBeNull();
    expect(selection.winner?.kbName).toBe("Aurora sales database");
    expect(ctx.events[0].summary).toMatch(/^Aurora sales database won: 1 of the top 2 pieces and the best score/);
  });
});
