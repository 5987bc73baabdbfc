import { describe, expect, it } from "vitest";
import { DEFAULT_PIPELINE_CONFIG } from "@/lib/pipeline/config";
import type { StageContext, TraceEventInput } from "@/lib/pipeline/stage";
import { RunCancelledError } from "@/lib/pipeline/stage";
import {
  REFUSAL_TEXT,
  answerQuestion,
  buildQuestionFocus,
  classicalAnswer,
  classifyValue,
  hintFromLabel,
  joinList,
  normalizeEvidenceScores,
  sentenceSpans,
  typeFit,
  valueKey,
} from "@/lib/pipeline/stages/answer/classical";
import { answerSchema, type ScoredEvidence } from "@/lib/pipeline/contracts";
import { EX, KB, docRow, edge, intent, iri, link, literal, mention, node, passage, path, scored, sqlRow, triple } from "./answer-fixtures";

// ---------------------------------------------------------------------------------------------
// Evidence from the Aurora demo catalog and the movies graph

const ANNUAL = { id: "annual-report-2025", title: "Aurora Outfitters Annual Report 2025" };
const CEO_SENTENCES = [
  "2025 was a strong year for Aurora Outfitters.",
  "Revenue grew 12 percent to 48.2 million euros, driven by the Nordic region and by our new line of recycled down jackets.",
  "Our chief executive officer, Maria Lindqvist, joined the company in 2019 after ten years at a sporting goods retailer.",
  "Operating margin improved to 9.4 percent as we moved more sales to our own web shop.",
];
const letter = passage(KB.docs, ANNUAL.id, ANNUAL.title, "Letter from the CEO", CEO_SENTENCES, 0, "revenue 2025");
const regionText = passage(
  KB.docs,
  ANNUAL.id,
  ANNUAL.title,
  "Results by region",
  [
    "The Nordic region remained our largest market.",
    "Central Europe grew fastest, helped by the opening of the Munich store in April 2025.",
  ],
  1,
  "munich store opening",
);
const outlook = passage(
  KB.docs,
  ANNUAL.id,
  ANNUAL.title,
  "Outlook",
  ["For 2026 we expect revenue growth between 8 and 10 percent and plan to open two stores in the Netherlands."],
  3,
  "stores netherlands",
);
const returns = passage(
  KB.docs,
  "returns-policy",
  "Returns and Warranty Policy",
  null,
  [
    "Customers of Aurora Outfitters may return unused products within the return window for their product category, counted from the delivery date.",
    "Refunds are paid to the original payment method within 10 business days after the return arrives at our warehouse in Jönköping.",
  ],
  0,
  "refund days",
);

const totalRow = docRow(
  KB.docs,
  ANNUAL.id,
  "Results by region",
  "Results by region",
  ["Region", "Revenue 2024 (EUR million)", "Revenue 2025 (EUR million)", "Growth"],
  ["Total", 43.0, 48.2, "12%"],
  3,
  "revenue 2025",
);
const tentsReturnRow = docRow(
  KB.docs,
  "returns-policy",
  "Return window and warranty by product category",
  "Return windows",
  ["Category", "Return window (days)", "Warranty (years)"],
  ["Tents", 60, 5],
  0,
  "return window tents",
);

const ceoQuery = `SELECT ?s ?p ?o WHERE { ?s ?p ?o . FILTER(?s = <${EX}aurora> || ?o = <${EX}aurora>) }`;
const auroraAB = iri("aurora", "Aurora Outfitters AB");
const ceoOf = iri("ceoOf", "chief executive of");
const ceoTriple = triple(KB.products, iri("maria-lindqvist", "Maria Lindqvist"), ceoOf, auroraAB, ceoQuery);
const otherCeoTriple = triple(KB.products, iri("anke-vogel", "Anke Vogel"), ceoOf, iri("aurora-de", "Aurora Outfitters GmbH"), ceoQuery);
const locatedTriple = triple(KB.products, auroraAB, iri("locatedIn", "located in"), iri("stockholm", "Stockholm"), ceoQuery);
const foundedTriple = triple(KB.products, auroraAB, iri("founded", "founded"), literal("2004", "gYear"), ceoQuery);

function ev(...pieces: [Parameters<typeof scored>[0], number][]): ScoredEvidence[] {
  return pieces.map(([p, s]) => scored(p, s));
}

const auroraLink = link("Aurora Outfitters AB", KB.products, `${EX}aurora`);

// ---------------------------------------------------------------------------------------------

