import { describe, expect, it } from "vitest";
import { getAnswerStr, isNumber, normalizeTatQaAnswer, scoreTatQa, splitScale, toNumber } from "@/lib/eval/metrics/tatqa";

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
    const gold = { answer: ["fixed-price type", "cost-plus type", "time-and-material type"], answerType: "multi-span" as const, scale: "" as const };
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
});
