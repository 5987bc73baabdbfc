import { describe, expect, it } from "vitest";
import { Bm25Index } from "@/lib/pipeline/bm25";

const texts = [
  "How many singers do we have?",
  "What is the average age of singers from France?",
  "List the names of the stadiums in the order of capacity, capacity first.",
  "Which pets are older than the average pet?",
  "",
];

describe("BM25 over in-memory texts", () => {
  it("scores a document's own text as selfScore does, for every document", () => {
    const index = new Bm25Index(texts);
    texts.forEach((t, i) => expect(index.selfScore(i)).toBeCloseTo(index.scores(t)[i], 10));
    expect(index.selfScore(99)).toBe(0);
  });

  it("ranks the document that shares the rarer words first", () => {
    const index = new Bm25Index(texts);
    expect(index.top("average age of singers", 2).map((r) => r.index)).toEqual([1, 0]);
  });
});