describe("answer: rows", () => {
  it("reads a COUNT column for 'how many' and cites the count row first", () => {
    const q = "How many orders did Alpenweg GmbH place?";
    const countQuery = "SELECT COUNT(*) FROM orders o JOIN customers c ON c.customer_id = o.customer_id WHERE c.name = 'Alpenweg GmbH'";
    const countRow = sqlRow(KB.sales, "Query result", ["COUNT(*)"], [9], countQuery);
    const customerRow = sqlRow(
      KB.sales,
      "customers",
      ["customer_id", "name", "segment", "region_id", "city"],
      [5, "Alpenweg GmbH", "Retailer", 3, "Munich"],
      "SELECT * FROM customers WHERE name = 'Alpenweg GmbH'",
      { key: { customer_id: 5 } },
    );
    const { answer } = answerQuestion({
      intent: intent(q, {
        wh: "how many",
        answerTypes: ["count"],
        aggregate: "count",
        entities: [mention(q, "Alpenweg GmbH", [link("Alpenweg GmbH", KB.sales, "customers.name=Alpenweg GmbH", "value")])],
        relation: "place",
      }),
      evidence: ev([countRow, 9.1], [customerRow, 7.5]),
    });
    expect(answerSchema.parse(answer)).toEqual(answer);
    expect(answer).toMatchObject({ text: "9", refrained: false, reason: null });
    expect(answer.citations[0]).toBe(countRow.id);
    expect(answer.candidates[0]).toMatchObject({ value: "9", type: "count" });
    // The customer's id (5) and region id (3) are keys, not answers.
    expect(answer.candidates.map((c) => c.value)).not.toContain("5");
    expect(answer.confidence).toBeGreaterThanOrEqual(0.5);
  });

  it("picks the column the question asks about and keeps its unit ('60 days')", () => {
    const q = "What is the return window for tents?";
    const { answer } = answerQuestion({
      intent: intent(q, {
        wh: "what",
        answerTypes: ["number"],
        relation: "return window",
        entities: [mention(q, "tents", [link("Tents", KB.docs, "returns-policy#table-0.Category=Tents", "value")])],
      }),
      evidence: ev([tentsReturnRow, 6.2], [returns, 4.1]),
    });
    expect(answer.text).toBe("60 days");
    expect(answer.citations).toEqual([tentsReturnRow.id]);
    // The warranty column (5 years) does not match the relation and is not a candidate from this row.
    expect(answer.candidates.find((c) => c.value.startsWith("5"))).toBeUndefined();
  });

  it("counts distinct matching entities when rows list them without a COUNT, and explains it", () => {
    const q = "How many customers are in Sweden?";
    const query =
      "SELECT c.customer_id, c.name, c.city, r.country FROM customers c JOIN regions r ON r.region_id = c.region_id WHERE r.country = 'Sweden'";
    const rows = [
      sqlRow(KB.sales, "customers", ["customer_id", "name", "city", "country"], [1, "Fjällklubben Uppsala", "Uppsala", "Sweden"], query, {
        key: { customer_id: 1 },
      }),
      sqlRow(KB.sales, "customers", ["customer_id", "name", "city", "country"], [2, "Nordic Trails AB", "Gothenburg", "Sweden"], query, {
        key: { customer_id: 2 },
      }),
      // The same customer again (found by a second join path): counted once.
      sqlRow(KB.sales, "customers", ["customer_id", "name", "city", "country"], [2, "Nordic Trails AB", "Gothenburg", "Sweden"], query, {
        key: { customer_id: 2 },
      }),
    ];
    const { answer, notes } = answerQuestion({
      intent: intent(q, {
        wh: "how many",
        answerTypes: ["count"],
        aggregate: "count",
        entities: [mention(q, "Sweden", [link("Sweden", KB.sales, "regions.country=Sweden", "value")])],
      }),
      evidence: ev([rows[0], 5], [rows[1], 4.8], [rows[2], 4.8]),
    });
    expect(answer.text).toBe("2");
    expect(answer.candidates[0]).toMatchObject({ value: "2", type: "count" });
    expect(answer.citations).toEqual(expect.arrayContaining([rows[0].id, rows[1].id]));
    expect(notes.join(" ")).toMatch(/Counted 2 distinct 'customers' rows among 3 matching rows from Aurora sales database/);
  });

  it("answers a list question with the values of the winner's column, joined", () => {
    const q = "Which products are in the Tents category?";
    const query = "SELECT name, category, list_price FROM products WHERE category = 'Tents'";
    const summit = sqlRow(KB.sales, "products", ["name", "category", "list_price"], ["Summit 2 Tent", "Tents", 349], query, { row: 0 });
    const basecamp = sqlRow(KB.sales, "products", ["name", "category", "list_price"], ["Basecamp 4 Tent", "Tents", 529], query, { row: 1 });
    const { answer } = answerQuestion({
      intent: intent(q, {
        wh: "which",
        answerTypes: ["list", "entity"],
        entities: [mention(q, "Tents", [link("Tents", KB.sales, "products.category=Tents", "value")])],
        relation: "category",
      }),
      evidence: ev([summit, 6], [basecamp, 5.9], [tentsReturnRow, 3]),
    });
    expect(answer.text).toBe("Summit 2 Tent and Basecamp 4 Tent");
    expect(answer.citations).toEqual([summit.id, basecamp.id]);
    // A list is not an ambiguity: two tied values keep the confidence of one.
    expect(answer.confidence).toBeGreaterThan(0.5);
  });

  it("takes the extreme row of a superlative, whatever order the rows come in", () => {
    const q = "Which product has the highest list price?";
    const query = "SELECT name, list_price FROM products";
    const rows = [
      ["Summit 2 Tent", 349],
      ["Basecamp 4 Tent", 529],
      ["Arctic Sleeping Bag", 399],
    ].map(([n, p], i) => sqlRow(KB.sales, "products", ["name", "list_price"], [n, p], query, { row: i }));
    const { answer } = answerQuestion({
      intent: intent(q, {
        wh: "which",
        answerTypes: ["entity"],
        relation: "list price",
        superlative: { direction: "max", attribute: "price", limit: 1 },
      }),
      evidence: ev([rows[0], 5], [rows[1], 5], [rows[2], 5]),
    });
    expect(answer.text).toBe("Basecamp 4 Tent");
    expect(answer.citations).toEqual([rows[1].id]);
  });
});

