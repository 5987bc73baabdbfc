import { describe, expect, it } from "vitest";
import { FLOOR_SCORE_KEY, FEW_RESULTS } from "@/lib/pipeline/scorers";
import { classicalPool, dedupePieces, poolEvidence } from "@/lib/pipeline/stages/pool/classical";
import { context, fillerPassages, intent, passage, path, row, triple } from "./select-fixtures";

const SALES = ["kb-sales", "Aurora sales database"] as const;
const DOCS = ["kb-docs", "Aurora policies and reports"] as const;

describe("pool: Quasar's global BM25 pool", () => {
  const question = intent("How many tents did the Nordics region sell in 2025?", { answerTypes: ["count"], aggregate: "count" });
  const relevant = passage(...DOCS, "annual-report", 3, "In 2025 the Nordics region sold 4,210 tents, up from 3,900 in 2024.", ["Nordics"]);
  const aside = passage(...DOCS, "travel-policy", 1, "Employees book economy class for flights under six hours.");
  const count = row(
    ...SALES,
    "Query result",
    ["n"],
    [4210],
    "SELECT count(*) AS n FROM order_lines JOIN products USING (product_id) WHERE category = 'Tents'",
    0,
  );
  const fact = triple(
    "kb-graph",
    "Aurora product and organisation graph",
    ["http://aurora.example/p/summit-2", "Summit 2 Tent"],
    ["http://aurora.example/category", "category"],
    ["http://aurora.example/c/tents", "Tents"],
  );
  const graphPath = path(
    "kb-movies",
    "Movies graph",
    [
      { id: "n1", label: "Person", caption: "Tom Hanks" },
      { id: "n2", label: "Movie", caption: "Cast Away" },
    ],
    ["ACTED_IN"],
  );

  it("dedupes pieces by id, keeping the first copy", () => {
    const again = { ...relevant, provenance: { ...relevant.provenance, query: "another query" } };
    expect(dedupePieces([relevant, aside, again])).toEqual([relevant, aside]);
    const pooled = poolEvidence({ intent: question, pieces: [relevant, again, aside] });
    expect(pooled.map((e) => e.piece.id)).toEqual([relevant.id, aside.id]);
  });

  it("ranks pieces of every kind in one BM25 list against the concatenated intent", () => {
    const pooled = poolEvidence({ intent: question, pieces: [aside, fact, graphPath, relevant, count] });
    expect(pooled).toHaveLength(5);
    expect(pooled[0].piece.id).toBe(relevant.id);
    expect(pooled[0].scores.bm25).toBeGreaterThan(0);
    expect(new Set(pooled.map((e) => e.piece.kind))).toEqual(new Set(["passage", "row", "triple", "path"]));
    // Structured pieces have no search ranking to fuse with: among themselves the BM25 order stands.
    const structured = pooled.filter((e) => e.piece.kind !== "passage").map((e) => e.score);
    expect(structured).toEqual([...structured].sort((a, b) => b - a));
  });

  it("keeps a structured answer that shares no word with the question at a floor score", () => {
    // One search's forty results, in the engine's order.
    const filler = fillerPassages(40).map((p) => ({ ...p, provenance: { ...p.provenance, query: "tents Nordics 2025" } }));
    const pooled = poolEvidence({ intent: question, pieces: [...filler, relevant, count], limit: 10 });
    const kept = pooled.find((e) => e.piece.id === count.id);
    expect(kept).toBeDefined();
    expect(kept!.scores.bm25).toBe(0);
    expect(kept!.scores[FLOOR_SCORE_KEY]).toBeGreaterThan(0);
    expect(kept!.score).toBe(kept!.scores[FLOOR_SCORE_KEY]);
    // Lexical matches that are better than the floor still come first.
    expect(pooled[0].piece.id).toBe(relevant.id);
  });

  it("gives no floor to a structured query that returned many rows, nor to document search results", () => {
    const listing = Array.from({ length: FEW_RESULTS + 5 }, (_, i) =>
      row(...SALES, "customers", ["customer_id", "name"], [i, `Customer ${i}`], "SELECT * FROM customers", i),
    );
    const pooled = poolEvidence({ intent: question, pieces: [...listing, relevant, aside] });
    for (const e of pooled) expect(e.scores[FLOOR_SCORE_KEY]).toBeUndefined();
    const few = poolEvidence({ intent: question, pieces: [listing[0], aside] });
    expect(few.find((e) => e.piece.id === listing[0].id)!.scores[FLOOR_SCORE_KEY]).toBeGreaterThan(0);
    expect(few.find((e) => e.piece.id === aside.id)!.scores[FLOOR_SCORE_KEY]).toBeUndefined();
  });

  it("cuts the pool at the limit (1,000 by default)", async () => {
    const many = fillerPassages(1200);
    expect(poolEvidence({ intent: question, pieces: many })).toHaveLength(1000);
    expect(poolEvidence({ intent: question, pieces: many, limit: 25 })).toHaveLength(25);
    expect(poolEvidence({ intent: question, pieces: [] })).toEqual([]);
    const ctx = context();
    const pooled = await classicalPool.run({ intent: question, pieces: [...many.slice(0, 5), count] }, ctx);
    expect(pooled).toHaveLength(6);
    expect(ctx.events[0].summary).toContain("6 pieces → 6 in the pool (1 from targeted structured queries kept at a floor score)");
  });
});
