import { describe, expect, it } from "vitest";
import { queryParamLines } from "@/components/evidence/query-params";

describe("queryParamLines", () => {
  it("writes each bound value as a literal beside the parameter's name in the query's own syntax", () => {
    expect(queryParamLines({ p0: "Confections", p1: 3, p2: true, p3: null }, "cypher")).toEqual([
      { name: "$p0", value: '"Confections"' },
      { name: "$p1", value: "3" },
      { name: "$p2", value: "true" },
      { name: "$p3", value: "null" },
    ]);
    expect(queryParamLines({ city: 'Say "Berlin"' }, "sparql")).toEqual([{ name: "?city", value: '"Say \\"Berlin\\""' }]);
  });

  it("has no lines for a query without parameters", () => {
    expect(queryParamLines(undefined, "sql")).toEqual([]);
    expect(queryParamLines({}, "cypher")).toEqual([]);
  });
});
