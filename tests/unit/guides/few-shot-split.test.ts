import { parse } from "csv-parse/sync";
import { describe, expect, it } from "vitest";
import { fewShotSplit, toCsv } from "@/lib/guides/few-shot-split";

type Item = { db: string; q: string };
const items: Item[] = [
  ...Array.from({ length: 10 }, (_, i) => ({ db: "shop", q: `shop question ${i}` })),
  ...Array.from({ length: 6 }, (_, i) => ({ db: "zoo", q: `zoo question ${i}` })),
  // The same text asked of two databases, and twice of one.
  { db: "shop", q: "How many rows?" },
  { db: "zoo", q: "How many rows?" },
  { db: "zoo", q: "How many rows? " },
];
const split = (swap = false, seed = 1) =>
  fewShotSplit(
    items,
    (i) => i.db,
    (i) => i.q,
    { seed, share: 0.5, swap },
  );

describe("the few-shot protocol's split", () => {
  it("gives each database's distinct questions half to guides, half to asking, the same for the same seed", () => {
    const a = split();
    expect(a.databases).toBe(2);
    expect(a.guides.length + a.asked.length).toBe(items.length);
    expect(a.guides.filter((i) => i.db === "shop" && i.q !== "How many rows?").length).toBeGreaterThanOrEqual(5);
    expect(split()).toEqual(a);
    expect(split(false, 2)).not.toEqual(a);
  });

  it("never asks a question that is a guide, even one asked of two databases", () => {
    for (const swap of [false, true]) {
      const { guides, asked } = split(swap);
      const guideTexts = new Set(guides.map((g) => g.q.trim()));
      expect(asked.filter((a) => guideTexts.has(a.q.trim()))).toEqual([]);
    }
  });

  it("swaps sides both ways: the other half becomes the guides", () => {
    const a = split(false);
    const b = split(true);
    const shopOnly = (xs: Item[]) => new Set(xs.filter((i) => i.db === "shop" && i.q.startsWith("shop")).map((i) => i.q));
    expect(shopOnly(b.guides)).toEqual(shopOnly(a.asked));
  });

  it("refuses a share outside (0, 1) and a fractional seed", () => {
    expect(() =>
      fewShotSplit(
        items,
        (i) => i.db,
        (i) => i.q,
        { seed: 1, share: 1 },
      ),
    ).toThrow(/between 0 and 1/);
    expect(() =>
      fewShotSplit(
        items,
        (i) => i.db,
        (i) => i.q,
        { seed: 1.5, share: 0.5 },
      ),
    ).toThrow(/whole number/);
  });
});

describe("CSV for a Text2Cypher question file", () => {
  it("round-trips commas, quotes and line breaks", () => {
    const rows = [{ question: 'Who said "hi", then left?', cypher: "MATCH (p)\nRETURN p", database: "movies" }];
    const text = toCsv(["question", "cypher", "database"], rows);
    expect(parse(text, { columns: true })).toEqual(rows);
  });
});
