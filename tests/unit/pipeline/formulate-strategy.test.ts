import { describe, expect, it } from "vitest";
import type { KbStructure } from "@/lib/backends/types";
import { adjustmentsFor, classicalFormulate, type FormulateInput } from "@/lib/pipeline/stages/formulate/classical";
import { RunCancelledError, type StageContext, type TraceEventInput } from "@/lib/pipeline/stage";
import type { Feedback } from "@/lib/pipeline/contracts";
import { candidate, DOCS, intent, link, mention, SHOP } from "./formulate-fixtures";

function context(signal = new AbortController().signal): { ctx: StageContext; events: TraceEventInput[] } {
  const events: TraceEventInput[] = [];
  return { ctx: { signal, deadline: Date.now() + 10_000, trace: (e) => events.push(e) }, events };
}

const q = "How many orders were returned?";
const returned = intent(q, {
  aggregate: "count",
  keywords: ["orders", "returned"],
  entities: [mention(q, "returned", [link("kb-sales", "value", "orders.status=returned", "returned", 1, "orders")])],
});
const structures = new Map<string, KbStructure>([
  ["kb-sales", SHOP],
  ["kb-docs", DOCS],
]);
const guide = {
  guideId: "g1",
  question: "How many orders were shipped?",
  score: 0.6,
  kbId: "kb-sales",
  query: { language: "sql" as const, text: "SELECT COUNT(*) FROM orders WHERE status = 'shipped'" },
};
const shipped = link("kb-sales", "value", "orders.status=shipped", "shipped", 1, "orders");

describe("classicalFormulate", () => {
  it("formulates per candidate in candidate order, within the per-candidate limit", async () => {
    const input: FormulateInput = {
      intent: returned,
      candidates: [candidate("kb-docs", "DOCUMENTS"), candidate("kb-sales", "SQL")],
      structures,
      guides: [],
      maxQueriesPerCandidate: 2,
    };
    const { ctx } = context();
    const out = await classicalFormulate.run(input, ctx);
    expect(classicalFormulate.name).toBe("classical");
    expect(out.map((x) => [x.kbId, x.kind, x.strategy])).toEqual([
      ["kb-docs", "DOCUMENTS", "search"],
      ["kb-docs", "DOCUMENTS", "search"],
      ["kb-sales", "SQL", "schema-linking"],
      ["kb-sales", "SQL", "schema-linking"],
    ]);
    expect(out[0].query.text).toBe("returned orders");
  });

  it("puts an adapted guide first, keeps a slot for a generated query, and moves the guide back after shape feedback", async () => {
    const w = "How many orders were cancelled?";
    const cancelled = intent(w, {
      aggregate: "count",
      entities: [mention(w, "cancelled", [link("kb-sales", "value", "orders.status=cancelled", "cancelled", 1, "orders")])],
    });
    const base: FormulateInput = {
      intent: cancelled,
      candidates: [candidate("kb-sales", "SQL")],
      structures,
      guides: [guide, { ...guide, guideId: "g2" }],
      maxQueriesPerCandidate: 2,
    };
    const out = await classicalFormulate.run(base, context().ctx);
    expect(out.map((x) => x.strategy)).toEqual(["guide", "schema-linking"]);
    expect(out[0]).toMatchObject({ guideId: "g1", query: { text: "SELECT COUNT(*) FROM orders WHERE status = 'cancelled'" } });
    const after = await classicalFormulate.run(
      { ...base, feedback: { type: "empty_result", target: null, detail: "no rows" } },
      context().ctx,
    );
    expect(after.map((x) => x.strategy)).toEqual(["schema-linking", "guide"]);
  });

  it("adapts guides with the entities the critic left: wrong_entity moves the guide to the next link too", async () => {
    const w = "How many orders were shipped back?";
    const i = intent(w, {
      aggregate: "count",
      entities: [
        mention(w, "shipped", [
          link("kb-sales", "value", "orders.status=shipped", "shipped", 0.9, "orders"),
          { ...shipped, ref: "orders.status=returned", label: "returned", score: 0.7 },
        ]),
      ],
    });
    const input: FormulateInput = {
      intent: i,
      candidates: [candidate("kb-sales", "SQL")],
      structures,
      guides: [guide],
      feedback: { type: "wrong_entity", target: "shipped", detail: "" },
    };
    const out = await classicalFormulate.run(input, context().ctx);
    expect(out.find((x) => x.strategy === "guide")?.query.text).toBe("SELECT COUNT(*) FROM orders WHERE status = 'returned'");
  });

  it("records a KB it cannot formulate for, and stops when the run is cancelled", async () => {
    const { ctx, events } = context();
    const out = await classicalFormulate.run(
      { intent: returned, candidates: [candidate("kb-missing", "SQL")], structures, guides: [] },
      ctx,
    );
    expect(out).toEqual([]);
    expect(events.map((e) => e.summary)).toEqual([
      "KB kb-missing: no SQL structure to formulate against",
      "KB kb-missing: no query could be formulated",
    ]);
    expect(events.every((e) => e.stage === "formulate" && e.type === "INFO")).toBe(true);

    const controller = new AbortController();
    controller.abort();
    await expect(
      classicalFormulate.run(
        { intent: returned, candidates: [candidate("kb-sales", "SQL")], structures, guides: [] },
        context(controller.signal).ctx,
      ),
    ).rejects.toBeInstanceOf(RunCancelledError);
  });
});

describe("feedback → adjustments", () => {
  const w = "How many orders did Nordic Trails AB place in Germany?";
  const i = intent(w, {
    entities: [
      mention(w, "Nordic Trails AB", [link("kb-sales", "value", "customers.name=Nordic Trails AB", "Nordic Trails AB")]),
      mention(w, "Germany", []),
    ],
  });

  it("names the mention a target means: by its text, by a linked label, else the first entity", () => {
    expect([...adjustmentsFor(i, { type: "wrong_entity", target: "germany", detail: "" }).skipLinks]).toEqual([["germany", 1]]);
    expect([...adjustmentsFor(i, { type: "wrong_entity", target: "customers.name=Nordic Trails AB", detail: "" }).skipLinks]).toEqual([
      ["nordic trails ab", 1],
    ]);
    expect([...adjustmentsFor(i, { type: "wrong_entity", target: null, detail: "" }).skipLinks]).toEqual([["nordic trails ab", 1]]);
  });

  it("maps each feedback type to its change", () => {
    const of = (type: Feedback["type"], target: string | null = null) => adjustmentsFor(i, { type, target, detail: "" });
    expect(of("missing_entity", "Germany")).toMatchObject({ lookUpByName: new Set(["germany"]), dropEntities: new Set() });
    expect(of("missing_entity", "Nordic Trails AB")).toMatchObject({
      lookUpByName: new Set(["nordic trails ab"]),
      dropEntities: new Set(["nordic trails ab"]),
    });
    expect(of("wrong_relation")).toMatchObject({ relationRank: 1, dropRelation: false });
    expect(of("missing_relation")).toMatchObject({ dropRelation: true });
    expect(of("empty_result")).toMatchObject({ relax: true });
    expect(of("no_intersection")).toMatchObject({ separateEntities: true });
    expect(of("next_batch")).toMatchObject({ page: 1 });
    expect(of("next_batch", "3")).toMatchObject({ page: 3 });
    for (const type of ["wrong_source", "wrong_module"] as const) {
      expect(of(type)).toMatchObject({ relax: false, page: 0, relationRank: 0, dropRelation: false, separateEntities: false, notes: [] });
      expect(of(type).skipLinks.size + of(type).dropEntities.size + of(type).lookUpByName.size).toBe(0);
    }
  });
});
