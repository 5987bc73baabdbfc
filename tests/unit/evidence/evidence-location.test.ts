import { describe, expect, it } from "vitest";
import { evidenceHeadline, isComputedTable, locationLines } from "@/components/evidence/evidence-location";

describe("locationLines", () => {
  it("labels a stored table row in words and leaves out the row index the row view shows", () => {
    expect(locationLines({ table: "customers", key: "id=7", row: 3 })).toEqual([
      { label: "Table", value: "customers" },
      { label: "Row key", value: "id=7" },
    ]);
  });

  it("says a computed result row has no table instead of naming the internal title", () => {
    expect(locationLines({ table: "Query result", query: "ab12cd", row: 0 })).toEqual([
      { label: "Table", value: "none (rows computed by the query)" },
    ]);
  });

  it("keeps a document and its page and drops empty values and internal ids", () => {
    expect(locationLines({ document: "annual-report-2019", chunk: 4, page: 2, paragraphUid: "e5f6", section: "" })).toEqual([
      { label: "Document", value: "annual-report-2019" },
      { label: "Page", value: "2" },
    ]);
  });

  it("shows a table's own metadata keys as stored", () => {
    expect(locationLines({ scale: "thousand", tableUid: "t-1", headerRows: 2 })).toEqual([{ label: "scale", value: "thousand" }]);
    expect(locationLines(undefined)).toEqual([]);
  });

  it("keeps identifiers for Details: without them only pages, sections and paragraphs remain", () => {
    const location = { document: "annual-report-2025-md", table: "annual-report-2025-md#table-1", page: 4, section: "Results", row: 1 };
    expect(locationLines(location, { identifiers: false })).toEqual([
      { label: "Page", value: "4" },
      { label: "Section", value: "Results" },
    ]);
    expect(locationLines({ table: "customers", key: "id=7", node: "n:42" }, { identifiers: false })).toEqual([]);
    expect(locationLines(location).map((l) => l.label)).toEqual(["Document", "Table", "Page", "Section"]);
  });

  it("heads a computed row with its cells only and leaves other summaries alone", () => {
    expect(evidenceHeadline("Query result / number of orders: 7")).toBe("number of orders: 7");
    expect(evidenceHeadline("customers / name: Ada, city: Munich")).toBe("customers / name: Ada, city: Munich");
  });

  it("tells computed result rows from stored tables", () => {
    expect(isComputedTable("Query result")).toBe(true);
    expect(isComputedTable("customers")).toBe(false);
    expect(isComputedTable(undefined)).toBe(false);
  });
});
