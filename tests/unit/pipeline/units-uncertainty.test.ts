import { describe, expect, it } from "vitest";
import { answerQuestion } from "@/lib/pipeline/stages/answer/classical";
import { answerComplement } from "@/lib/pipeline/stages/answer/complement";
import { quantityAsked } from "@/lib/pipeline/stages/understand/answer-form";
import { UNIT_CONTRADICTS, expectedUnit, unitAgreement, unitOfValue } from "@/lib/pipeline/units";
import type { ScoredEvidence } from "@/lib/pipeline/contracts";
import { KB, docRow, intent, link, mention, passage, scored, sqlRow } from "./answer-fixtures";

describe("units and answer types agree", () => {
  it("reads a value's unit", () => {
    expect(unitOfValue("2 years")).toEqual({ kind: "duration", word: "years" });
    expect(unitOfValue("10 business days")).toEqual({ kind: "duration", word: "days" });
    expect(unitOfValue("160 EUR")).toEqual({ kind: "currency", word: "EUR" });
    expect(unitOfValue("$4.2 million")).toEqual({ kind: "currency", word: "$" });
    expect(unitOfValue("12%")).toEqual({ kind: "percent", word: "%" });
    expect(unitOfValue("15 stores")).toEqual({ kind: "count-noun", word: "stores" });
    expect(unitOfValue("48.2 million")).toBeNull();
    expect(unitOfValue("2")).toBeNull();
  });

  it("reads what the question expects", () => {
    expect(expectedUnit("How many products are in the Footwear category?")).toEqual({ kind: "count-noun", noun: "products" });
    expect(expectedUnit("How many years of warranty do backpacks have?")).toEqual({ kind: "duration", noun: "years" });
    expect(expectedUnit("How long is the return window?")).toEqual({ kind: "duration", noun: null });
    expect(expectedUnit("What percentage of products contained recycled materials?")?.kind).toBe("percent");
    expect(expectedUnit("Who is the chief executive?")).toBeNull();
  });

  it("a unit of another kind contradicts; no unit or the same kind agrees", () => {
    const products = expectedUnit("How many products are in the Footwear category?");
    expect(unitAgreement("2 years", products)).toBe(UNIT_CONTRADICTS);
    expect(unitAgreement("2 products", products)).toBe(1);
    expect(unitAgreement("2", products)).toBe(1);
    expect(unitAgreement("160 EUR", expectedUnit("How long do refunds take?"))).toBe(UNIT_CONTRADICTS);
    expect(unitAgreement("12 days", expectedUnit("What percentage of orders were returned?"))).toBe(UNIT_CONTRADICTS);
  });

  it("answers a count question with the count, not with another table's figure in years", () => {
    const q = "How many products are in the Footwear category?";
    const count = sqlRow(
      KB.sales,
      "Query result",
      ["category", "number of products"],
      ["Footwear", 2],
      "SELECT 'Footwear' AS category, COUNT(*) AS \"number of products\" FROM products WHERE category = 'Footwear'",
    );
    const warranty = docRow(
      KB.docs,
      "returns",
      "Return window and warranty by product category",
      "Return windows",
      ["Category", "Return window (days)", "Warranty (years)"],
      ["Jackets", 30, 2],
      0,
      "footwear",
    );
    const footwear = mention(q, "Footwear", [link("Footwear", KB.sales, "products.category=Footwear", "value")]);
    const { answer } = answerQuestion({
      intent: intent(q, { wh: "how many", answerTypes: ["count"], aggregate: "count", entities: [footwear] }),
      evidence: [scored(count, 9), scored(warranty, 6)],
    });
    expect(answer.text).toBe("2");
  });

  it("reads a 'what is the <quantity>' question as asking for an amount", () => {
    expect(quantityAsked("What is the travel policy's hotel cap?")).toEqual(["money", "number"]);
    expect(quantityAsked("What is the return window for tents?")).toEqual(["number", "count"]);
    expect(quantityAsked("What was the operating margin in 2025?")).toEqual(["percent", "number"]);
    expect(quantityAsked("What is the name of the chief executive?")).toBeNull();
  });
});

// The travel policy's per-city table and the sentence above it.
const CITIES: [string, number, number][] = [
  ["Stockholm", 190, 65],
  ["Oslo", 210, 70],
  ["Berlin", 160, 55],
];
const cityRows = CITIES.map(([city, cap, diem], i) =>
  docRow(
    KB.docs,
    "travel",
    "Hotels and daily allowances",
    "Hotels and daily allowances",
    ["City", "Hotel cap per night (EUR)", "Per diem (EUR)"],
    [city, cap, diem],
    i,
    "hotel cap",
  ),
);
const capSentence = passage(
  KB.docs,
  "travel",
  "Travel and Expense Policy",
  "Hotels and daily allowances",
  [
    "Hotel costs are reimbursed up to the nightly cap for the city.",
    "Meals are covered by a daily allowance (per diem) instead of receipts.",
  ],
  3,
  "hotel cap",
);

