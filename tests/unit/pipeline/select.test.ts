import { describe, expect, it } from "vitest";
import { RunCancelledError } from "@/lib/pipeline/stage";
import {
  SELECTION_WEIGHTS,
  buildCatalogIndex,
  catalogIndexFor,
  classicalSelect,
  selectSources,
} from "@/lib/pipeline/stages/select/classical";
import { CATALOG, context, intent, mention } from "./select-fixtures";

const ids = (cs: { kbId: string }[]) => cs.map((c) => c.kbId);

describe("select: ranking the catalog", () => {
  it("ranks by descriptor and source-object terms, with readable matched words", () => {
    const cs = selectSources({
      intent: intent("Which sales region had the highest total of orders in 2025?"),
      catalog: CATALOG,
      guides: [],
      k: 3,
    });
    expect(cs[0].kbId).toBe("kb-sales");
    expect(cs[0].kind).toBe("SQL");
    const terms = cs[0].reasons.find((r) => r.type === "terms")!;
    expect(terms.detail).toMatch(/^matched: /);
    expect(terms.detail).toContain("region");
    expect(terms.detail).toContain("orders");
    // The tables that matched are listed for formulation.
    expect(cs[0].sourceObjects[0]).toBe("orders");
    expect(cs[0].reasons.find((r) => r.type === "description")!.detail).toContain("'orders' (table)");
    expect(cs.map((c) => c.score)).toEqual([...cs.map((c) => c.score)].sort((a, b) => b - a));
    expect(ids(cs)).not.toContain("kb-scifact");
  });

  it("splits identifiers in descriptors: ACTED_IN and Person meet 'acted in' and 'people'", () => {
    const cs = selectSources({ intent: intent("Which people acted in movies released before 1990?"), catalog: CATALOG, guides: [], k: 3 });
    expect(cs[0].kbId).toBe("kb-movies");
    expect(cs[0].sourceObjects).toContain("Movie");
  });

  it("turns linked entities into a KB signal with an explanation, weighting exact links above fuzzy ones", () => {
    const summit = mention("Summit 2 Tent", [
      {
        kbId: "kb-graph",
        label: "Summit 2 Tent",
        kind: "label",
        ref: "http://aurora.example/p/summit-2",
        sourceObject: "http://aurora.example/Product",
        score: 1,
      },
    ]);
    const cs = selectSources({
      intent: intent("What is the Summit 2 Tent made of?", { entities: [summit] }),
      catalog: CATALOG,
      guides: [],
      k: 3,
    });
    expect(cs[0].kbId).toBe("kb-graph");
    const reason = cs[0].reasons.find((r) => r.type === "entity")!;
    expect(reason.detail).toContain("'Summit 2 Tent' → Aurora product and organisation graph");
    expect(reason.weight).toBeCloseTo(SELECTION_WEIGHTS.entities, 3);
    expect(cs[0].sourceObjects[0]).toBe("http://aurora.example/Product");

    const exact = mention("Summit Tent", [{ kbId: "kb-graph", label: "Summit Tent", score: 0.9 }]);
    const fuzzy = mention("Summit Tent", [{ kbId: "kb-graph", label: "Summit 2 Tent", score: 0.9 }]);
    const weightOf = (m: ReturnType<typeof mention>) =>
      selectSources({ intent: intent("tent", { entities: [m] }), catalog: CATALOG, guides: [], k: 7 })
        .find((c) => c.kbId === "kb-graph")!
        .reasons.find((r) => r.type === "entity")!;
    expect(weightOf(fuzzy).weight).toBeLessThan(weightOf(exact).weight);
    expect(weightOf(fuzzy).detail).toContain("approximate");
  });

  it("a mention linked into many KBs says less about each than one linked into a single KB", () => {
    const everywhere = mention(
      "2025",
      ["kb-sales", "kb-docs", "kb-graph", "kb-movies"].map((kbId) => ({ kbId, label: "2025" })),
    );
    const cs = selectSources({ intent: intent("2025", { entities: [everywhere] }), catalog: CATALOG, guides: [], k: 4 });
    const entityWeight = cs.find((c) => c.kbId === "kb-movies")!.reasons.find((r) => r.type === "entity")!.weight;
    expect(entityWeight).toBeCloseTo(SELECTION_WEIGHTS.entities / 2, 3);
  });

  it("adds the KBs of the nearest extraction guides (Think Tank), weighted by guide score", () => {
    const guides = [
      { guideId: "g1", question: "Who is the CEO of Aurora Outfitters and where is the head office?", score: 0.82, kbIds: ["kb-graph"] },
    ];
    const cs = selectSources({ intent: intent("Who runs the company?"), catalog: CATALOG, guides, k: 3 });
    const graph = cs.find((c) => c.kbId === "kb-graph")!;
    const reason = graph.reasons.find((r) => r.type === "guide")!;
    expect(reason.detail).toBe("the guide 'Who is the CEO of Aurora Outfitters and where is the head o…', a similar question");
    expect(reason.weight).toBeCloseTo(SELECTION_WEIGHTS.guides * 0.82, 3);
    expect(cs[0].kbId).toBe("kb-graph");
  });

  it("with requested KBs, only those are candidates, each marked as requested, even without matching terms", () => {
    const cs = selectSources({
      intent: intent("Which sales region grew most?"),
      catalog: CATALOG,
      guides: [],
      k: 3,
      requestedKbIds: ["kb-movies", "kb-docs"],
    });
    expect(ids(cs).sort()).toEqual(["kb-docs", "kb-movies"]);
    expect(cs[0].kbId).toBe("kb-docs");
    for (const c of cs) expect(c.reasons[0]).toEqual({ type: "requested", detail: "chosen by the user", weight: 0 });
  });

  it("leaves out KBs the critic excluded, and keeps k", () => {
    const question = intent("How many orders per region and customer country?");
    const before = selectSources({ intent: question, catalog: CATALOG, guides: [], k: 2 });
    expect(before).toHaveLength(2);
    expect(before[0].kbId).toBe("kb-sales");
    const after = selectSources({ intent: question, catalog: CATALOG, guides: [], k: 2, exclude: ["kb-sales"] });
    expect(ids(after)).not.toContain("kb-sales");
    expect(after[0].kbId).toBe(before[1].kbId);
  });

  it("returns no candidate when nothing in the catalog relates to the question", () => {
    expect(selectSources({ intent: intent("Quelle heure est-il à Tokyo ?"), catalog: CATALOG, guides: [], k: 3 })).toEqual([]);
    expect(selectSources({ intent: intent(""), catalog: CATALOG, guides: [], k: 3 })).toEqual([]);
  });

  it("stays fast on a 10,000-character question", () => {
    const long = intent(`${"Which sales region had the highest total of orders? ".repeat(190)}`.slice(0, 10_000));
    const started = performance.now();
    const cs = selectSources({ intent: long, catalog: CATALOG, guides: [], k: 3 });
    expect(performance.now() - started).toBeLessThan(500);
    expect(cs[0].kbId).toBe("kb-sales");
  });

  it("reuses the catalog indexes across calls: same array, or same content in a new array", () => {
    const catalog = CATALOG.map((e) => ({ ...e }));
    const first = catalogIndexFor(catalog);
    expect(catalogIndexFor(catalog)).toBe(first);
    expect(catalogIndexFor(catalog.map((e) => ({ ...e })))).toBe(first);
    const edited = catalog.map((e) => (e.kbId === "kb-movies" ? { ...e, description: "Films and the people who made them." } : e));
    expect(catalogIndexFor(edited)).not.toBe(first);
    expect(buildCatalogIndex(catalog).objects.size).toBe(CATALOG.reduce((n, e) => n + e.sourceObjects.length, 0));
  });

  it("the stage strategy traces its choice and honours cancellation", async () => {
    const ctx = context();
    const cs = await classicalSelect.run({ intent: intent("movies with Tom Hanks"), catalog: CATALOG, guides: [], k: 3 }, ctx);
    expect(cs[0].kbId).toBe("kb-movies");
    expect(ctx.events[0]).toMatchObject({ stage: "select", type: "INFO", strategy: "classical" });
    expect(ctx.events[0].summary).toContain("Movies graph");
    ctx.controller.abort();
    await expect(classicalSelect.run({ intent: intent("movies"), catalog: CATALOG, guides: [], k: 3 }, ctx)).rejects.toBeInstanceOf(
      RunCancelledError,
    );
  });
});
