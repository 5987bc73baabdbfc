import { describe, expect, it } from "vitest";
import { FIELD_KINDS, fieldWords } from "@/lib/data/field-types";
import { hintFromLabel } from "@/lib/pipeline/stages/answer/value-types";

describe("field-type words (lib/data/field-types.json)", () => {
  it("reads a field's name as the kind of value it holds, whole words only", () => {
    expect(fieldWords("location").test("warehouse city")).toBe(true);
    expect(fieldWords("location").test("statement")).toBe(false);
    expect(fieldWords("money").test("price eur")).toBe(true);
    expect(fieldWords("money").test("amount in sek")).toBe(true);
    expect(fieldWords("person").test("chief executive")).toBe(true);
    expect(FIELD_KINDS.every((k) => !fieldWords(k).test("zzz"))).toBe(true);
  });

  it("is what the answer stage's value types read from column names", () => {
    expect(hintFromLabel("companyHq")).toBe("location");
    expect(hintFromLabel("unit_price_eur")).toBe("money");
    expect(hintFromLabel("Founded")).toBe("date");
    // A column named "time" holds a duration or a clock time more often than a date.
    expect(hintFromLabel("Time")).not.toBe("date");
    // Durations in plural are not dates.
    expect(hintFromLabel("Warranty (years)")).not.toBe("date");
  });
});
