import { describe, expect, it } from "vitest";
import { QueryRejectedError } from "@/lib/backends/errors";
import { checkListBounds, MAX_RANGE_VALUES } from "@/lib/backends/cypher/list-bounds";

/**
 * Values Cypher expressions build are not counted against Neo4j's transaction memory limit, so the two
 * generators of unbounded values that need no data are bounded on the text (issue 31, case 5: a list
 * comprehension over range(1, 200000000) ended the server). The harness test runs them against Neo4j.
 */
function outcome(query: string, params: Record<string, unknown> = {}, planned = { range: false, reduce: false }): string {
  try {
    checkListBounds(query, params, planned);
    return "ok";
  } catch (e) {
    expect(e).toBeInstanceOf(QueryRejectedError);
    return (e as Error).message;
  }
}

describe("range() lengths", () => {
  it.each([
    ["RETURN size([x IN range(1, 200000000) | toString(x)])", /range\(\) would build a list of 200,000,000 values, and at most 100,000/],
    ["WITH range(1, 1000000000) AS l UNWIND l AS i RETURN count(i)", /1,000,000,000 values/],
    ["RETURN RANGE(1, 0x7fffffff)", /2,147,483,647 values/],
    ["RETURN range(1, 2 * 100000000)", /200,000,000 values/],
    ["RETURN range(0, 1000000, 2)", /500,001 values/],
    ["RETURN [x IN range(1, 100001) WHERE x > 0]", /100,001 values/],
    ["RETURN range(1, toInteger('200000000'))", /may only be given whole numbers, parameters or sizes of lists/],
    ["MATCH (n) RETURN range(1, n.population)", /may only be given whole numbers/],
    ["RETURN range(1, size($xs) * 1000000)", /may only be given whole numbers/],
  ])("refuses %s", (query, says) => {
    expect(outcome(query)).toMatch(says);
  });

  it("refuses a parameter past the limit, and takes one within it", () => {
    expect(outcome("RETURN range(1, $n)", { n: 10_000_000 })).toMatch(/10,000,000 values/);
    expect(outcome("RETURN range(1, $n)", { n: 10 })).toBe("ok");
    expect(outcome("RETURN range(1, $n)", { n: "10" })).toMatch(/may only be given whole numbers/);
  });

  it.each([
    `RETURN range(1, ${MAX_RANGE_VALUES})`,
    "RETURN range(-5, (3 + 4) * 2)",
    "MATCH p = (a)-[*1..3]->(b) UNWIND range(0, size(nodes(p)) - 1) AS i RETURN i",
    "RETURN 'range(1, 999999999)' AS text, `range` AS name",
    "MATCH (n) // range(1, 1e12)\nRETURN n.name /* range(1, 1e12) */",
    "RETURN range(10, 1)",
    "UNWIND range(1, 2000000000) AS i RETURN sum(i)",
    "unwind RANGE(1, n.population) AS i RETURN count(i)",
  ])("accepts %s", (query) => {
    expect(outcome(query.replace("`range` AS name", "1 AS name"))).toBe("ok");
  });
});

describe("reduce() that doubles its accumulator", () => {
  it.each([
    "RETURN reduce(s = 'x', i IN range(1, 40) | s + s)",
    "RETURN size(reduce(l = [1], i IN range(1, 30) | l + i + l))",
    "RETURN reduce(s = 'x', i IN [1, 2, 3] | toUpper(s) + s)",
  ])("refuses %s", (query) => {
    expect(outcome(query)).toMatch(/reduce\(\) adds its accumulator \w+ to itself, which doubles the value at every step/);
  });

  it.each([
    "RETURN reduce(total = 0, x IN [1, 2, 3] | total + x)",
    "RETURN reduce(s = '', x IN ['a', 'b'] | CASE WHEN s = '' THEN x ELSE s + ',' + x END)",
    "RETURN reduce(t = 0, x IN [y IN [1, 2] | y * 2] | t + x)",
    "RETURN reduce(acc = {n: 0}, x IN [1] | {n: acc.n + x})",
  ])("accepts %s", (query) => {
    expect(outcome(query)).toBe("ok");
  });
});

describe("the text reading is held to the plan", () => {
  it("refuses a range() or reduce() the plan calls and the text reading did not find", () => {
    expect(outcome("RETURN 1", {}, { range: true, reduce: false })).toMatch(/plan calls range\(\), which Mosaic could not find/);
    expect(outcome("RETURN 1", {}, { range: false, reduce: true })).toMatch(/plan calls reduce\(\)/);
    expect(outcome("RETURN range(1, 3)", {}, { range: true, reduce: false })).toBe("ok");
  });

  it("refuses a text it cannot read", () => {
    expect(outcome("RETURN 'never closed")).toMatch(/string that is never closed/);
    expect(outcome("RETURN 1 /* never closed")).toMatch(/comment that is never closed/);
  });
});
