import { describe, expect, it } from "vitest";
import { actionFieldProblems, draftActionProblems } from "@/lib/guides/action-fields";
import { ACTION_NAME, describeActionPlainly } from "@/lib/guides/action-names";

describe("retrieval actions in the analyst's words", () => {
  it("names each action plainly while the stored kinds stay AU-RAG's", () => {
    expect(ACTION_NAME).toEqual({
      NATIVE_QUERY: "Saved query",
      SELECT_COORDINATES: "Pick table cells",
      SELECT_SENTENCE_IDXS: "Pick sentences",
      NEIGHBORHOOD: "Graph neighborhood",
    });
  });

  it("describes an action with positions counted from 1, and the table's title when known", () => {
    const cells = { kind: "SELECT_COORDINATES" as const, params: { tableKey: "report#table-1", rows: [1, 3], columns: ["Region", 4] } };
    expect(describeActionPlainly(cells, { table: "Table 1 of the report" })).toBe(
      "Pick table cells: Table 1 of the report, rows 2 and 4; columns Region and column 5",
    );
    expect(describeActionPlainly({ kind: "SELECT_SENTENCE_IDXS", params: { documentId: "policy", sentenceIdxs: [0] } })).toBe(
      "Pick sentences: policy, sentence 1",
    );
    expect(describeActionPlainly({ kind: "NATIVE_QUERY", params: { query: { language: "sql", text: "SELECT 1\n  FROM t" } } })).toBe(
      "Saved query (SQL): SELECT 1 FROM t",
    );
    expect(describeActionPlainly({ kind: "NEIGHBORHOOD", params: { entities: ["Tom Hanks"], hops: 1, byName: true } })).toBe(
      "Graph neighborhood: Tom Hanks, 1 hop out",
    );
  });
});

describe("what an incomplete action lacks, by field", () => {
  it("says what to do next to each field instead of the schema's wording", () => {
    expect(actionFieldProblems("SELECT_COORDINATES", { tableKey: "", rows: [], columns: [] })).toEqual({
      tableKey: "Choose a table.",
      rows: "Tick at least one row.",
      columns: "Tick at least one column.",
    });
    expect(actionFieldProblems("NATIVE_QUERY", { query: { language: "sql", text: "" } })).toEqual({ "query.text": "Write the query." });
    expect(actionFieldProblems("NATIVE_QUERY", { query: { language: "search", text: "" } })).toEqual({
      "query.text": "Enter the words to search for.",
    });
    expect(actionFieldProblems("SELECT_SENTENCE_IDXS", { documentId: "d", sentenceIdxs: [-1] })).toEqual({
      sentenceIdxs: "Tick the sentences again in the document shown.",
    });
    expect(
      actionFieldProblems("SELECT_COORDINATES", { tableKey: "t", rows: Array.from({ length: 501 }, (_, i) => i), columns: ["a"] }),
    ).toEqual({ rows: "Tick at most 500 rows." });
    expect(actionFieldProblems("NEIGHBORHOOD", undefined)).toEqual({ entities: "Enter at least one entity, one per line." });
    expect(actionFieldProblems("SELECT_COORDINATES", { tableKey: "t", rows: [0], columns: ["a"] })).toEqual({});
  });

  it("addresses a draft's problems as the editor does, and leaves malformed drafts to the guide's own checks", () => {
    const draft = {
      question: "q",
      sources: [
        { kbId: "a", actions: [{ kind: "NATIVE_QUERY", params: { query: { language: "sql", text: "SELECT 1" } } }] },
        {
          kbId: "b",
          actions: [
            { kind: "NATIVE_QUERY", params: { query: { language: "sql", text: "SELECT 1" } } },
            { kind: "SELECT_SENTENCE_IDXS", params: { documentId: "" } },
          ],
        },
      ],
    };
    expect(draftActionProblems(draft)).toEqual({
      "sources.1.actions.1.documentId": "Choose a document.",
      "sources.1.actions.1.sentenceIdxs": "Tick at least one sentence.",
    });
    expect(draftActionProblems(null)).toEqual({});
    expect(draftActionProblems({ sources: [{ actions: [{ kind: "DROP", params: {} }] }] })).toEqual({});
  });
});
