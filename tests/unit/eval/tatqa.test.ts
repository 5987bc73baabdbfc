import { describe, expect, it } from "vitest";
import {
  getAnswerStr,
  isNumber,
  normalizeTatQaAnswer,
  pyFixed,
  pyRound,
  pyStr,
  readTatQaPrediction,
  scoreTatQa,
  splitScale,
  tatqaEmF1,
  toNumber,
} from "@/lib/eval/metrics/tatqa";

/** Expected values worked out by hand from TAT-QA's tatqa_metric.py / tatqa_utils.py. */
describe("TAT-QA exact match and F1 (official rules)", () => {
  it("reads numbers as the official script does", () => {
    expect(isNumber("$1,496.5")).toBe(true);
    expect(isNumber("12 million")).toBe(true);
    expect(isNumber("12 apples")).toBe(false);
    expect(toNumber("(134)")?.value).toBe(-134);
    expect(toNumber("12%")?.value).toBe(0.12);
    expect(toNumber("3 million")?.value).toBe(3_000_000);
  });

  it("applies the gold scale to numbers and appends it to text", () => {
    expect(getAnswerStr(["$1,496.5"], "million")).toEqual(["1496500000.0000"]);
    expect(getAnswerStr([-12.6], "million")).toEqual(["-12600000.0000"]);
    expect(getAnswerStr(["5.2"], "percent")).toEqual(["0.0520"]);
    expect(getAnswerStr(["5.2%"], "")).toEqual(["0.0520"]);
    expect(getAnswerStr(["fixed-price type", "cost-plus type"], "")).toEqual(["cost-plus type fixed-price type"]);
  });

  it("normalizes like DROP: punctuation out of words, numbers as Python prints them", () => {
    expect(normalizeTatQaAnswer("The Fixed-Price type")).toBe("fixedprice type");
    expect(normalizeTatQaAnswer("1496500000.0000")).toBe("1496500000.0");
    expect(normalizeTatQaAnswer("2019")).toBe("2019");
  });

  it("an arithmetic answer is right only with its scale", () => {
    const gold = { answer: -12.6, answerType: "arithmetic" as const, scale: "million" as const };
    expect(scoreTatQa("-12.6 million", gold)).toEqual({ em: 1, f1: 1 });
    expect(scoreTatQa("-12.6", gold)).toEqual({ em: 0, f1: 0 });
    expect(scoreTatQa("-12.6", gold, "million")).toEqual({ em: 1, f1: 1 });
  });

  it("percent answers: '5.2%' and (5.2, percent) both match 5.2 with scale percent", () => {
    const gold = { answer: 5.2, answerType: "arithmetic" as const, scale: "percent" as const };
    expect(scoreTatQa("5.2%", gold)).toEqual({ em: 1, f1: 1 });
    expect(scoreTatQa("5.2", gold, "percent")).toEqual({ em: 1, f1: 1 });
    expect(scoreTatQa("5.2", gold)).toEqual({ em: 0, f1: 0 });
  });

  it("span answers get token F1; arithmetic and count answers get F1 = EM", () => {
    const span = { answer: ["our allowable incurred costs plus a profit"], answerType: "span" as const, scale: "" as const };
    // pred bag {allowable, incurred, costs} vs gold bag {our, allowable, incurred, costs, plus, profit}: P 1, R 1/2, F1 2/3 → 0.67.
    expect(scoreTatQa("allowable incurred costs", span)).toEqual({ em: 0, f1: 0.67 });
    const count = { answer: "4", answerType: "count" as const, scale: "" as const };
    expect(scoreTatQa("4", count)).toEqual({ em: 1, f1: 1 });
    expect(scoreTatQa("5", count)).toEqual({ em: 0, f1: 0 });
  });

  it("multi-span answers are compared as one sorted, joined string", () => {
    const gold = {
      answer: ["fixed-price type", "cost-plus type", "time-and-material type"],
      answerType: "multi-span" as const,
      scale: "" as const,
    };
    expect(scoreTatQa(["time-and-material type", "fixed-price type", "cost-plus type"], gold, "")).toEqual({ em: 1, f1: 1 });
    // Two of three: bag {costplus, fixedprice, type} vs {costplus, fixedprice, timeandmaterial, type}: P 1, R 3/4 → 0.86.
    expect(scoreTatQa(["fixed-price type", "cost-plus type"], gold, "")).toEqual({ em: 0, f1: 0.86 });
  });

  it("a span with a number needs the scale too; a number without scale fails", () => {
    const gold = { answer: ["$1,496.5"], answerType: "span" as const, scale: "million" as const };
    expect(scoreTatQa("$1,496.5 million", gold).em).toBe(1);
    expect(scoreTatQa("$1,496.5", gold).em).toBe(0);
  });

  it("no prediction scores zero", () => {
    expect(scoreTatQa(null, { answer: ["x"], answerType: "span", scale: "" })).toEqual({ em: 0, f1: 0 });
  });

  it("reads the scale off a free-text answer", () => {
    expect(splitScale("$1,496.5 million")).toEqual({ text: "$1,496.5", scale: "million" });
    expect(splitScale("5.2%")).toEqual({ text: "5.2%", scale: "percent" });
    expect(splitScale("12 percent")).toEqual({ text: "12%", scale: "percent" });
    expect(splitScale("Fixed price")).toEqual({ text: "Fixed price", scale: "" });
  });

  it("rounds as Python does: half to even on the exact binary value", () => {
    // 0.125 and 0.625 are exact in binary: Python's round and '%.2f' go to the even neighbour; toFixed would go up.
    expect(pyRound(0.125, 2)).toBe(0.12);
    expect(pyRound(0.625, 2)).toBe(0.62);
    expect(pyRound(0.375, 2)).toBe(0.38);
    expect(pyFixed(1.03125, 4)).toBe("1.0312");
    expect(pyFixed(-0.03125, 4)).toBe("-0.0312");
    // 2.675 is stored as 2.67499999…: below the tie, down for both.
    expect(pyRound(2.675, 2)).toBe(2.67);
    expect(pyFixed(0, 4)).toBe("0.0000");
    expect(pyFixed(-0, 4)).toBe("-0.0000");
  });

  it("writes numbers as Python's str(): ints bare, floats with .0, exponent form from 1e16", () => {
    expect(pyStr({ value: 2019, float: false })).toBe("2019");
    expect(pyStr({ value: 2019, float: true })).toBe("2019.0");
    expect(pyStr({ value: 0.0001, float: true })).toBe("0.0001");
    expect(pyStr({ value: 1.5e16, float: true })).toBe("1.5e+16");
    expect(normalizeTatQaAnswer("item 7.0")).toBe("item 7.0");
    expect(normalizeTatQaAnswer("item 7")).toBe("item 7");
  });

  it("an arithmetic tie: gold 0.62 percent and a prediction of 0.625 percent agree (0.625 rounds to 0.62)", () => {
    const gold = { answer: 0.62, answerType: "arithmetic" as const, scale: "percent" as const };
    expect(tatqaEmF1("0.625", "percent", gold)).toEqual({ em: 1, f1: 1 });
  });

  it("(0) is zero, not minus zero: it matches a gold 0", () => {
    const gold = { answer: 0, answerType: "arithmetic" as const, scale: "" as const };
    expect(tatqaEmF1("(0)", "", gold)).toEqual({ em: 1, f1: 1 });
    expect(toNumber("(0)")).toEqual({ value: 0, float: false });
  });

  it("span F1 does not require the numbers to match (TAT-QA drops DROP's rule), and is rounded half to even", () => {
    // Gold bag {revenue, 2019, grew} vs prediction {revenue, 2018, grew}: 2/3 each way → F1 0.67 although the years differ.
    const gold = { answer: ["revenue 2019 grew"], answerType: "span" as const, scale: "" as const };
    expect(tatqaEmF1("revenue 2018 grew", "", gold)).toEqual({ em: 0, f1: 0.67 });
    // P = 1/4 (1 of 4 tokens), R = 1/12: F1 = 0.125 exactly, which Python rounds to 0.12.
    const long = { answer: ["a1 a2 a3 a4 a5 a6 a7 a8 a9 a10 a11 shared"], answerType: "span" as const, scale: "" as const };
    expect(tatqaEmF1("shared b1 b2 b3", "", long)).toEqual({ em: 0, f1: 0.12 });
  });

  it("reads a free-text answer as the model outputs the script expects: scale off every number, list items as spans", () => {
    expect(splitScale("$1.2 million and $3.4 million")).toEqual({ text: "$1.2 and $3.4", scale: "million" });
    expect(readTatQaPrediction("Revenue, Cost of sales and Gross profit")).toEqual([
      { prediction: "Revenue, Cost of sales and Gross profit", scale: "" },
      { prediction: ["Revenue", "Cost of sales", "Gross profit"], scale: "" },
    ]);
    const gold = { answer: ["Gross profit", "Revenue"], answerType: "multi-span" as const, scale: "" as const };
    // As one string the order differs from the gold's sorted spans; as a list it is sorted too, and matches.
    expect(tatqaEmF1("Revenue and Gross profit", "", gold).em).toBe(0);
    expect(scoreTatQa("Revenue and Gross profit", gold)).toEqual({ em: 1, f1: 1 });
    // A span that merely contains "and" is still right as one string.
    expect(scoreTatQa("Research and development", { answer: ["research and development"], answerType: "span", scale: "" })).toEqual({
      em: 1,
      f1: 1,
    });
  });

  it("counts: the gold is read as a whole number, F1 equals EM", () => {
    expect(scoreTatQa("3", { answer: "3", answerType: "count", scale: "" })).toEqual({ em: 1, f1: 1 });
    expect(scoreTatQa("3 segments", { answer: "3", answerType: "count", scale: "" })).toEqual({ em: 0, f1: 0 });
  });
});
