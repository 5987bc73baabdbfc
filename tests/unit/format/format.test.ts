import { describe, expect, it } from "vitest";
import { clipAtWord } from "@/lib/format/clip";
import { count, noun } from "@/lib/format/count";

describe("counts with their noun", () => {
  it("uses the singular for exactly one and the plural otherwise, numbers grouped", () => {
    expect(count(1, "passage")).toBe("1 passage");
    expect(count(0, "passage")).toBe("0 passages");
    expect(count(1204, "chunk")).toBe("1,204 chunks");
    expect(count(2, "entity", "entities")).toBe("2 entities");
    expect(noun(1, "foreign key")).toBe("foreign key");
  });
});

describe("clipping a summary at a word boundary", () => {
  it("keeps short text as it is, whitespace folded", () => {
    expect(clipAtWord("Selected  2 sources\n(SQL)", 80)).toBe("Selected 2 sources (SQL)");
  });

  it("cuts before the word that does not fit and marks the cut, within the limit", () => {
    const text = "Selected 3 of 5 sources: Aurora sales database, Aurora documents, product graph";
    const clipped = clipAtWord(text, 40);
    expect(clipped).toBe("Selected 3 of 5 sources: Aurora sales…");
    expect(clipped.length).toBeLessThanOrEqual(40);
    expect(text.startsWith(clipped.slice(0, -1))).toBe(true);
  });

  it("keeps a word that ends exactly at the limit and drops trailing punctuation before the ellipsis", () => {
    expect(clipAtWord("alpha beta gamma", 11)).toBe("alpha beta…");
    expect(clipAtWord("alpha, beta gamma", 8)).toBe("alpha…");
  });

  it("cuts inside a word only when a single long word fills the space", () => {
    expect(clipAtWord("https://example.org/a/very/long/address trailing", 20)).toBe("https://example.org…");
  });
});

describe("knowledge-base counts and settings in words", () => {
  it("labels the backends' counts, most telling first, in singular for one, unknown when negative", async () => {
    const { statLines, statsSummary, configLines } = await import("@/lib/catalog/display-labels");
    // As jsonb returns them: shortest keys first.
    const stats = { chunks: 1, tables: 1, documents: 1, tableRows: 3, failedDocuments: 0 };
    expect(statLines(stats).map((s) => `${s.label} ${s.value}`)).toEqual([
      "Documents 1",
      "Passages 1",
      "Tables 1",
      "Table rows 3",
      "Unreadable documents 0",
    ]);
    expect(statsSummary(stats)).toBe("1 document · 1 passage · 1 table");
    expect(statsSummary({ triples: -1, classes: 4, predicates: 1 })).toBe("4 classes · 1 predicate");
    expect(statLines({ relationshipTypes: 2, nodeDegreeMax: 9 }).map((s) => s.label)).toEqual(["Relationship types", "Node degree max"]);
    expect(configLines({ dialect: "postgres", ssl: false, defaultGraph: "urn:g" })).toEqual([
      { key: "dialect", label: "Engine", value: "PostgreSQL" },
      { key: "ssl", label: "Encrypted connection (TLS)", value: "no" },
      { key: "defaultGraph", label: "Default graph", value: "urn:g" },
    ]);
  });
});