describe("uncertain answers and refusals", () => {
  it("answers a per-key question that names no key with the table's column, key by key, not a sentence without a number", () => {
    const q = "What is the travel policy's hotel cap?";
    const evidence: ScoredEvidence[] = [scored(capSentence, 6), ...cityRows.map((r) => scored(r, 5.5))];
    const { answer } = answerQuestion({
      intent: intent(q, { wh: "what", answerTypes: ["entity", "text"], relation: "hotel cap" }),
      evidence,
    });
    expect(answer).toMatchObject({ refrained: false, text: "Stockholm: 190 EUR, Oslo: 210 EUR and Berlin: 160 EUR" });
    expect(answer.citations).toEqual(cityRows.map((r) => r.id));
  });

  it("shows a supported value below the bar as uncertain, naming where it is, without scores", () => {
    const q = "What is the travel policy's hotel cap in Berlin?";
    const berlin = mention(q, "Berlin", [link("Berlin", KB.docs, "travel#table-0:Berlin", "value")]);
    const evidence = [scored(cityRows[2], 5), ...cityRows.slice(0, 2).map((r) => scored(r, 4.9))];
    const { answer } = answerQuestion({
      intent: intent(q, { wh: "what", answerTypes: ["money"], relation: "hotel cap", entities: [berlin] }),
      evidence,
      threshold: 0.95,
    });
    expect(answer).toMatchObject({ refrained: false, certainty: "uncertain", text: "160 EUR", citations: [cityRows[2].id] });
    expect(answer.reason).toBe(
      "Not certain — the closest answer in the sources is 160 EUR (the Berlin row of Hotels and daily allowances).",
    );
    expect(answer.reason).not.toMatch(/\d\.\d\d|threshold|scored|confidence/i);
  });

  it("does not offer a value from another period as the closest answer", () => {
    const q = "What was the revenue of the Asia region in 2025?";
    const asia = docRow(
      KB.docs,
      "report-2019",
      "Revenue by region",
      "",
      ["Region", "2019", "2018"],
      ["Asia Pacific", "5,120", "4,880"],
      0,
      "asia revenue",
    );
    const { answer } = answerQuestion({
      intent: intent(q, { wh: "what", answerTypes: ["money"], relation: "revenue", entities: [mention(q, "Asia")] }),
      evidence: [scored(asia, 5)],
      threshold: 0.95,
    });
    expect(answer.refrained).toBe(true);
    expect(answer.reason).toMatch(/^The sources found do not state an amount that answers the question\./);
  });

  it("refuses when the answer is not in the evidence, saying what was looked for", () => {
    const q = "What is the hotel cap in Madrid?";
    const madrid = mention(q, "Madrid");
    const { answer } = answerQuestion({
      intent: intent(q, { wh: "what", answerTypes: ["money"], relation: "hotel cap", entities: [madrid] }),
      evidence: cityRows.map((r) => scored(r, 5)),
    });
    expect(answer.refrained).toBe(true);
    expect(answer.certainty).toBeUndefined();
    expect(answer.reason).toBe("None of the sources found mentions 'Madrid'.");
  });
});

describe("passage answers: the part of the sentence that answers", () => {
  it("drops the restated subject and verb", () => {
    expect(
      answerComplement(
        "Goodwill consists of the excess of the consideration transferred over the fair value of net assets acquired.",
        "What does goodwill consist of?",
      ),
    ).toBe("the excess of the consideration transferred over the fair value of net assets acquired");
    expect(
      answerComplement(
        "Land, property and equipment are stated at cost, net of accumulated depreciation and amortization.",
        "How are land, property, and equipment stated in the report?",
      ),
    ).toBe("at cost, net of accumulated depreciation and amortization");
    expect(
      answerComplement(
        "(1) Strategic Alternative Evaluation costs are primarily related to third party advisory services.",
        "What are strategic alternative evaluation costs primarily related to?",
      ),
    ).toBe("third party advisory services");
  });

  it("starts the answer at the first word of its own once the lead restates the question, though question words come again", () => {
    expect(
      answerComplement("Tax fees comprise fees for preparation of tax returns to the Company.", "What do the tax fees comprise of?"),
    ).toBe("for preparation of tax returns to the Company");
    expect(
      answerComplement(
        "Interest expense includes both stated interest and the amortization of debt discount.",
        "What does interest expense include?",
      ),
    ).toBe("both stated interest and the amortization of debt discount");
  });

  it("keeps nothing when the sentence does not restate the question", () => {
    expect(answerComplement("The board met twice in 2019.", "What does goodwill consist of?")).toBeNull();
  });
});
