import { describe, expect, it } from "vitest";
import { committedResult } from "@/lib/pipeline/stages/select-evidence/commit";
import { shapeOf } from "@/lib/pipeline/stages/answer/result-answer";
import { KB, executed, sqlRow } from "./answer-fixtures";

describe("the committed query's result", () => {
  const cypher = "MATCH (p:Product)-[:PART_OF]->(c:Category) WHERE c.name = $p0 RETURN p.name AS product LIMIT $limit";
  const rows = ["Trail Tent", "Camp Stove"].map((name, i) => {
    const piece = sqlRow(KB.sales, "Query result", ["product"], [name], cypher, { row: i });
    return { ...piece, provenance: { ...piece.provenance, language: "cypher" as const, params: { p0: "Outdoor", limit: 3 } } };
  });
  const query = executed(KB.sales, "schema-linking", "cypher", cypher, "ok", 2, {
    query: { language: "cypher", text: cypher, params: { p0: "Outdoor", limit: 3, ids: [{ nested: true }] } },
    evidenceIds: rows.map((r) => r.id),
  });

  it("carries the values its parameters were bound to, onto the answer's shape, so the card can say what it filtered on", () => {
    const result = committedResult({ kbId: KB.sales.id, kbName: KB.sales.name, query, reason: "" }, rows, 100);
    // Scalars as they are; a value that is no scalar nor a list of scalars is left out.
    expect(result?.params).toEqual({ p0: "Outdoor", limit: 3 });
    expect(result?.rows).toEqual([["Trail Tent"], ["Camp Stove"]]);
    expect(shapeOf(result!).source.params).toEqual({ p0: "Outdoor", limit: 3 });
  });

  it("has no parameters for a query that binds none", () => {
    const plain = { ...query, query: { language: "cypher" as const, text: cypher } };
    const result = committedResult({ kbId: KB.sales.id, kbName: KB.sales.name, query: plain, reason: "" }, rows, 100);
    expect(result?.params).toBeUndefined();
    expect(shapeOf(result!).source).not.toHaveProperty("params");
  });
});
