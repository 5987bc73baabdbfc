import { describe, expect, it } from "vitest";
import { searchTextForPeople } from "@/components/evidence/search-words";

describe("a document search text as people read it", () => {
  it("leaves out the stems the pipeline adds after each keyword", () => {
    expect(searchTextForPeople("returned orders refund policy polici return order")).toBe("returned orders refund policy");
    expect(searchTextForPeople("revenue revenu Nordics 2025")).toBe("revenue Nordics 2025");
  });

  it("keeps the first form written, every distinct word, and the case as written", () => {
    expect(searchTextForPeople("Orders order ordered customers")).toBe("Orders customers");
    expect(searchTextForPeople("Anna Berg approves travel expenses")).toBe("Anna Berg approves travel expenses");
    expect(searchTextForPeople("  who   are The Who  ")).toBe("who are The");
  });

  it("stems nothing outside English", () => {
    expect(searchTextForPeople("Bestellungen Bestellung", "de")).toBe("Bestellungen Bestellung");
  });

  it("shows the note on how the search ran exactly as written", () => {
    const note =
      "[hybrid search: BM25 (SQLite FTS5) + vector similarity (all-MiniLM-L6-v2, int8), reciprocal-rank fusion (k = 60), weights BM25 1 : vector 1]";
    expect(searchTextForPeople(`refund policy polici ${note}`)).toBe(`refund policy ${note}`);
  });
});
