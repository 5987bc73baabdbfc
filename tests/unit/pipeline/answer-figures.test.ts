import { describe, expect, it } from "vitest";
import { columnUnits, isAdditive, totalRowOf } from "@/lib/pipeline/stages/answer/figures";
import { shapeOf } from "@/lib/pipeline/stages/answer/result-answer";
import type { QueryResult } from "@/lib/pipeline/contracts";

const eurMillion = { currency: "EUR", scale: "million", percent: false } as const;

describe("the figures of a result-shaped answer", () => {
  it("gives numeric columns the unit their header or the source's text states, text columns none", () => {
    const rows = [
      ["Nordics", "24.1", "9%"],
      ["Central Europe", "11.0", "24%"],
    ];
    expect(columnUnits(["Region", "Revenue 2024 (EUR million)", "Growth"], rows)).toEqual([null, eurMillion, null]);
    expect(columnUnits(["segment", "average unit price"], [["Club", 246.74625]], ["Prices are in euros."])).toEqual([
      null,
      { currency: "EUR", scale: null, percent: false },
    ]);
  });

  it("adds up sums and counts, never averages, prices or percentages", () => {
    expect(isAdditive("Revenue 2024 (EUR million)", eurMillion)).toBe(true);
    expect(isAdditive("number of orders", null)).toBe(true);
    expect(isAdditive("SUM(quantity)", null)).toBe(true);
    expect(isAdditive("average unit price", null)).toBe(false);
    expect(isAdditive("AVG(total)", null)).toBe(false);
    expect(isAdditive("Growth", { currency: null, scale: null, percent: true })).toBe(false);
  });

  it("totals a grouped additive answer: the source's own total where stated, else the sum", () => {
    const shape = {
      columns: ["Region", "Revenue 2024 (EUR million)"],
      rows: [
        ["Nordics", "24.1"],
        ["Central Europe", "11.0"],
        ["United Kingdom", "7.9"],
      ],
      truncated: false,
    };
    const grouped = { keys: [0], measures: [1] };
    expect(totalRowOf(shape, grouped, [null, eurMillion])).toEqual({ label: "Total", values: [null, 43], stated: false });
    expect(totalRowOf(shape, grouped, [null, eurMillion], ["Total", "43.0"])).toEqual({ label: "Total", values: [null, 43], stated: true });
    // No total for averages, for a result cut at the row cap, or for one group.
    expect(totalRowOf({ ...shape, columns: ["Region", "average price"] }, grouped, [null, null])).toBeNull();
    expect(totalRowOf({ ...shape, truncated: true }, grouped, [null, eurMillion])).toBeNull();
    expect(totalRowOf({ ...shape, rows: shape.rows.slice(0, 1) }, grouped, [null, eurMillion])).toBeNull();
  });

  it("puts units and the total on the answer's shape from the committed query's result", () => {
    const result = {
      kbId: "kb",
      kbName: "Sales",
      language: "sql",
      query: 'SELECT "segment", COUNT(*) AS "number of orders", AVG("unit_price") AS "average unit price" FROM orders GROUP BY "segment"',
      columns: ["segment", "number of orders", "average unit price"],
      rows: [
        ["Club", 12, 246.74625],
        ["Retailer", 30, 267.7251851851852],
      ],
      truncated: false,
      cap: 1000,
      fit: null,
      grouped: { keys: [0], measures: [1, 2] },
      pieceIds: [],
    } as unknown as QueryResult;
    const shape = shapeOf(result, ["Prices are in euros."]);
    expect(shape.units).toEqual([null, null, { currency: "EUR", scale: null, percent: false }]);
    expect(shape.totalRow).toEqual({ label: "Total", values: [null, 42, null], stated: false });
  });
});