describe("answer: triples", () => {
  it("answers 'who' with the subject when the question's entity is the object", () => {
    const q = "Who is the chief executive of Aurora Outfitters?";
    const { answer } = answerQuestion({
      intent: intent(q, {
        wh: "who",
        answerTypes: ["person"],
        relation: "chief executive",
        entities: [mention(q, "Aurora Outfitters", [auroraLink])],
      }),
      evidence: ev([ceoTriple, 8], [otherCeoTriple, 6], [locatedTriple, 5], [foundedTriple, 4]),
    });
    expect(answer.text).toBe("Maria Lindqvist");
    expect(answer.citations[0]).toBe(ceoTriple.id);
    expect(answer.candidates[0].type).toBe("person");
    // Anke Vogel heads another company: a weaker candidate, not the answer.
    const anke = answer.candidates.find((c) => c.value === "Anke Vogel");
    expect(anke?.score ?? 0).toBeLessThan(answer.candidates[0].score);
  });

  it("answers with the object when the entity is the subject (location, date from xsd:gYear)", () => {
    const whereQ = "Where is Aurora Outfitters located?";
    const where = answerQuestion({
      intent: intent(whereQ, {
        wh: "where",
        answerTypes: ["location"],
        relation: "located",
        entities: [mention(whereQ, "Aurora Outfitters", [auroraLink])],
      }),
      evidence: ev([locatedTriple, 7], [foundedTriple, 6], [ceoTriple, 5]),
    }).answer;
    expect(where.text).toBe("Stockholm");
    expect(where.candidates[0].type).toBe("location");

    const whenQ = "When was Aurora Outfitters founded?";
    const when = answerQuestion({
      intent: intent(whenQ, {
        wh: "when",
        answerTypes: ["date"],
        relation: "founded",
        entities: [mention(whenQ, "Aurora Outfitters", [auroraLink])],
      }),
      evidence: ev([locatedTriple, 7], [foundedTriple, 6.5], [ceoTriple, 5]),
    }).answer;
    expect(when.text).toBe("2004");
    expect(when.candidates[0].type).toBe("date");
    expect(when.citations).toEqual([foundedTriple.id]);
  });

  it("accepts any non-numeric value for the 'entity' type", () => {
    const q = "What category is the Summit 2 Tent in?";
    const summit = iri("summit-2", "Summit 2 Tent");
    const inCategory = triple(KB.products, summit, iri("inCategory", "in category"), iri("tents", "Tents"), "DESCRIBE ex:summit-2");
    const weight = triple(KB.products, summit, iri("weightGrams", "weight in grams"), literal("2100", "integer"), "DESCRIBE ex:summit-2");
    const { answer } = answerQuestion({
      intent: intent(q, {
        wh: "what",
        answerTypes: ["entity"],
        relation: "category",
        entities: [mention(q, "Summit 2 Tent", [link("Summit 2 Tent", KB.products, `${EX}summit-2`)])],
      }),
      evidence: ev([weight, 6], [inCategory, 6]),
    });
    expect(answer.text).toBe("Tents");
  });
});

