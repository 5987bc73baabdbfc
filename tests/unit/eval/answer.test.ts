import { describe, expect, it } from "vitest";
import { alignedListF1, scoreAnswer, statesValue } from "@/lib/eval/metrics/answer";
import { maxAssignment } from "@/lib/eval/metrics/assignment";

describe("answer accuracy: P@1, exact match, F1", () => {
  it("scores a single answer against accepted alternatives (best over them)", () => {
    expect(scoreAnswer("Anke Vogel", { answers: ["Anke Vogel"], list: false })).toEqual({ p1: true, em: 1, f1: 1 });
    // "Dr. Anke Vogel" vs "Anke Vogel": tokens {dr, anke, vogel} vs {anke, vogel}: P 2/3, R 1, F1 0.8.
    const s = scoreAnswer("Dr. Anke Vogel", { answers: ["Maria Lindqvist", "Anke Vogel"], list: false });
    expect(s.em).toBe(0);
    expect(s.f1).toBeCloseTo(0.8, 12);
    expect(s.p1).toBe(false);
  });

  it("a refusal or an empty answer scores zero", () => {
    expect(scoreAnswer(null, { answers: ["7"], list: false })).toEqual({ p1: false, em: 0, f1: 0 });
    expect(scoreAnswer("  ", { answers: ["7"], list: false })).toEqual({ p1: false, em: 0, f1: 0 });
  });

  it("P@1 accepts a number stated at its shown precision with the question's own words, not with other words", () => {
    expect(statesValue("76.67", "76.66666666666667")).toBe(true);
    expect(statesValue("77", "76.66666666666667")).toBe(false);
    expect(statesValue("6 singers", "6", "How many singers do we have?")).toBe(true);
    expect(statesValue("2 years", "2", "How many products are in the Footwear category?")).toBe(false);
    expect(statesValue("210 EUR", "210", "What is the hotel cap per night in Oslo?")).toBe(true);
    expect(statesValue("6 or 7", "6")).toBe(false);
    const s = scoreAnswer("6 singers", { answers: ["6"], list: false, question: "How many singers do we have?" });
    // tokens {6, singers} vs {6}: precision 1/2, recall 1, F1 2/3; not an exact match, but correct.
    expect(s.p1).toBe(true);
    expect(s.em).toBe(0);
    expect(s.f1).toBeCloseTo(2 / 3, 12);
  });

  it("list answers: exact match is set equality, F1 aligns items one to one (DROP)", () => {
    const gold = { answers: ["Oslo", "Berlin", "Munich"], list: true };
    expect(scoreAnswer("Munich, Oslo and Berlin", gold)).toEqual({ p1: true, em: 1, f1: 1 });
    // Two of three items right, one extra: aligned F1 (1 + 1 + 0) / max(3, 3) = 2/3.
    const partial = scoreAnswer("Oslo, Berlin, Paris", gold);
    expect(partial.em).toBe(0);
    expect(partial.p1).toBe(false);
    expect(partial.f1).toBeCloseTo(2 / 3, 12);
  });

  it("aligned F1 only pairs items whose numbers agree", () => {
    // "2019 revenue" vs "2018 revenue": token F1 would be 0.5, but the numbers differ, so 0.
    expect(alignedListF1([["2019", "revenue"]], [["2018", "revenue"]])).toBe(0);
    expect(alignedListF1([["2018", "revenue"]], [["2018", "revenue"]])).toBe(1);
  });

  it("finds the maximum-weight assignment (Hungarian)", () => {
    // Greedy would take 0.9 (row 0 → col 0) and be left with 0.1; the optimum is 0.8 + 0.7 = 1.5.
    expect(
      maxAssignment([
        [0.9, 0.8],
        [0.7, 0.1],
      ]),
    ).toEqual([1, 0]);
    // More rows than columns: one row stays unmatched.
    expect(maxAssignment([[1], [2]])).toEqual([-1, 0]);
  });
});
