import { describe, expect, it } from "vitest";
import { auditCsvLine, csvCell, csvLine } from "@/lib/audit/csv";

describe("audit CSV", () => {
  it("quotes commas, quotes and line breaks (RFC 4180) and ends lines with CRLF", () => {
    expect(csvCell("plain")).toBe("plain");
    expect(csvCell("a,b")).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell("two\nlines")).toBe('"two\nlines"');
    expect(csvCell(null)).toBe("");
    expect(csvCell({ role: "ADMIN", groups: ["a", "b"] })).toBe('"{""role"":""ADMIN"",""groups"":[""a"",""b""]}"');
    expect(csvLine(["x", 1, undefined])).toBe("x,1,\r\n");
  });

  it("disarms cells a spreadsheet would run as a formula", () => {
    for (const v of ['=HYPERLINK("http://evil")', "+1+1", "-2+3", "@SUM(A1)", "\t=1", "\r=1"]) {
      const cell = csvCell(v);
      expect(cell.replace(/^"/, "").startsWith("'")).toBe(true);
    }
    expect(csvCell("=1,2")).toBe('"\'=1,2"');
    expect(csvCell("user@example.com")).toBe("user@example.com");
  });

  it("writes one record per line with its columns", () => {
    const line = auditCsvLine({
      id: "1",
      at: "2026-11-28T07:00:00.000Z",
      action: "ask",
      outcome: "success",
      actorId: "u1",
      actorEmail: "=cmd@example.com",
      address: "203.0.113.7",
      targetType: "run",
      targetId: "r1",
      kbIds: ["k1", "k2"],
      runId: "r1",
      before: null,
      after: null,
      detail: { question: "Sales, by region?" },
    });
    expect(line).toBe(
      `2026-11-28T07:00:00.000Z,ask,success,'=cmd@example.com,u1,203.0.113.7,run,r1,k1 k2,r1,,,"{""question"":""Sales, by region?""}"\r\n`,
    );
  });
});