describe("answer: graph paths", () => {
  const hanks = node("n1", "Person", "Tom Hanks", { born: 1956 });
  const apollo = node("n2", "Movie", "Apollo 13", { released: 1995 });
  const castAway = node("n3", "Movie", "Cast Away", { released: 2000 });
  const polar = node("n4", "Movie", "The Polar Express", { released: 2004 });
  const howard = node("n5", "Person", "Ron Howard", { born: 1954 });
  const q1 = "MATCH p=(a:Person {name: $name})-[:ACTED_IN]->(m:Movie) RETURN p";
  const acted = (m: typeof apollo, role: string) => path(KB.movies, [hanks, m], [edge("n1", m.id, "ACTED_IN", { roles: [role] })], q1);
  const directed = path(
    KB.movies,
    [howard, apollo],
    [edge("n5", "n2", "DIRECTED")],
    "MATCH p=(m:Movie {title: $title})<-[:DIRECTED]-(d) RETURN p",
  );
  const hanksLink = link("Tom Hanks", KB.movies, "n1", "node");

  it("lists the end nodes of the asked relationship", () => {
    const q = "Which movies did Tom Hanks act in?";
    const { answer } = answerQuestion({
      intent: intent(q, {
        wh: "which",
        answerTypes: ["list", "entity"],
        relation: "act in",
        entities: [mention(q, "Tom Hanks", [hanksLink])],
      }),
      evidence: ev([acted(apollo, "Jim Lovell"), 5], [acted(castAway, "Chuck Noland"), 5], [acted(polar, "Conductor"), 4.9]),
    });
    expect(answer.text).toBe("Apollo 13, Cast Away and The Polar Express");
    expect(answer.citations).toHaveLength(3);
  });

  it("reads a relationship property named by the question (roles)", () => {
    const q = "What role did Tom Hanks play in Apollo 13?";
    const { answer } = answerQuestion({
      intent: intent(q, {
        wh: "what",
        answerTypes: ["entity"],
        relation: "role",
        entities: [mention(q, "Tom Hanks", [hanksLink]), mention(q, "Apollo 13", [link("Apollo 13", KB.movies, "n2", "node")])],
      }),
      evidence: ev([acted(apollo, "Jim Lovell"), 6], [directed, 4]),
    });
    expect(answer.text).toBe("Jim Lovell");
  });

  it("follows a two-hop path to the node that is not a question entity", () => {
    const q = "Who directed the movie Tom Hanks played Jim Lovell in?";
    const twoHop = path(
      KB.movies,
      [hanks, apollo, howard],
      [edge("n1", "n2", "ACTED_IN", { roles: ["Jim Lovell"] }), edge("n5", "n2", "DIRECTED")],
      "MATCH p=(a {name:$name})-[:ACTED_IN]->()<-[:DIRECTED]-() RETURN p",
    );
    const { answer } = answerQuestion({
      intent: intent(q, {
        wh: "who",
        answerTypes: ["person"],
        relation: "directed",
        entities: [mention(q, "Tom Hanks", [hanksLink]), mention(q, "Jim Lovell")],
      }),
      evidence: ev([twoHop, 5]),
    });
    expect(answer.text).toBe("Ron Howard");
    expect(answer.candidates[0].type).toBe("person");
  });
});

