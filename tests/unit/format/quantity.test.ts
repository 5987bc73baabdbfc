import { describe, expect, it } from "vitest";
import { currencyIn, formatQuantity, quantityOfColumn, quantityOfHeader } from "@/lib/format/quantity";

describe("what a column's figures measure", () => {
  it("reads currency, scale and percent from a header or a column name", () => {
    expect(quantityOfHeader("Revenue 2025 (EUR million)")).toEqual({ currency: "EUR", scale: "million", percent: false });
    expect(quantityOfHeader("Hotel cap per night (EUR)")).toEqual({ currency: "EUR", scale: null, percent: false });
    expect(quantityOfHeader("price_eur")).toEqual({ currency: "EUR", scale: null, percent: false });
    expect(quantityOfHeader("Sales ($ in thousands)")).toEqual({ currency: "USD", scale: "thousand", percent: false });
    expect(quantityOfHeader("Growth %")).toEqual({ currency: null, scale: null, percent: true });
    expect(quantityOfHeader("Region")).toBeNull();
    expect(quantityOfHeader("European sales")).toBeNull();
  });

  it("takes a currency from what the source says about its table, for money columns only", () => {
    const context = ["Orders and products of Aurora Outfitters. Prices are in euros."];
    expect(quantityOfColumn("average unit price", context)).toEqual({ currency: "EUR", scale: null, percent: false });
    expect(quantityOfColumn("list_price", context)).toEqual({ currency: "EUR", scale: null, percent: false });
    expect(quantityOfColumn("number of orders", context)).toBeNull();
    expect(quantityOfColumn("quantity", context)).toBeNull();
    expect(quantityOfColumn("average unit price", ["Orders and products."])).toBeNull();
  });

  it("names currencies by code, symbol or word", () => {
    expect(currencyIn("Amounts in GBP")).toBe("GBP");
    expect(currencyIn("€ per night")).toBe("EUR");
    expect(currencyIn("priceUSD")).toBe("USD");
    expect(currencyIn("Prices in Swiss francs")).toBe("CHF");
    expect(currencyIn("Europe")).toBeNull();
  });
});

describe("a figure for its reader", () => {
  const eur = { currency: "EUR", scale: null, percent: false } as const;
  const eurMillion = { currency: "EUR", scale: "million", percent: false } as const;
  it("groups digits, rounds long decimals and adds the currency, by the locale", () => {
    expect(formatQuantity(120857.14285714286, eur, "en-GB")).toBe("€120,857.14");
    expect(formatQuantity(120857.14285714286, eur, "de-DE")).toBe("120.857,14\u00a0€");
    expect(formatQuantity(258, eur, "en-GB")).toBe("€258");
    expect(formatQuantity(246.74625, null, "en-GB")).toBe("246.75");
    expect(formatQuantity(246.74625, null, "fr-FR")).toBe("246,75");
  });

  it("shows a stated scale the locale's way, and percentages as written", () => {
    expect(formatQuantity(26.3, eurMillion, "en-GB")).toBe("€26.3m");
    expect(formatQuantity(26.3, eurMillion, "de-DE")).toBe("26,3\u00a0Mio.\u00a0€");
    expect(formatQuantity(24, { currency: null, scale: null, percent: true }, "en-GB")).toBe("24%");
    expect(formatQuantity(24, { currency: null, scale: null, percent: true }, "de-DE")).toBe("24\u00a0%");
  });

  it("leaves currency and scale to the header when asked, keeping the source's decimals", () => {
    expect(formatQuantity(11, eurMillion, "en-GB", { unit: false, decimals: 1 })).toBe("11.0");
    expect(formatQuantity(1204.5, eur, "de-DE", { unit: false })).toBe("1.204,5");
  });
});
