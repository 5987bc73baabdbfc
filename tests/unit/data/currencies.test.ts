import { describe, expect, it } from "vitest";
import { CURRENCIES, CURRENCY_CODES, currencyCodeOf } from "@/lib/data/currencies";
import { currencyIn } from "@/lib/format/quantity";
import { cellNumber } from "@/lib/tables/report-number";
import { unitOfValue } from "@/lib/pipeline/units";
import { classifyValue } from "@/lib/pipeline/stages/answer/value-types";

describe("the currency lexicon (lib/data/currencies.json)", () => {
  it("lists each code once and reads codes, aliases, symbols and words as their currency", () => {
    expect(new Set(CURRENCY_CODES).size).toBe(CURRENCY_CODES.length);
    expect(CURRENCIES.every((c) => /^[A-Z]{3}$/.test(c.code))).toBe(true);
    expect(currencyCodeOf("eur")).toBe("EUR");
    expect(currencyCodeOf("RMB")).toBe("CNY");
    expect(currencyCodeOf("NZ$")).toBe("NZD");
    expect(currencyCodeOf("Pounds Sterling")).toBe("GBP");
    expect(currencyCodeOf("kronor")).toBe("SEK");
  });

  it("names no currency for a word two currencies share, and none for other words", () => {
    expect(currencyCodeOf("kroner")).toBeNull();
    expect(currencyCodeOf("revenue")).toBeNull();
  });

  // Every reader of money takes its list from the lexicon, so they agree on a currency none of them spelled out before.
  it("is what headers, cells, units and value types all read", () => {
    expect(currencyIn("Revenue (SGD million)")).toBe("SGD");
    expect(currencyIn("price_pln")).toBe("PLN");
    expect(currencyIn("Amounts in Swiss francs")).toBe("CHF");
    expect(currencyIn("Turnover in kroner")).toBeNull();
    expect(cellNumber("NZ$ 1,250")).toMatchObject({ value: 1250, currency: "NZ$" });
    expect(cellNumber("(PLN 40)")).toMatchObject({ value: -40, currency: "PLN" });
    expect(unitOfValue("1,200 rupees")).toEqual({ kind: "currency", word: "rupees" });
    expect(unitOfValue("30 cents")).toEqual({ kind: "currency", word: "cents" });
    expect(unitOfValue("30 days")).toEqual({ kind: "duration", word: "days" });
    expect(classifyValue("12 million yuan", null)).toBe("money");
    expect(classifyValue("CAD 3.4 million", null)).toBe("money");
    expect(classifyValue("12 million people", null)).not.toBe("money");
  });
});