describe("answer: passages", () => {
  it("answers 'when' from the sentence with the most question terms (a year after 'in')", () => {
    const q = "When did Maria Lindqvist join the company?";
    const { answer } = answerQuestion({
      intent: intent(q, {
        wh: "when",
        answerTypes: ["date"],
        relation: "join",
        entities: [mention(q, "Maria Lindqvist", [link("Maria Lindqvist", KB.products, `${EX}maria-lindqvist`)])],
      }),
      evidence: ev([letter, 7], [regionText, 3]),
    });
    expect(answer.text).toBe("2019");
    expect(answer.candidates[0].type).toBe("date");
    expect(answer.citations).toEqual([letter.id]);
  });

  it("finds money with its unit, and agreement with a table row from another KB raises confidence", () => {
    const q = "What was the revenue of Aurora Outfitters in 2025?";
    const it_ = intent(q, {
      wh: "what",
      answerTypes: ["money"],
      relation: "revenue",
      entities: [mention(q, "Aurora Outfitters", [link("Aurora Outfitters", KB.docs, ANNUAL.id, "document")])],
    });
    const financeRow = sqlRow(
      KB.finance,
      "annual_results",
      ["year", "revenue_eur_million"],
      [2025, 48.2],
      "SELECT year, revenue_eur_million FROM annual_results WHERE year = 2025",
      { key: { year: 2025 } },
    );
    const alone = answerQuestion({ intent: it_, evidence: ev([letter, 7]) }).answer;
    const agreed = answerQuestion({ intent: it_, evidence: ev([letter, 7], [financeRow, 6.5]) }).answer;
    expect(alone.text).toBe("48.2 million euros");
    expect(agreed.text).toBe("48.2 million euros");
    expect(agreed.confidence).toBeGreaterThan(alone.confidence);
    expect(agreed.citations).toEqual([letter.id, financeRow.id]);
    // The year the question states is no answer.
    expect(agreed.candidates.find((c) => c.value === "2025")?.score ?? 0).toBeLessThan(0.1);
  });

  it("finds percentages for percent questions, and the same value in a table cell agrees", () => {
    const q = "By how much did revenue grow in 2025?";
    const { answer } = answerQuestion({
      intent: intent(q, { wh: "how much", answerTypes: ["percent"], relation: "grow" }),
      evidence: ev([letter, 6], [totalRow, 5.5]),
    });
    expect(answer.text).toMatch(/^12( percent|%)$/);
    expect(answer.candidates[0].support).toEqual(expect.arrayContaining([letter.id, totalRow.id]));
  });

  it("reads numbers with units and dates spelled out", () => {
    const q = "How many days does a refund take?";
    const refund = answerQuestion({
      intent: intent(q, { wh: "how many", answerTypes: ["count"], relation: "refund" }),
      evidence: ev([returns, 5]),
    }).answer;
    expect(refund.text).toBe("10 business days");

    const q2 = "When did the Munich store open?";
    const opened = answerQuestion({
      intent: intent(q2, {
        wh: "when",
        answerTypes: ["date"],
        relation: "open",
        entities: [mention(q2, "Munich", [link("Munich", KB.products, `${EX}munich`)])],
      }),
      evidence: ev([regionText, 5]),
    }).answer;
    expect(opened.text).toBe("April 2025");
  });

  it("offers the best sentence for open 'text' questions", () => {
    const q = "What does the outlook for 2026 say about stores?";
    const { answer } = answerQuestion({
      intent: intent(q, { wh: "what", answerTypes: ["text"], relation: "outlook" }),
      evidence: ev([outlook, 5], [letter, 2]),
    });
    expect(answer.text).toMatch(/^For 2026 we expect revenue growth/);
  });

  it("answers a reason question with the sentence that gives the reason, not the one restating the change", () => {
    const q = "What caused the increase in interest expense in 2019?";
    const note = passage(
      KB.docs,
      "interest-note",
      "Interest expense",
      null,
      [
        "Interest expense increased $147 million in 2019 compared to 2018.",
        "The increase in interest expense was driven by a higher average debt balance and higher interest rates.",
      ],
      0,
      "interest expense",
    );
    const table = docRow(
      KB.docs,
      "interest-note",
      "Interest expense",
      "",
      ["Item", "2019", "2018"],
      ["Interest expense", "1,344", "1,197"],
      0,
      "interest expense",
    );
    const { answer } = answerQuestion({
      intent: intent(q, { wh: "what", answerTypes: ["entity", "text"], relation: "cause" }),
      evidence: ev([table, 6], [note, 5]),
    });
    // A figure of the table, or the sentence that only restates the increase, is no reason.
    expect(answer.text).toMatch(/driven by a higher average debt balance/);
  });

  it("keeps a passage's figure when its sentence names more of the question than the table row that would replace it", () => {
    const q = "What was the hosting related costs in 2018?";
    const note = passage(
      KB.docs,
      "cost-note",
      "Cost of Revenue",
      null,
      [
        "Cloud infrastructure costs include $9.5 million of hosting related costs that were recorded in cost of services revenue in fiscal year 2018.",
      ],
      0,
      "hosting related costs",
    );
    const costs = docRow(
      KB.docs,
      "opex",
      "Operating costs (in thousands)",
      "",
      ["Years ended August 31,", "2019", "2018"],
      ["Customer related costs", "83,401", "68,744"],
      0,
      "hosting related costs",
    );
    const { answer } = answerQuestion({
      intent: intent(q, { wh: "what", answerTypes: ["money", "number"], relation: "hosting related costs" }),
      evidence: ev([note, 6], [costs, 5]),
    });
    expect(answer.text).toBe("$9.5 million");
    // The row does answer a question about itself.
    const own = answerQuestion({
      intent: intent("What was the customer related costs in 2018?", {
        wh: "what",
        answerTypes: ["money", "number"],
        relation: "customer related costs",
      }),
      evidence: ev([note, 6], [costs, 5]),
    });
    expect(own.answer.text).toBe("68,744 thousand");
  });

  it("answers a list-worded prose question with the sentence's own list, not other values of its document", () => {
    const q = "What do the tax fees comprise of?";
    const fees = passage(
      KB.docs,
      "fees",
      "Principal Accountant Fees and Services",
      null,
      [
        "Tax fees comprise fees for preparation of tax returns to the Company and the services performed by Deloitte in connection with Inter-Company matters.",
        "Audit fees in 2019 were paid to Deloitte for 2 engagements.",
      ],
      0,
      "tax fees",
    );
    const { answer } = answerQuestion({
      intent: intent(q, { wh: "what", answerTypes: ["entity", "text", "list"], relation: "comprise" }),
      evidence: ev([fees, 5]),
    });
    expect(answer.text).toBe(
      "for preparation of tax returns to the Company and the services performed by Deloitte in connection with Inter-Company matters",
    );
  });

  it("does not answer with the question's own entity", () => {
    const q = "Who is the chief executive officer of Aurora Outfitters?";
    const leadership = passage(
      KB.docs,
      "governance",
      "Corporate Governance",
      "Management",
      ["Maria Lindqvist has been chief executive officer of Aurora Outfitters since 2019."],
      0,
      "chief executive officer",
    );
    const { answer } = answerQuestion({
      intent: intent(q, {
        wh: "who",
        answerTypes: ["person"],
        relation: "chief executive officer",
        entities: [mention(q, "Aurora Outfitters", [link("Aurora Outfitters", KB.docs, ANNUAL.id, "document")])],
      }),
      evidence: ev([leadership, 5]),
    });
    expect(answer.text).toBe("Maria Lindqvist");
    const self = answer.candidates.find((c) => c.value === "Aurora Outfitters");
    expect(self).toBeDefined();
    expect(self!.score).toBeLessThan(answer.candidates[0].score / 5);
  });
});

