import { describe, expect, it } from "vitest";
import { answerQuestion, sentenceSpans } from "@/lib/pipeline/stages/answer/classical";
import { questionCoverage } from "@/lib/pipeline/stages/formulate/coverage";
import { countOfOtherNoun, countedNounOfColumn, expectedUnit } from "@/lib/pipeline/units";
import type { ScoredEvidence } from "@/lib/pipeline/contracts";
import { KB, docRow, intent, link, mention, passage, scored, sqlRow } from "./answer-fixtures";

/**
 * An answer must be about what the question asks: a count counts the question's noun, a value is not
 * one of the question's own words in another form, and a row that mentions nothing the question is
 * about (besides the column asked) neither answers it as a listing nor contradicts evidence that does.
 */

const returnsPolicy = passage(
  KB.docs,
  "returns-policy",
  "Returns and Warranty Policy",
  "Returns and Warranty Policy",
  [
    "Customers of Aurora Outfitters may return unused products within the return window for their product category.",
    "Refunds are paid to the original payment method within 10 business days after the return arrives at our warehouse in Jönköping.",
  ],
  0,
  "returns warehouse",
);
const CUSTOMERS: [number, string, string][] = [
  [9, "Wiener Wanderfreunde", "Vienna"],
  [11, "Peak District Adventures", "Sheffield"],
  [10, "Highland Gear Ltd", "Inverness"],
  [12, "London Ramblers", "London"],
];
const customerRows = CUSTOMERS.map(([id, name, city]) =>
  sqlRow(
    KB.sales,
    "customers",
    ["customer_id", "name", "city"],
    [id, name, city],
    'SELECT "customer_id", "name", "city" FROM "customers" LIMIT 50',
    { key: { customer_id: id } },
  ),
);

describe("a count counts the noun the question asks about", () => {
  it("reads the counted noun off a count column", () => {
    expect(countedNounOfColumn("number_of_organisation")).toBe("organisation");
    expect(countedNounOfColumn("number of products")).toBe("products");
    expect(countedNounOfColumn("COUNT(DISTINCT dog_id)")).toBe("dog");
    expect(countedNounOfColumn("order count")).toBe("order");
    expect(countedNounOfColumn("COUNT(*)")).toBeNull();
    expect(countedNounOfColumn("count")).toBeNull();
  });

  it("a count of another noun contradicts the question; the same noun, or a count naming nothing, agrees", () => {
    const employees = expectedUnit("How many employees does Aurora Outfitters have?");
    expect(countOfOtherNoun("number_of_organisation", employees)).toBe(true);
    expect(countOfOtherNoun("number_of_employee", employees)).toBe(false);
    expect(countOfOtherNoun("COUNT(*)", employees)).toBe(false);
    expect(countOfOtherNoun("number_of_organisation", expectedUnit("What is the revenue?"))).toBe(false);
  });

  it("reads the counted noun as the last word of the phrase after 'how many', whatever verb ends it", () => {
    const noun = (q: string) => expectedUnit(q)?.noun;
    // Each of these was read as the verb or adverb after the noun, and a right count of concerts refused.
    expect(noun("How many concerts occurred in 2014 or 2015?")).toBe("concerts");
    expect(noun("How many United Airlines flights go to City 'Aberdeen'?")).toBe("flights");
    expect(noun("How many flights arriving in Aberdeen city?")).toBe("flights");
    expect(noun("How many owners temporarily do not have any dogs?")).toBe("owners");
    expect(noun("How many high schoolers are in each grade?")).toBe("schoolers");
    expect(noun("How many dog pets are raised by female students?")).toBe("pets");
    expect(countOfOtherNoun("COUNT(DISTINCT concert_ID)", expectedUnit("How many concerts occurred in 2014 or 2015?"))).toBe(false);
  });

  it("does not answer 'how many employees' with the count of the organisation the question names", () => {
    const q = "How many employees does Aurora Outfitters have?";
    const count = sqlRow(
      KB.products,
      "Query result",
      ["number_of_organisation"],
      [1],
      "SELECT (COUNT(*) AS ?number_of_organisation) WHERE { ?o a ex:Organisation . ?o rdfs:label ?l . FILTER(CONTAINS(LCASE(?l), 'aurora outfitters')) }",
    );
    const aurora = mention(q, "Aurora Outfitters", [
      link("Aurora Outfitters AB", KB.products, "https://data.aurora-outfitters.example/aurora"),
    ]);
    const { answer } = answerQuestion({
      intent: intent(q, { wh: "how many", answerTypes: ["count"], aggregate: "count", entities: [aurora] }),
      evidence: [scored(count, 5)],
    });
    expect(answer.refrained).toBe(true);
    expect(answer.text).not.toBe("1");
    // Nothing else was found that could answer: the reason says so, and names no disagreement.
    expect(answer.reason).not.toMatch(/disagree/i);
  });

  it("refuses a committed query's count of another noun, saying what the source counts", () => {
    const q = "How many employees does Aurora Outfitters have?";
    const result = {
      kbId: KB.products.id,
      kbName: KB.products.name,
      language: "sparql" as const,
      query: "SELECT (COUNT(*) AS ?number_of_organisation) WHERE { ?o a ex:Organisation }",
      columns: ["number_of_organisation"],
      rows: [[1]],
      pieceIds: [],
      truncated: false,
      cap: 100,
      fit: null,
      grouped: null,
    };
    const { answer } = answerQuestion({
      intent: intent(q, { wh: "how many", answerTypes: ["count"], aggregate: "count" }),
      evidence: [],
      result,
    });
    expect(answer.refrained).toBe(true);
    expect(answer.reason).toMatch(/counts organisation records, not employees/);
  });

  it("still answers with a count of the asked noun", () => {
    const q = "How many products are in the Footwear category?";
    const count = sqlRow(
      KB.sales,
      "Query result",
      ["number_of_products"],
      [2],
      "SELECT COUNT(*) AS number_of_products FROM products WHERE category = 'Footwear'",
    );
    const footwear = mention(q, "Footwear", [link("Footwear", KB.sales, "products.category=Footwear", "value")]);
    const { answer } = answerQuestion({
      intent: intent(q, { wh: "how many", answerTypes: ["count"], aggregate: "count", entities: [footwear] }),
      evidence: [scored(count, 5)],
    });
    expect(answer).toMatchObject({ refrained: false, text: "2" });
  });
});

