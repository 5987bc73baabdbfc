import { describe, expect, it } from "vitest";
import { formatFigure } from "@/lib/tables/format";
import { periodOrder, periodsIn, samePeriod, yearsOf } from "@/lib/tables/periods";
import { cellNumber, readCell } from "@/lib/tables/report-number";
import { exceptedRow, scaleInHeader, scaleInProse, scaleOfFigure } from "@/lib/tables/scale";

describe("report numbers: cells read as reports mean them", () => {
  it("reads plain figures with thousands separators and decimals", () => {
    expect(cellNumber("1,452.4")).toMatchObject({ value: 1452.4, percent: false, currency: null, decimals: 1 });
    expect(cellNumber("166")).toMatchObject({ value: 166, decimals: 0 });
    expect(cellNumber(0.5)).toMatchObject({ value: 0.5 });
  });

  it("takes accounting parentheses and the Unicode minus as negatives", () => {
    expect(cellNumber("(9,819)")?.value).toBe(-9819);
    expect(cellNumber("$(89.7)")).toMatchObject({ value: -89.7, currency: "$" });
    expect(cellNumber("(248%)")).toMatchObject({ value: -248, percent: true });
    expect(cellNumber("(2.5)%")).toMatchObject({ value: -2.5, percent: true });
    expect(cellNumber("−5")?.value).toBe(-5);
    // A lone "(1)" is minus one, not a footnote.
    expect(cellNumber("(1)")?.value).toBe(-1);
  });

  it("drops footnote marks after a figure", () => {
    expect(cellNumber("1,234 (1)")?.value).toBe(1234);
    expect(cellNumber("532.0¹")?.value).toBe(532);
    expect(cellNumber("45.1*")?.value).toBe(45.1);
    expect(cellNumber("94.2 (a)")?.value).toBe(94.2);
  });

  it("reads dashes as zero and n/a markers as no value", () => {
    expect(readCell("—")).toMatchObject({ kind: "number", number: { value: 0, dash: true } });
    expect(readCell("$ —")).toMatchObject({ kind: "number", number: { value: 0, currency: "$" } });
    expect(readCell("-")).toMatchObject({ kind: "number", number: { value: 0 } });
    expect(readCell("n/a")).toEqual({ kind: "missing", text: "n/a" });
    expect(readCell("NM")).toEqual({ kind: "missing", text: "NM" });
    expect(readCell("")).toEqual({ kind: "empty" });
    expect(readCell(null)).toEqual({ kind: "empty" });
  });

  it("keeps percentages and currencies, and leaves ranges and words as text", () => {
    expect(cellNumber("21.0%")).toMatchObject({ value: 21, percent: true, decimals: 1 });
    expect(cellNumber("€ 1,200")).toMatchObject({ value: 1200, currency: "€" });
    expect(cellNumber("EUR 160")).toMatchObject({ value: 160, currency: "EUR" });
    expect(readCell("3-5").kind).toBe("text");
    expect(readCell("1–3 years").kind).toBe("text");
    expect(readCell("EUR").kind).toBe("text");
    expect(readCell("Defined benefit schemes").kind).toBe("text");
  });

  it("reads a scanned header's spaced year", () => {
    expect(cellNumber("2 0 1 8")?.value).toBe(2018);
  });
});

describe("scale notes", () => {
  it("finds a header's or caption's scale marker", () => {
    expect(scaleInHeader("2019 €m")?.scale).toBe("million");
    expect(scaleInHeader("$’000")?.scale).toBe("thousand");
    expect(scaleInHeader("USDm")?.scale).toBe("million");
    expect(scaleInHeader("(Dollars in Millions)")?.scale).toBe("million");
    expect(scaleInHeader("(In thousands)")?.scale).toBe("thousand");
    expect(scaleInHeader("$ billion")?.scale).toBe("billion");
    expect(scaleInHeader("2019")).toBeNull();
    expect(scaleInHeader("Hotel cap per night (EUR)")).toBeNull();
  });

  it("in prose, counts only an explicit statement of the figures' scale", () => {
    expect(scaleInProse("Receivables consist of the following (in thousands):")?.scale).toBe("thousand");
    expect(scaleInProse("NOTES (Tabular amounts in millions, unless otherwise disclosed)")?.scale).toBe("million");
    expect(scaleInProse("Revenue grew by $4.2 million in 2019.")).toBeNull();
    expect(scaleInProse("Comparison of Year Ended December 31, 2019 to Year Ended December 31, 2018 (in 000’s)")?.scale).toBe("thousand");
    expect(scaleInProse("Expressed in US $000's except share and per share amounts")?.scale).toBe("thousand");
  });

  it("keeps the note's exceptions and excepts per-share rows and percentages", () => {
    const note = scaleInProse("(in thousands, except per share data)")!;
    expect(note.except).toContain("per share");
    expect(exceptedRow(note, "Net income per diluted share", false)).toBe(true);
    expect(exceptedRow(note, "Net income", false)).toBe(false);
    expect(exceptedRow(note, "Gross margin", true)).toBe(true);
  });

  it("reads the scale word a figure carries", () => {
    expect(scaleOfFigure("$4.2 million")).toBe("million");
    expect(scaleOfFigure("1.3bn")).toBe("billion");
    expect(scaleOfFigure("4,206")).toBeNull();
  });
});

describe("periods", () => {
  it("reads years, fiscal years, quarters and dates", () => {
    expect(periodsIn("2019 €m").map((p) => p.year)).toEqual([2019]);
    expect(periodsIn("FY2018 and FY19").map((p) => p.year)).toEqual([2018, 2019]);
    expect(periodsIn("F19")[0].year).toBe(2019);
    expect(periodsIn("fiscal 2019")[0].year).toBe(2019);
    expect(periodsIn("Q4 2019")[0]).toMatchObject({ year: 2019, quarter: 4 });
    expect(periodsIn("December 31, 2019")[0]).toMatchObject({ year: 2019, month: 12, day: 31 });
    expect(periodsIn("30 June 2018")[0]).toMatchObject({ year: 2018, month: 6, day: 30 });
    expect(periodsIn("2 0 1 8")[0].year).toBe(2018);
  });

  it("keeps ranges whole and does not read figures as years", () => {
    const [range] = periodsIn("the average from 2017-2019");
    expect(range).toMatchObject({ year: 2017, to: 2019 });
    expect(yearsOf(range)).toEqual([2017, 2018, 2019]);
    expect(periodsIn("2021-2022")[0]).toMatchObject({ year: 2021, to: 2022 });
    expect(periodsIn("$2,019 and 2019.5 and 2019%")).toEqual([]);
  });

  it("matches a column's period to the one asked, month and day only when both state them", () => {
    const [column] = periodsIn("December 31, 2019");
    expect(samePeriod(column, periodsIn("in 2019")[0])).toBe(true);
    expect(samePeriod(column, periodsIn("in 2018")[0])).toBe(false);
    expect(samePeriod(periodsIn("January 26, 2019")[0], periodsIn("April 27, 2019")[0])).toBe(false);
    expect(periodOrder(periodsIn("2018")[0])).toBeLessThan(periodOrder(periodsIn("Q1 2019")[0]));
  });
});

describe("figures written back", () => {
  it("groups thousands, keeps at most two decimals and an ASCII minus", () => {
    expect(formatFigure(1234567.891)).toBe("1,234,567.89");
    expect(formatFigure(-4931)).toBe("-4,931");
    expect(formatFigure(-4931, { typographicMinus: true })).toBe("−4,931");
    expect(formatFigure(-0.001)).toBe("0");
  });
});
