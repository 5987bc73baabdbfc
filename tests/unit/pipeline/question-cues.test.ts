import { describe, expect, it } from "vitest";
import { numericComparisons } from "@/lib/pipeline/stages/formulate/sql/question-cues";
import { intent } from "./formulate-fixtures";

const read = (q: string) => numericComparisons(intent(q)).map(({ op, values, attribute, text, at }) => ({ op, values, attribute, text, at }));

describe("numeric comparisons read from the question", () => {
  it("reads 'zero' as 0, keeping the question's words and positions", () => {
    const q = "Which products have a unitsOnOrder of zero and are discontinued?";
    expect(read(q)).toEqual([{ op: "=", values: [0], attribute: "a unitsOnOrder", text: "a unitsOnOrder of zero", at: q.indexOf("a unitsOnOrder") }]);
  });

  it("keeps the words after 'on'/'in' in a count's attribute, so units on order and units in stock differ", () => {
    expect(read("List all discontinued products with zero units in stock.")).toMatchObject([{ op: "=", values: [0], attribute: "units in stock", text: "with zero units in stock" }]);
    expect(read("Which suppliers have products with 0 units on order?")).toMatchObject([{ op: "=", values: [0], attribute: "units on order" }]);
    expect(read("Which cars have 4 cylinders?")).toMatchObject([{ op: "=", values: [4], attribute: "cylinders" }]);
  });

  it("leaves words that only contain 'zero' alone", () => {
    expect(read("Which teams play at Zeroville stadium?")).toEqual([]);
  });
});