describe("answer: refusals", () => {
  const q = "How many stores does Aurora Outfitters operate?";
  const storesIntent = intent(q, {
    wh: "how many",
    answerTypes: ["count"],
    aggregate: "count",
    relation: "stores",
    entities: [mention(q, "Aurora Outfitters", [auroraLink])],
  });

  it("refrains when there is no evidence", () => {
    const { answer } = answerQuestion({ intent: storesIntent, evidence: [] });
    expect(answer).toMatchObject({ refrained: true, text: REFUSAL_TEXT, confidence: 0, citations: [] });
    expect(answer.reason).toMatch(/^No evidence was found about 'Aurora Outfitters'; try other knowledge bases/);
  });

  it("refrains when an unlinked question entity appears in no evidence", () => {
    const q2 = "What is the return window for the Quantum Flux Capacitor?";
    const { answer } = answerQuestion({
      intent: intent(q2, {
        wh: "what",
        answerTypes: ["number"],
        relation: "return window",
        entities: [mention(q2, "Quantum Flux Capacitor")],
      }),
      evidence: ev([tentsReturnRow, 5], [returns, 4]),
    });
    expect(answer.refrained).toBe(true);
    expect(answer.reason).toBe("None of the sources found mentions 'Quantum Flux Capacitor'.");
  });

  it("does not refrain for an unlinked entity that the evidence does mention", () => {
    const q2 = "What is the return window for Tents?";
    const { answer } = answerQuestion({
      intent: intent(q2, { wh: "what", answerTypes: ["number"], relation: "return window", entities: [mention(q2, "Tents")] }),
      evidence: ev([tentsReturnRow, 5]),
    });
    expect(answer.refrained).toBe(false);
  });

  it("refrains when the sources disagree, naming both values and sources", () => {
    const salesRow = sqlRow(KB.sales, "Query result", ["store_count"], [12], "SELECT COUNT(*) AS store_count FROM stores");
    const report = passage(
      KB.docs,
      ANNUAL.id,
      ANNUAL.title,
      "Stores",
      ["Aurora Outfitters operates 15 stores across Europe."],
      5,
      "stores",
    );
    const { answer } = answerQuestion({ intent: storesIntent, evidence: ev([salesRow, 5], [report, 5]) });
    expect(answer.refrained).toBe(true);
    expect(answer.reason).toMatch(
      /^The sources disagree: (12 \(Aurora sales database\) vs 15 stores \(Aurora documents\)|15 stores \(Aurora documents\) vs 12 \(Aurora sales database\))\. Check which source is current\.$/,
    );
    expect(
      answer.candidates
        .slice(0, 2)
        .map((c) => c.value)
        .sort(),
    ).toEqual(["12", "15 stores"]);
  });

  it("answers a per-key table's column key by key when the question names no key", () => {
    const q2 = "What is the hotel cap per night?";
    const query = "hotel cap per night";
    const cities = [
      ["Stockholm", 190],
      ["Oslo", 210],
    ].map(([city, cap], i) =>
      docRow(
        KB.docs,
        "travel",
        "Hotels and daily allowances",
        "Hotels and daily allowances",
        ["City", "Hotel cap per night (EUR)", "Per diem (EUR)"],
        [city, cap, 60 + i],
        i,
        query,
      ),
    );
    const { answer } = answerQuestion({
      intent: intent(q2, { wh: "what", answerTypes: ["money"], relation: "hotel cap" }),
      evidence: ev([cities[0], 5], [cities[1], 5]),
    });
    expect(answer.refrained).toBe(false);
    expect(answer.text).toBe("Stockholm: 190 EUR and Oslo: 210 EUR");
    expect(answer.citations).toEqual(cities.map((c) => c.id));
  });

  it("refrains when the only value found does not fit the question, saying what was looked for without scores", () => {
    const q2 = "When was Aurora Outfitters founded?";
    // Only a mismatching type is around: a location for a date question.
    const { answer } = answerQuestion({
      intent: intent(q2, {
        wh: "when",
        answerTypes: ["date"],
        relation: "founded",
        entities: [mention(q2, "Aurora Outfitters", [auroraLink])],
      }),
      evidence: ev([locatedTriple, 5]),
    });
    expect(answer.refrained).toBe(true);
    expect(answer.reason).toBe(
      "The sources found do not state a date that answers the question. The closest thing found, 'Stockholm', does not clearly answer it. Try naming the document, table or period you mean.",
    );
    expect(answer.reason).not.toMatch(/\d\.\d|threshold|score/);
    expect(answer.confidence).toBeLessThan(DEFAULT_PIPELINE_CONFIG.answerThreshold);
    expect(answer.candidates[0].value).toBe("Stockholm");
  });

  it("uses the threshold given in the input", () => {
    const q2 = "When was Aurora Outfitters founded?";
    const it_ = intent(q2, {
      wh: "when",
      answerTypes: ["date"],
      relation: "founded",
      entities: [mention(q2, "Aurora Outfitters", [auroraLink])],
    });
    const evidence = ev([foundedTriple, 5]);
    const certain = answerQuestion({ intent: it_, evidence }).answer;
    expect(certain).toMatchObject({ refrained: false, reason: null });
    expect(certain.certainty).toBeUndefined();
    // Below a stricter bar the same supported value is shown as uncertain, with its evidence, not refused.
    const uncertain = answerQuestion({ intent: it_, evidence, threshold: 0.99 }).answer;
    expect(uncertain).toMatchObject({ refrained: false, certainty: "uncertain", text: certain.text, citations: [foundedTriple.id] });
    expect(uncertain.reason).toBe(
      "Not certain — the closest answer in the sources is 2004 (Aurora Outfitters AB in Aurora product graph).",
    );
  });

  it("refrains when no evidence holds a usable value", () => {
    const q2 = "When did the Munich store open?";
    const unrelated = passage(
      KB.docs,
      "travel",
      "Travel and Expense Policy",
      null,
      ["Economy class is the default for all flights."],
      0,
      "munich",
    );
    const { answer } = answerQuestion({
      intent: intent(q2, {
        wh: "when",
        answerTypes: ["date"],
        relation: "open",
        entities: [mention(q2, "Munich", [link("Munich", KB.products, `${EX}munich`)])],
      }),
      evidence: ev([unrelated, 1]),
    });
    expect(answer.refrained).toBe(true);
    expect(answer.reason).toBe(
      "The sources found do not state a date that answers the question. Try naming the document, table or period you mean.",
    );
  });
});

