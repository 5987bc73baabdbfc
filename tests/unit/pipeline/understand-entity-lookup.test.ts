import { describe, expect, it } from "vitest";
import {
  type LabelRow,
  fuzzyMatchScore,
  inMemoryEntityLookup,
  inflectionVariants,
  labelMatchScore,
  rankLinks,
} from "@/lib/pipeline/entity-lookup";
import type { EntityLink } from "@/lib/pipeline/contracts";

const ROWS: Omit<LabelRow, "normalized">[] = [
  { kbId: "a", label: "Tom Hanks", kind: "node", ref: "p1", sourceObject: "Person" },
  { kbId: "a", label: "Summit 2 Tent", kind: "value", ref: "products.name=Summit 2 Tent", sourceObject: "products" },
  { kbId: "a", label: "Summit 20 Backpack", kind: "value", ref: "products.name=Summit 20 Backpack", sourceObject: "products" },
  { kbId: "b", label: "Tents", kind: "value", ref: "products.category=Tents", sourceObject: "products" },
  { kbId: "b", label: "Tomás Núñez", kind: "label", ref: "https://ex.org/tomas", sourceObject: "https://ex.org/Person" },
  { kbId: "b", label: "Return window and warranty by product category", kind: "table", ref: "t1", sourceObject: "t1" },
  { kbId: "c", label: "Tom Hanks", kind: "node", ref: "p9", sourceObject: "Person" },
];

describe("label matching", () => {
  it("scores exact, inflected and partial matches", () => {
    expect(labelMatchScore("tom  HANKS!", "Tom Hanks")).toBe(1);
    expect(labelMatchScore("Tomas Nunez", "Tomás Núñez")).toBe(1);
    expect(labelMatchScore("tent", "Tents")).toBe(0.9);
    expect(labelMatchScore("categories", "category")).toBe(0.9);
    const prefix = labelMatchScore("Summit 2", "Summit 2 Tent");
    const surname = labelMatchScore("Hanks", "Tom Hanks");
    expect(prefix).toBeGreaterThan(surname);
    expect(surname).toBeGreaterThan(0.5);
    expect(prefix).toBeLessThan(0.9);
    // Word boundaries: "Summit 2" is not inside "Summit 20 Backpack".
    expect(labelMatchScore("Summit 2", "Summit 20 Backpack")).toBe(0);
    expect(labelMatchScore("window", "Return window and warranty by product category")).toBeLessThan(0.3);
  });

  it("forms singular and plural of the last word", () => {
    expect(inflectionVariants("summit 2 tents")).toEqual(["summit 2 tent"]);
    expect(inflectionVariants("category")).toEqual(["categories"]);
    expect(inflectionVariants("box")).toEqual(["boxes"]);
    expect(inflectionVariants("2024")).toEqual([]);
  });

  it("ranks by score, then instances before schema parts, deduplicated per KB reference", () => {
    const link = (over: Partial<EntityLink>): EntityLink => ({
      kbId: "a",
      label: "x",
      kind: "value",
      ref: "r",
      sourceObject: null,
      score: 1,
      ...over,
    });
    const ranked = rankLinks(
      [
        link({ ref: "col", kind: "column" }),
        link({ ref: "v" }),
        link({ ref: "v", score: 0.5 }),
        link({ ref: "weak", score: 0.2 }),
        link({ ref: "p", score: 0.7 }),
      ],
      10,
    );
    expect(ranked.map((l) => [l.ref, l.score])).toEqual([
      ["v", 1],
      ["col", 1],
      ["p", 0.7],
    ]);
    expect(
      rankLinks(
        Array.from({ length: 20 }, (_, i) => link({ ref: `r${i}` })),
        10,
      ),
    ).toHaveLength(10);
  });
});

describe("in-memory entity lookup", () => {
  const lookup = inMemoryEntityLookup(ROWS);

  it("answers every mention, keyed as given, within the allowed KBs", async () => {
    const found = await lookup.find(["Tom Hanks", "tom hanks", "Nobody"], ["a", "b"]);
    expect([...found.keys()]).toEqual(["Tom Hanks", "tom hanks", "Nobody"]);
    expect(found.get("Tom Hanks")!.map((l) => [l.kbId, l.ref, l.score])).toEqual([["a", "p1", 1]]);
    expect(found.get("tom hanks")).toEqual(found.get("Tom Hanks"));
    expect(found.get("Nobody")).toEqual([]);
  });

  it("matches label prefixes for specific mentions only, and containment only on request", async () => {
    const found = await lookup.find(["Summit 2", "Tom", "Hanks"], ["a", "b", "c"]);
    expect(found.get("Summit 2")!.map((l) => l.label)).toEqual(["Summit 2 Tent"]);
    // Too short for a prefix match: "Tom" would match every Tom.
    expect(found.get("Tom")).toEqual([]);
    expect(found.get("Hanks")).toEqual([]);
    const contained = await lookup.find(["Hanks"], ["a", "b", "c"], 10, { contains: () => true });
    expect(
      contained
        .get("Hanks")!
        .map((l) => l.kbId)
        .sort(),
    ).toEqual(["a", "c"]);
    const noPrefix = await lookup.find(["Summit 2"], ["a"], 10, { prefix: () => false });
    expect(noPrefix.get("Summit 2")).toEqual([]);
  });

  it("matches a slip of a letter or two only when nothing matched outright, below an exact match, never for short words", async () => {
    const found = await lookup.find(["Tom Hnks", "Tomas Nunex", "Tenst"], ["a", "b", "c"], 10, { contains: () => true });
    const hnks = found.get("Tom Hnks")!;
    expect(hnks.map((l) => l.ref).sort()).toEqual(["p1", "p9"]);
    expect(hnks[0].label).toBe("Tom Hanks");
    expect(hnks[0].score).toBeGreaterThanOrEqual(0.5);
    expect(hnks[0].score).toBeLessThan(0.9);
    expect(found.get("Tomas Nunex")!.map((l) => l.label)).toEqual(["Tomás Núñez"]);
    // Two letters swapped is one slip of the hand ("Tenst" → "Tents"); a four-letter word is never matched fuzzily.
    expect(found.get("Tenst")!.map((l) => l.label)).toEqual(["Tents"]);
    expect((await lookup.find(["Tnet"], ["b"], 10, { contains: () => true })).get("Tnet")).toEqual([]);
    expect(fuzzyMatchScore("tom", "tim")).toBe(0);
    expect(fuzzyMatchScore("brazl", "brazil")).toBeGreaterThan(0.5);
    expect(fuzzyMatchScore("brazl", "grazil")).toBe(0);
    expect(fuzzyMatchScore("netherland", "netherlands")).toBeGreaterThan(0.5);
    expect(fuzzyMatchScore("cruise", "crusade")).toBe(0);
    // Only the mentions the caller allows (names), and never when an outright match exists.
    expect((await lookup.find(["Tom Hnks"], ["a"])).get("Tom Hnks")).toEqual([]);
    expect((await lookup.find(["Tom Hanks"], ["a"], 10, { contains: () => true })).get("Tom Hanks")!.map((l) => l.score)).toEqual([1]);
  });

  it("limits the links per mention to the best ones and each further KB's best", async () => {
    const found = await lookup.find(["Tom Hanks"], ["a", "b", "c"], 1);
    const links = found.get("Tom Hanks")!;
    expect(new Set(links.map((l) => l.kbId)).size).toBe(links.length);
    expect(links.length).toBeLessThanOrEqual(3);
  });
});
