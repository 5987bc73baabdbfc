import { describe, expect, it } from "vitest";
import { numericComparisons } from "@/lib/pipeline/stages/understand/comparisons";
import { quotedPhrases, textAnchor } from "@/lib/pipeline/stages/understand/quoted";
import { intent } from "./formulate-fixtures";

const read = (q: string) =>
  numericComparisons(intent(q)).map(({ op, values, attribute, text, at }) => ({ op, values, attribute, text, at }));

describe("numeric comparisons read from the question", () => {
  it("reads 'zero' as 0, keeping the question's words and positions", () => {
    const q = "Which products have a unitsOnOrder of zero and are discontinued?";
    expect(read(q)).toEqual([
      { op: "=", values: [0], attribute: "a unitsOnOrder", text: "a unitsOnOrder of zero", at: q.indexOf("a unitsOnOrder") },
    ]);
  });

  it("keeps the words after 'on'/'in' in a count's attribute, so units on order and units in stock differ", () => {
    expect(read("List all discontinued products with zero units in stock.")).toMatchObject([
      { op: "=", values: [0], attribute: "units in stock", text: "with zero units in stock" },
    ]);
    expect(read("Which suppliers have products with 0 units on order?")).toMatchObject([
      { op: "=", values: [0], attribute: "units on order" },
    ]);
    expect(read("Which cars have 4 cylinders?")).toMatchObject([{ op: "=", values: [4], attribute: "cylinders" }]);
  });

  it("'exactly' before the number, and a quoted attribute before 'of', keep the equality", () => {
    expect(read("Which products have a 'unitsInStock' of exactly 50?")).toMatchObject([
      { op: "=", values: [50], attribute: "unitsInStock" },
    ]);
    expect(read("List all movies with exactly 5 roles.")).toMatchObject([{ op: "=", values: [5], attribute: "roles" }]);
    expect(read("Which products have '0' units on order?")).toMatchObject([{ op: "=", values: [0], attribute: "units on order" }]);
  });

  it("leaves words that only contain 'zero' alone", () => {
    expect(read("Which teams play at Zeroville stadium?")).toEqual([]);
  });
});

describe("textAnchor: where a quoted phrase must sit in the text", () => {
  const anchors = (q: string) => quotedPhrases(q).map((p) => [p.text, textAnchor(q, p.at)]);

  it("'starting with' / 'beginning with' anchor to the start, 'ending with' / 'ending in' to the end", () => {
    expect(anchors("List all suppliers who are from cities starting with 'L'.")).toEqual([["L", "prefix"]]);
    expect(anchors('Which products have a name that begins with "Ch"?')).toEqual([["Ch", "prefix"]]);
    expect(anchors("Suppliers with a phone number starting with '(171)'")).toEqual([["(171)", "prefix"]]);
    expect(anchors("Movies whose tagline starts with the word 'Welcome'")).toEqual([["Welcome", "prefix"]]);
    expect(anchors("Name 3 suppliers whose phone number is ending in '8'.")).toEqual([["8", "suffix"]]);
    expect(anchors("Which titles end with 'Returns' or start with 'The'?")).toEqual([
      ["Returns", "suffix"],
      ["The", "prefix"],
    ]);
  });

  it("any other quoted phrase may be anywhere in the text", () => {
    expect(anchors("Which movies have a tagline containing 'end'?")).toEqual([["end", "contains"]]);
    expect(anchors("'Speed' starts the tagline of which movie?")).toEqual([["Speed", "contains"]]);
    expect(anchors("Movies whose tagline mentions the word 'Welcome'")).toEqual([["Welcome", "contains"]]);
  });
});