describe("answer: confidence", () => {
  const q = "How many orders did Alpenweg GmbH place?";
  const it_ = intent(q, {
    wh: "how many",
    answerTypes: ["count"],
    aggregate: "count",
    entities: [mention(q, "Alpenweg GmbH", [link("Alpenweg GmbH", KB.sales, "customers.name=Alpenweg GmbH", "value")])],
  });
  const sql = "SELECT COUNT(*) FROM orders WHERE customer = 'Alpenweg GmbH'";
  const nine = sqlRow(KB.sales, "Query result", ["COUNT(*)"], [9], sql);
  const nineElsewhere = sqlRow(
    KB.finance,
    "Query result",
    ["order_count"],
    [9],
    "SELECT order_count FROM customer_stats WHERE name = 'Alpenweg GmbH'",
  );
  const eleven = sqlRow(
    KB.finance,
    "Query result",
    ["order_count"],
    [11],
    "SELECT order_count FROM customer_stats WHERE name = 'Alpenweg GmbH'",
  );

  it("orders clear > single > ambiguous, and stays within [0, 1]", () => {
    const agreed = answerQuestion({ intent: it_, evidence: ev([nine, 5], [nineElsewhere, 5]), threshold: 0 }).answer;
    const single = answerQuestion({ intent: it_, evidence: ev([nine, 5]), threshold: 0 }).answer;
    const ambiguous = answerQuestion({ intent: it_, evidence: ev([nine, 5], [eleven, 5]), threshold: 0 }).answer;
    expect(agreed.confidence).toBeGreaterThan(single.confidence);
    expect(single.confidence).toBeGreaterThan(ambiguous.confidence);
    for (const a of [agreed, single, ambiguous]) {
      expect(a.confidence).toBeGreaterThan(0);
      expect(a.confidence).toBeLessThanOrEqual(1);
    }
    // Two equally supported values halve the confidence.
    expect(ambiguous.confidence).toBeCloseTo(single.confidence / 2, 2);
  });

  it("weighs a value by the score of the evidence that supports it", () => {
    const strong = answerQuestion({ intent: it_, evidence: ev([nine, 10], [eleven, 2]), threshold: 0 }).answer;
    expect(strong.text).toBe("9");
    const reversed = answerQuestion({ intent: it_, evidence: ev([eleven, 10], [nine, 2]), threshold: 0 }).answer;
    expect(reversed.text).toBe("11");
  });

  it("cites at most five pieces, all supporting the answer, best first", () => {
    const rows = Array.from({ length: 8 }, (_, i) =>
      sqlRow({ id: `kb_${i}`, name: `Mirror ${i}` } as never, "Query result", ["COUNT(*)"], [9], `${sql} -- ${i}`),
    );
    const { answer } = answerQuestion({ intent: it_, evidence: [...rows.map((r, i) => scored(r, 10 - i)), scored(eleven, 1)] });
    expect(answer.citations).toEqual(rows.slice(0, 5).map((r) => r.id));
    expect(answer.citations).not.toContain(eleven.id);
    expect(answer.candidates.length).toBeLessThanOrEqual(5);
  });
});

