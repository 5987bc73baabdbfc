import { describe, expect, it } from "vitest";
import { parseGuideDraft } from "@/lib/guides/drafts";
import { guideDraftSchema, listGuidesSchema } from "@/lib/guides/guides.validation";
import { describeAction, parseGuideAction } from "@/lib/pipeline/guide-actions";

describe("retrieval actions in AU-RAG notation", () => {
  it("describes each kind in one readable line, shortening long selections", () => {
    expect(
      describeAction({ kind: "SELECT_COORDINATES", params: { tableKey: "report#table-1", rows: [0, 2], columns: ["Region", 3] } }),
    ).toBe("SelectCoordinates(report#table-1, rows [0, 2], columns [Region, 3])");
    const many = Array.from({ length: 30 }, (_, i) => i);
    expect(describeAction({ kind: "SELECT_SENTENCE_IDXS", params: { documentId: "policy", sentenceIdxs: many } })).toBe(
      "SelectSentenceIdxs(policy, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, … (30)])",
    );
    expect(describeAction({ kind: "NEIGHBORHOOD", params: { entities: ["ex:a"], hops: 2, byName: false } })).toBe(
      "Neighborhood(ex:a, 2 hops)",
    );
    expect(describeAction({ kind: "NATIVE_QUERY", params: { query: { language: "sql", text: "SELECT  1\n FROM t" } } })).toBe(
      "NativeQuery (sql): SELECT 1 FROM t",
    );
  });

  it("rejects malformed params on read instead of throwing", () => {
    expect(parseGuideAction("SELECT_COORDINATES", { tableKey: "t", rows: [], columns: [0] })).toBeNull();
    expect(parseGuideAction("NEIGHBORHOOD", { entities: ["x"] })).toEqual({
      kind: "NEIGHBORHOOD",
      params: { entities: ["x"], hops: 1, byName: false },
    });
    expect(parseGuideAction("NOPE", {})).toBeNull();
  });
});

describe("guide drafts", () => {
  const source = { kbId: "kb1", actions: [{ kind: "NATIVE_QUERY", params: { query: { language: "sql", text: "SELECT 1" } } }] };

  it("normalizes a draft: trimmed question, empty answer as none, contexts default to empty", () => {
    const d = guideDraftSchema.parse({ question: "  How many?  ", answer: "", sources: [source] });
    expect(d).toMatchObject({
      question: "How many?",
      answer: null,
      notes: "",
      fromRunId: null,
      sources: [{ kbId: "kb1", sourceObjectId: null, actions: [{ context: "" }] }],
    });
  });

  it("reports every problem under its own field path", () => {
    try {
      parseGuideDraft({ question: " ", sources: [{ kbId: "", actions: [] }] });
      expect.unreachable();
    } catch (e) {
      expect(e).toMatchObject({
        code: "VALIDATION",
        fields: {
          question: "Enter the question this guide answers.",
          "sources.0.kbId": "Choose a knowledge base.",
          "sources.0.actions": "Add at least one retrieval action to each source.",
        },
      });
    }
    expect(() => parseGuideDraft({ question: "q", sources: [] })).toThrow("Add at least one source.");
    expect(() => parseGuideDraft({ question: "q", sources: [{ ...source, actions: [{ kind: "DELETE_ALL", params: {} }] }] })).toThrow();
  });

  it("treats an empty search as no search", () => {
    expect(listGuidesSchema.parse({ q: "  ", kbId: "" })).toEqual({ q: undefined, kbId: undefined, take: 100 });
  });
});