describe("a request verb is scaffold only as an imperative", () => {
  it("counts 'returns' in 'the returns warehouse' as a word the query must account for", () => {
    const c = questionCoverage("In which city is the returns warehouse?", ["citi"]);
    expect(c.uncovered).toEqual(expect.arrayContaining(["return", "warehous"]));
    expect(c.coverage).toBeLessThan(0.5);
  });

  it("keeps 'Return …' and '…, and show …' as the way of asking", () => {
    expect(questionCoverage("Return the names of all singers.", ["singer"]).coverage).toBe(1);
    expect(questionCoverage("List the cities, and show their populations", ["citi", "popul"]).coverage).toBe(1);
  });
});

describe("an answer is about what the question asks", () => {
  it("does not answer 'which warehouse handles returns?' with a status that restates 'returns'", () => {
    const q = "Which warehouse handles returns?";
    const statuses = (["returned", "shipped"] as const).map((s, i) =>
      sqlRow(KB.sales, "orders", ["status"], [s], "SELECT DISTINCT status FROM orders", { row: i }),
    );
    const evidence: ScoredEvidence[] = [scored(returnsPolicy, 6), scored(statuses[0], 5.4), scored(statuses[1], 3)];
    const { answer } = answerQuestion({ intent: intent(q, { wh: "which", answerTypes: ["location", "entity"] }), evidence });
    expect(answer).toMatchObject({ refrained: false, text: "Jönköping" });
  });

  it("keeps a value named after a word of a question entity ('Tents' for the Summit 2 Tent)", () => {
    const q = "What category is the Summit 2 Tent in?";
    const row = sqlRow(
      KB.sales,
      "products",
      ["name", "category"],
      ["Summit 2 Tent", "Tents"],
      "SELECT name, category FROM products WHERE name = 'Summit 2 Tent'",
    );
    const summit = mention(q, "Summit 2 Tent", [link("Summit 2 Tent", KB.sales, "products.name=Summit 2 Tent", "value")]);
    const { answer } = answerQuestion({
      intent: intent(q, { wh: "what", answerTypes: ["entity"], relation: "category", entities: [summit] }),
      evidence: [scored(row, 5)],
    });
    expect(answer.text).toBe("Tents");
  });

  it("does not list every customer's city for 'in which city is the returns warehouse?', and finds the warehouse in the policy", () => {
    const q = "In which city is the returns warehouse?";
    const evidence: ScoredEvidence[] = [...customerRows.map((r, i) => scored(r, 7.4 - 0.05 * i)), scored(returnsPolicy, 5.5)];
    const { answer } = answerQuestion({ intent: intent(q, { wh: "which", answerTypes: ["location"] }), evidence });
    expect(answer.refrained).toBe(false);
    expect(answer.text).toBe("Jönköping");
    // The customers' cities do not contradict the policy: they are not about the warehouse.
    expect(answer.reason ?? "").not.toMatch(/disagree|Vienna/);
  });
});

describe("a prose question is answered with the words that answer it", () => {
  it("answers 'what does X consist of?' with what the report says it consists of, not a figure of its table", () => {
    const q = "What does working capital consist of?";
    const sentence = passage(
      KB.docs,
      "annual-report",
      "Annual Report 2019",
      "Liquidity",
      ["Working capital consists of current assets less current liabilities.", "Working capital was $12.4 million at year end."],
      0,
      "working capital",
    );
    const row = docRow(
      KB.docs,
      "annual-report",
      "Working capital",
      "Liquidity",
      ["", "2019", "2018"],
      ["Working capital", "12,400", "11,900"],
      0,
      "working capital",
    );
    const { answer } = answerQuestion({
      intent: intent(q, { wh: "what", answerTypes: ["entity"] }),
      evidence: [scored(row, 6), scored(sentence, 5.5)],
    });
    expect(answer).toMatchObject({ refrained: false, text: "current assets less current liabilities" });
  });
});

describe("a document's defined terms are not names", () => {
  it("does not take 'the Company' or 'the Group's' for a name, and keeps real names and acronyms", () => {
    const names = (sentence: string) =>
      sentenceSpans(sentence, "en", false)
        .filter((s) => s.type === "entity")
        .map((s) => s.text);
    expect(names("The Group's auditors will apply the FRC’s Revised Ethical Standard from 15 March 2020.")).not.toContain("Group's");
    expect(names("The common stock of the Company is traded on the NASDAQ Global Select Market.")).toEqual(["NASDAQ Global Select Market"]);
    expect(names("Our products are sold through Deloitte and the NASDAQ.")).toEqual(expect.arrayContaining(["Deloitte", "NASDAQ"]));
    expect(names("Sales grew after the Munich store opened, and in the Netherlands.")).toEqual(
      expect.arrayContaining(["Munich", "Netherlands"]),
    );
  });
});