describe("answer: building blocks", () => {
  it("types values from their form and their column", () => {
    expect(classifyValue(349, hintFromLabel("list_price"))).toBe("money");
    expect(classifyValue(2019, hintFromLabel("founded"))).toBe("date");
    expect(classifyValue("2024-03-05", null)).toBe("date");
    expect(classifyValue("12%", null)).toBe("percent");
    expect(classifyValue("€48.2 million", null)).toBe("money");
    expect(classifyValue("Oslo", hintFromLabel("city"))).toBe("location");
    expect(classifyValue(5, hintFromLabel("Warranty (years)"))).toBe("number");
    expect(classifyValue(7, hintFromLabel("COUNT(*)"))).toBe("count");
  });

  it("scores type fit: right type 1, contradiction low, entity accepts non-numeric", () => {
    expect(typeFit(["date"], "date", "2019")).toBe(1);
    expect(typeFit(["person"], "number", "12")).toBeLessThan(0.2);
    expect(typeFit(["count"], "number", "9")).toBe(1);
    expect(typeFit(["count"], "number", "9.5")).toBeLessThan(0.5);
    expect(typeFit(["entity"], "location", "Oslo")).toBe(1);
    expect(typeFit(["entity"], "number", "3")).toBeLessThan(0.5);
    expect(typeFit([], "number", "3")).toBe(typeFit([], "person", "Ann"));
  });

  it("keys the same value said differently alike", () => {
    expect(valueKey("48.2 million euros", "money")).toBe(valueKey("48.2", "number"));
    expect(valueKey("12 percent", "percent")).toBe(valueKey("12%", "percent"));
    expect(valueKey("1,200", "number")).toBe("n:1200");
    expect(valueKey("The Polar Express", "entity")).toBe(valueKey("polar express", "entity"));
    expect(valueKey("2019", "date")).not.toBe(valueKey("2019", "number"));
  });

  it("finds dates, money, percentages, numbers with units and names in a sentence", () => {
    const spans = sentenceSpans(
      "Revenue grew 12 percent to 48.2 million euros after the Munich store opened on 3 March 2024 with two stores in Trail Runner 2 colours.",
    );
    const byType = Object.fromEntries(spans.map((s) => [s.text, s.type]));
    expect(byType).toMatchObject({
      "12 percent": "percent",
      "48.2 million euros": "money",
      "3 March 2024": "date",
      "two stores": "number",
    });
    expect(spans.find((s) => s.text === "3 March 2024")?.iso).toBe("2024-03-03");
    expect(spans.map((s) => s.text)).toContain("Munich");
    expect(spans.map((s) => s.text)).toContain("Trail Runner 2");
    // Relative expressions are not dates of anything.
    expect(sentenceSpans("She joined after ten years abroad.").filter((s) => s.type === "date")).toEqual([]);
  });

  it("normalizes evidence scores to [0, 1], falling back to rank", () => {
    const p = letter;
    expect(normalizeEvidenceScores([scored(p, 8), scored(p, 4)])).toEqual([1, 0.5]);
    expect(normalizeEvidenceScores([scored(p, 0), scored(p, 0)])).toEqual([1, 0.5]);
    const negative = normalizeEvidenceScores([scored(p, -1), scored(p, -3)]);
    expect(negative[0]).toBe(1);
    expect(negative[1]).toBeGreaterThan(0);
  });

  it("joins lists as people write them", () => {
    expect(joinList(["A"])).toBe("A");
    expect(joinList(["A", "B"])).toBe("A and B");
    expect(joinList(["A", "B", "C"])).toBe("A, B and C");
  });

  it("collects question entity forms from the mention and its best link", () => {
    const q = "Who runs Aurora?";
    const focus = buildQuestionFocus(
      intent(q, {
        wh: "who",
        answerTypes: ["person"],
        entities: [mention(q, "Aurora", [auroraLink, link("Aurora Outfitters GmbH", KB.products, `${EX}aurora-de`)])],
      }),
    );
    expect(focus.entities[0].forms).toEqual(["Aurora", "Aurora Outfitters AB"]);
    expect(focus.entities[0].refs).toEqual([`${EX}aurora`]);
    expect(focus.asksForName).toBe(true);
  });
});

describe("classicalAnswer strategy", () => {
  function context(signal = new AbortController().signal): { ctx: StageContext; events: TraceEventInput[] } {
    const events: TraceEventInput[] = [];
    return { ctx: { signal, deadline: Date.now() + 10_000, trace: (e) => events.push(e) }, events };
  }

  it("runs, returns a schema-valid answer and traces the candidates", async () => {
    const q = "Who is the chief executive of Aurora Outfitters?";
    const { ctx, events } = context();
    const answer = await classicalAnswer.run(
      {
        intent: intent(q, {
          wh: "who",
          answerTypes: ["person"],
          relation: "chief executive",
          entities: [mention(q, "Aurora Outfitters", [auroraLink])],
        }),
        evidence: ev([ceoTriple, 3]),
      },
      ctx,
    );
    expect(classicalAnswer.name).toBe("classical");
    expect(answerSchema.safeParse(answer).success).toBe(true);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ stage: "answer", type: "INFO", strategy: "classical" });
    expect(events[0].summary).toContain("Maria Lindqvist");
  });

  it("stops when the run is cancelled", async () => {
    const controller = new AbortController();
    controller.abort();
    const { ctx } = context(controller.signal);
    await expect(classicalAnswer.run({ intent: intent("Who?"), evidence: [] }, ctx)).rejects.toBeInstanceOf(RunCancelledError);
  });
});
