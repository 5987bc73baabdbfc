import { describe, expect, it } from "vitest";
import { adjustmentsFor, formulateSearch, noAdjustments, searchText } from "@/lib/pipeline/stages/formulate/classical";
import type { Feedback, Intent } from "@/lib/pipeline/contracts";
import { candidate, DOCS, intent, link, mention } from "./formulate-fixtures";

const KB = "kb-docs";

function search(i: Intent, options: { feedback?: Feedback; sourceObjects?: string[]; structure?: typeof DOCS | null; max?: number } = {}) {
  const adj = options.feedback ? adjustmentsFor(i, options.feedback) : noAdjustments();
  const { queries } = formulateSearch(
    i,
    candidate(KB, "DOCUMENTS", options.sourceObjects ?? []),
    options.structure === undefined ? DOCS : options.structure,
    adj,
    options.max ?? 3,
  );
  for (const q of queries) expect(q.strategy).toBe("search");
  return queries;
}

describe("search text from the intent", () => {
  it("keeps content words once each, in order, without stopwords", () => {
    expect(searchText(["What is the", "revenue of the Nordics", "Revenue", "in 2025"])).toBe("revenue Nordics 2025");
    expect(searchText(["the of and"])).toBe("");
  });

  it("joins the entities as mentioned and as linked, the relation, keywords, time and places", () => {
    const q = "What was the revenue of Aurora in the Nordics in 2025?";
    const i = intent(q, {
      relation: "revenue of",
      keywords: ["revenue", "Aurora", "Nordics"],
      time: [{ text: "in 2025", kind: "absolute", start: "2025-01-01", end: "2026-01-01", comparator: "in", ordinal: null }],
      locations: ["Nordics"],
      entities: [mention(q, "Aurora", [link(KB, "label", "annual-report-2025-md", "Aurora Outfitters", 0.8, "collection")])],
    });
    const [first] = search(i);
    // BM25 gets the keywords; the vector half embeds the question as asked (a keyword list is not a sentence).
    expect(first.query).toEqual({ language: "search", text: "Aurora Outfitters revenue Nordics 2025", semantic: q });
    expect(first.sourceObject).toBeNull();
  });

  it("adds a table-only search when the answer is a number, and a search of the table source selection matched", () => {
    const q = "How much revenue did the Nordics bring in 2025?";
    const numeric = search(intent(q, { answerTypes: ["money"], keywords: ["revenue", "Nordics"] }));
    expect(numeric[1].query.filters).toEqual({ contentType: "table" });
    const matched = search(intent(q, { answerTypes: ["money"], keywords: ["revenue", "Nordics"] }), {
      sourceObjects: ["annual-report-2025-md#table-1"],
    });
    expect(matched[1].query.filters).toEqual({ sourceObject: "annual-report-2025-md#table-1" });
    expect(matched[1].sourceObject).toBe("annual-report-2025-md#table-1");
    // A collection without tables gets no table query; one without a structure still gets the search.
    expect(search(intent(q, { answerTypes: ["money"], keywords: ["revenue"] }), { structure: { ...DOCS, tables: [] } })).toHaveLength(1);
    expect(search(intent(q, { keywords: ["revenue"] }), { structure: null })[0].query.text).toBe("revenue");
  });

  it("drops the relation after feedback about it or an empty result, and searches per entity for a next batch", () => {
    const q = "Who approves travel expenses for Anna Berg?";
    const i = intent(q, { relation: "approves", keywords: ["travel", "expenses"], entities: [mention(q, "Anna Berg", [])] });
    expect(search(i)[0].query.text).toBe("Anna Berg approves travel expenses");
    for (const type of ["missing_relation", "wrong_relation", "empty_result"] as const) {
      expect(search(i, { feedback: { type, target: null, detail: "" } })[0].query.text).toBe("Anna Berg travel expenses");
    }
    const next = search(
      { ...i, relation: null, entities: [...i.entities, mention(q, "travel", [])] },
      { feedback: { type: "next_batch", target: null, detail: "" } },
    );
    // Entities in question order; then each entity's own search with the keywords.
    expect(next.map((x) => x.query.text)).toEqual(["travel Anna Berg expenses", "travel expenses", "Anna Berg travel expenses"]);
  });

  it("falls back to the question's own words when the intent has none", () => {
    expect(search(intent("Anything about tents?"))[0].query.text).toBe("Anything tents");
    expect(search(intent("?"))).toEqual([]);
  });
});
