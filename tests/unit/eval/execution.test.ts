import { describe, expect, it } from "vitest";
import { cellKey, executionMatch, queryOrders } from "@/lib/eval/metrics/execution";

const table = (rows: unknown[][], columns = rows[0]?.map((_, i) => `c${i}`) ?? []) => ({ columns, rows, truncated: false });

describe("execution match", () => {
  it("compares results as bags of rows when the question does not order", () => {
    const gold = table([
      ["Oslo", 3],
      ["Berlin", 2],
      ["Oslo", 3],
    ]);
    expect(
      executionMatch(
        gold,
        table([
          ["Berlin", 2],
          ["Oslo", 3],
          ["Oslo", 3],
        ]),
        false,
      ),
    ).toBe(true);
    // A bag, not a set: the duplicate row matters.
    expect(
      executionMatch(
        gold,
        table([
          ["Berlin", 2],
          ["Oslo", 3],
          ["Berlin", 2],
        ]),
        false,
      ),
    ).toBe(false);
    expect(
      executionMatch(
        gold,
        table([
          ["Berlin", 2],
          ["Oslo", 3],
        ]),
        false,
      ),
    ).toBe(false);
  });

  it("keeps the order when the gold query orders", () => {
    const gold = table([
      ["a", 1],
      ["b", 2],
    ]);
    expect(
      executionMatch(
        gold,
        table([
          ["a", 1],
          ["b", 2],
        ]),
        true,
      ),
    ).toBe(true);
    expect(
      executionMatch(
        gold,
        table([
          ["b", 2],
          ["a", 1],
        ]),
        true,
      ),
    ).toBe(false);
  });

  it("accepts any column order (some permutation makes the tables equal)", () => {
    const gold = table([
      ["Joe", 52],
      ["Ann", 41],
    ]);
    expect(
      executionMatch(
        gold,
        table([
          [41, "Ann"],
          [52, "Joe"],
        ]),
        false,
      ),
    ).toBe(true);
    // Same column values but rows paired differently: no permutation works.
    expect(
      executionMatch(
        gold,
        table([
          [41, "Joe"],
          [52, "Ann"],
        ]),
        false,
      ),
    ).toBe(false);
  });

  it("strict about extra columns; the diagnostic variant accepts them", () => {
    const gold = table([[7]]);
    const predicted = table([["returned", 7]]);
    expect(executionMatch(gold, predicted, false)).toBe(false);
    expect(executionMatch(gold, predicted, false, { extraColumns: true })).toBe(true);
    expect(executionMatch(table([["returned", 7]]), table([[7]]), false, { extraColumns: true })).toBe(false);
  });

  it("two empty results match", () => {
    expect(executionMatch(table([]), table([]), false)).toBe(true);
    expect(executionMatch(table([]), table([[1]]), false)).toBe(false);
  });

  it("compares values across engines: numbers, numeric text, RDF literals, graph nodes", () => {
    expect(cellKey(76.66666666666667)).toBe(
      cellKey({ termType: "Literal", value: "76.666666666666666667", datatype: "http://www.w3.org/2001/XMLSchema#decimal" }),
    );
    expect(cellKey("1992")).toBe(cellKey(1992));
    expect(cellKey(12)).toBe(cellKey(12.0));
    expect(cellKey({ termType: "Literal", value: "Joe" })).toBe(cellKey("Joe"));
    expect(cellKey({ termType: "NamedNode", value: "http://x/a" })).not.toBe(cellKey("http://x/a"));
    expect(cellKey({ __kind: "node", id: "4:abc:1", labels: ["Movie"], properties: { title: "X" } })).toBe("node:4:abc:1");
    expect(cellKey({ b: 1, a: "x" })).toBe(cellKey({ a: "x", b: 1 }));
    expect(cellKey(null)).not.toBe(cellKey(""));
  });

  it("reads ORDER BY outside string literals", () => {
    expect(queryOrders("SELECT name FROM t ORDER BY age DESC LIMIT 1")).toBe(true);
    expect(queryOrders("MATCH (m) RETURN m order  by m.title")).toBe(true);
    expect(queryOrders("SELECT * FROM t WHERE note = 'order by me'")).toBe(false);
  });
});
