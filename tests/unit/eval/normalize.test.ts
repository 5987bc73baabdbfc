import { describe, expect, it } from "vitest";
import {
  answerTokens,
  canonicalNumber,
  exactDecimals,
  normalizeAnswer,
  numberStates,
  parseNumberToken,
  splitListAnswer,
  tokenF1,
} from "@/lib/eval/metrics/normalize";

describe("answer normalisation (SQuAD, numbers kept intact)", () => {
  it("lower-cases, drops punctuation and articles, squeezes spaces", () => {
    expect(normalizeAnswer("The  Trail Runner-2!")).toBe("trail runner2");
    expect(normalizeAnswer("An apple, a day")).toBe("apple day");
  });

  it("keeps numbers whole: thousands separators, currency, signs, accounting parentheses, percent", () => {
    expect(normalizeAnswer("$1,496.5")).toBe("1496.5");
    expect(normalizeAnswer("-12.6")).toBe("-12.6");
    expect(normalizeAnswer("(134)")).toBe("-134");
    expect(normalizeAnswer("68%")).toBe("68 percent");
    expect(normalizeAnswer("68 percent")).toBe("68 percent");
    expect(normalizeAnswer("12.50 EUR")).toBe("12.5 eur");
    expect(answerTokens("revenue: 1,200")).toEqual(["revenue", "1200"]);
  });

  it("parses number tokens and rejects words", () => {
    expect(parseNumberToken("1,234,567")).toEqual({ value: 1234567, percent: false });
    expect(parseNumberToken("5.2%")).toEqual({ value: 5.2, percent: true });
    expect(parseNumberToken("2019.")).toEqual({ value: 2019, percent: false });
    expect(parseNumberToken("B52")).toBeNull();
    expect(parseNumberToken("1,23")).toBeNull();
  });

  it("writes numbers canonically at 10 significant digits", () => {
    expect(canonicalNumber(76.66666666666667)).toBe("76.66666667");
    expect(canonicalNumber(12.0)).toBe("12");
    expect(canonicalNumber(-0)).toBe("0");
  });

  it("judges whether a rounded number states a value", () => {
    expect(exactDecimals(6)).toBe(0);
    expect(exactDecimals(2.4)).toBe(1);
    expect(exactDecimals(76.66666666666667)).toBe(10);
    expect(numberStates(76.67, 2, 76.66666666666667)).toBe(true);
    expect(numberStates(77, 0, 76.66666666666667)).toBe(false); // too coarse for a value with decimals
    expect(numberStates(76.7, 1, 76.66666666666667)).toBe(false);
    expect(numberStates(2, 0, 2.4)).toBe(false);
    expect(numberStates(6, 1, 6)).toBe(true);
    expect(numberStates(7, 0, 6)).toBe(false);
  });

  it("computes SQuAD token F1 by hand", () => {
    // pred {a b c}, gold {b c d e}: common 2, precision 2/3, recall 2/4, F1 = 2·(2/3)·(1/2)/(2/3+1/2) = 4/7.
    expect(tokenF1(["a", "b", "c"], ["b", "c", "d", "e"])).toBeCloseTo(4 / 7, 12);
    expect(tokenF1([], [])).toBe(1);
    expect(tokenF1(["x"], [])).toBe(0);
    // Repeated tokens count as often as they occur in both.
    expect(tokenF1(["a", "a"], ["a"])).toBeCloseTo(2 / 3, 12);
  });

  it("splits list answers on commas, semicolons and 'and', not on thousands separators", () => {
    expect(splitListAnswer("Oslo, Berlin and Munich")).toEqual(["Oslo", "Berlin", "Munich"]);
    expect(splitListAnswer("1,200; 3,400")).toEqual(["1,200", "3,400"]);
  });
});
