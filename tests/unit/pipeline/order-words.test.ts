import { describe, expect, it } from "vitest";
import { analyzeConstructs } from "@/lib/pipeline/stages/understand/constructs";
import { orderWords } from "@/lib/pipeline/stages/understand/order-words";

describe("what a question says about order, read once by understand", () => {
  it("reads an explicit sort with its key, or with the key left to the question's attribute", () => {
    expect(orderWords("List the staff ordered by their hire date")).toMatchObject({ by: "hire date", sorted: true, descending: false });
    expect(orderWords("Show every warehouse in descending order of capacity")).toMatchObject({
      by: "capacity",
      sorted: true,
      descending: true,
    });
    expect(orderWords("List the invoice totals in decreasing order")).toMatchObject({ by: null, sorted: true, descending: true });
    expect(orderWords("Which invoices were paid late?")).toMatchObject({ by: null, sorted: false, descending: false });
  });

  it("tells ranking words from words that only count off rows", () => {
    expect(orderWords("Name the top 3 suppliers")).toMatchObject({ top: true, ranked: false });
    expect(orderWords("Name the first 3 suppliers")).toMatchObject({ top: false, ranked: false });
    expect(orderWords("Name the 3 cheapest suppliers")).toMatchObject({ ranked: true });
    expect(orderWords("Which region has the fewest stores?")).toMatchObject({ ranked: true, fewest: true });
    expect(orderWords("What is the most common payment method?")).toMatchObject({ ranked: true, frequency: true });
    // "latest" and "interest" end in -est without ranking anything.
    expect(orderWords("Show the latest interest rates")).toMatchObject({ ranked: false });
  });

  it("is part of the Intent's constructs", () => {
    expect(analyzeConstructs("List the products sorted by price descending").order).toMatchObject({
      by: "price descending",
      sorted: true,
      descending: true,
    });
  });
});
