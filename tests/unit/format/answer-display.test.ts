import { describe, expect, it } from "vitest";
import { columnHeader, formatCell, readableAnswerText, shapeSentence, turnAnswerText } from "@/components/ask/figures";
import type { AnswerShape } from "@/lib/pipeline/contracts";

const eur = { currency: "EUR", scale: null, percent: false } as const;
const eurMillion = { currency: "EUR", scale: "million", percent: false } as const;
const shape = (s: Partial<AnswerShape>): AnswerShape => ({
  kind: "table",
  columns: [],
  rows: [],
  total: 0,
  truncated: false,
  cap: null,
  chart: null,
  source: { kbName: "Sales", language: "sql", query: "SELECT 1" },
  ...s,
});

describe("an answer as its reader reads it", () => {
  it("writes a grouped answer with its currency, rounded, in the reader's locale", () => {
    const s = shape({
      columns: ["segment", "average unit price"],
      rows: [
        ["Club", 246.74625],
        ["Retailer", 267.7251851851852],
      ],
      units: [null, eur],
    });
    expect(shapeSentence(s, "en-GB")).toBe("Club: €246.75; Retailer: €267.73");
    expect(shapeSentence(s, "de-DE")).toBe("Club: 246,75\u00a0€; Retailer: 267,73\u00a0€");
  });

  it("writes a report's figures with the scale its header states, and a single value with its unit", () => {
    const s = shape({
      columns: ["Region", "Revenue 2024 (EUR million)"],
      rows: [
        ["Nordics", "24.1"],
        ["Central Europe", "11.0"],
      ],
      units: [null, eurMillion],
    });
    expect(shapeSentence(s, "en-GB")).toBe("Nordics: €24.1m; Central Europe: €11.0m");
    expect(shapeSentence(shape({ kind: "scalar", columns: ["average list price"], rows: [[258]], units: [eur] }), "en-GB")).toBe("€258");
    expect(shapeSentence(shape({ kind: "scalar", columns: ["number of orders"], rows: [[7]] }), "en-GB")).toBe("7");
  });

  it("keeps identifiers and years as written, and puts a unit the header lacks into the header", () => {
    expect(formatCell(10234, null, "en-GB", { column: "order_id" })).toBe("10234");
    expect(formatCell("2025", null, "en-GB")).toBe("2025");
    expect(formatCell(10234, null, "en-GB", { column: "quantity" })).toBe("10,234");
    expect(formatCell("24.1", eurMillion, "en-GB", { unit: false })).toBe("24.1");
    expect(columnHeader("average unit price", eur)).toBe("average unit price (EUR)");
    expect(columnHeader("Revenue 2024 (EUR million)", eurMillion)).toBe("Revenue 2024 (EUR million)");
    expect(columnHeader("Region", null)).toBe("Region");
  });

  it("rounds long decimals in a stored answer text, leaving other text and short numbers alone", () => {
    expect(readableAnswerText("Club: 246.74625; Retailer: 267.725185185", "en-GB")).toBe("Club: 246.75; Retailer: 267.73");
    expect(readableAnswerText("120857.14285714286", "de-DE")).toBe("120.857,14");
    expect(readableAnswerText("Founded in 2004; 24.1 million; version 1.2.345", "en-GB")).toBe(
      "Founded in 2004; 24.1 million; version 1.2.345",
    );
  });

  it("writes a listed turn (History, the thread) as its answer card did: from its shape, else from the stored text", () => {
    const grouped = shape({
      columns: ["Region", "Revenue 2024 (EUR million)"],
      rows: [
        ["Nordics", "24.1"],
        ["Central Europe", "11.0"],
      ],
      units: [null, eurMillion],
    });
    // The stored text keeps the source's spelling; the list shows the card's.
    expect(turnAnswerText({ answer: "Nordics: 24.1; Central Europe: 11.0", shape: grouped }, "en-GB")).toBe(
      "Nordics: €24.1m; Central Europe: €11.0m",
    );
    expect(
      turnAnswerText(
        { answer: "258", shape: shape({ kind: "scalar", columns: ["average list price"], rows: [[258]], units: [eur] }) },
        "de-DE",
      ),
    ).toBe("258\u00a0€");
    expect(turnAnswerText({ answer: "120857.14285714286", shape: null }, "en-GB")).toBe("120,857.14");
    expect(turnAnswerText({ answer: null, shape: null }, "en-GB")).toBe("");
  });
});
