import { describe, expect, it } from "vitest";
import { type EntityLookup, type LabelRow, inMemoryEntityLookup } from "@/lib/pipeline/entity-lookup";
import { RunCancelledError, type StageContext, type TraceEventInput } from "@/lib/pipeline/stage";
import {
  type UnderstandInput,
  classicalUnderstand,
  extractTimeCues,
  guessLanguage,
  understandQuestion,
} from "@/lib/pipeline/stages/understand/classical";
import { type Intent, intentSchema } from "@/lib/pipeline/contracts";

/** A small catalog of labels across four KBs, in the shapes the real backends index. */
const FIXTURE_LABELS: Omit<LabelRow, "normalized">[] = [
  // A property graph (movies, sports).
  { kbId: "graph", label: "Tom Hanks", kind: "node", ref: "4:p:1", sourceObject: "Person" },
  { kbId: "graph", label: "Tom Brady", kind: "node", ref: "4:p:2", sourceObject: "Person" },
  { kbId: "graph", label: "Meg Ryan", kind: "node", ref: "4:p:3", sourceObject: "Person" },
  { kbId: "graph", label: "Forrest Gump", kind: "node", ref: "4:m:1", sourceObject: "Movie" },
  { kbId: "graph", label: "New England Patriots", kind: "node", ref: "4:t:1", sourceObject: "Team" },
  { kbId: "graph", label: "acted in", kind: "predicate", ref: "ACTED_IN", sourceObject: "Person" },
  // A sales database.
  { kbId: "sales", label: "products", kind: "table", ref: "products", sourceObject: "products" },
  { kbId: "sales", label: "orders", kind: "table", ref: "orders", sourceObject: "orders" },
  { kbId: "sales", label: "list price", kind: "column", ref: "products.list_price", sourceObject: "products" },
  { kbId: "sales", label: "Summit 2 Tent", kind: "value", ref: "products.name=Summit 2 Tent", sourceObject: "products" },
  { kbId: "sales", label: "Trail Runner 2", kind: "value", ref: "products.name=Trail Runner 2", sourceObject: "products" },
  { kbId: "sales", label: "Tents", kind: "value", ref: "products.category=Tents", sourceObject: "products" },
  { kbId: "sales", label: "Nordics", kind: "value", ref: "regions.region=Nordics", sourceObject: "regions" },
  { kbId: "sales", label: "Central Europe", kind: "value", ref: "regions.region=Central Europe", sourceObject: "regions" },
  { kbId: "sales", label: "Sweden", kind: "value", ref: "regions.country=Sweden", sourceObject: "regions" },
  { kbId: "sales", label: "Germany", kind: "value", ref: "regions.country=Germany", sourceObject: "regions" },
  { kbId: "sales", label: "Munich", kind: "value", ref: "customers.city=Munich", sourceObject: "customers" },
  { kbId: "sales", label: "Stockholm Area Club", kind: "value", ref: "customers.name=Stockholm Area Club", sourceObject: "customers" },
  { kbId: "sales", label: "shipped", kind: "value", ref: "orders.status=shipped", sourceObject: "orders" },
  // A document collection.
  { kbId: "docs", label: "Trail Runner", kind: "label", ref: "annual-report", sourceObject: "collection" },
  { kbId: "docs", label: "Maria Lindqvist", kind: "label", ref: "annual-report", sourceObject: "collection" },
  {
    kbId: "docs",
    label: "Return window (days)",
    kind: "column",
    ref: "returns#table-1.Return window (days)",
    sourceObject: "returns#table-1",
  },
  { kbId: "docs", label: "Nordics", kind: "value", ref: "annual-report#table-1:row-0", sourceObject: "annual-report#table-1" },
  // An RDF graph.
  { kbId: "rdf", label: "Maria Lindqvist", kind: "label", ref: "https://ex.org/maria", sourceObject: "https://ex.org/Person" },
  { kbId: "rdf", label: "Summit 2 Tent", kind: "label", ref: "https://ex.org/p-summit-2", sourceObject: "https://ex.org/Product" },
  { kbId: "rdf", label: "Stockholm", kind: "label", ref: "https://ex.org/stockholm", sourceObject: "https://ex.org/City" },
  { kbId: "rdf", label: "Mekong Gear Works", kind: "label", ref: "https://ex.org/mekong", sourceObject: "https://ex.org/Organisation" },
  { kbId: "rdf", label: "made by", kind: "predicate", ref: "https://ex.org/madeBy", sourceObject: "https://ex.org/Product" },
  // A KB the user may not use.
  { kbId: "secret", label: "Tom Hanks", kind: "node", ref: "x", sourceObject: "Person" },
];

const KBS = ["graph", "sales", "docs", "rdf"];
const NOW = new Date("2025-06-15T12:00:00Z");

const lookup = inMemoryEntityLookup(FIXTURE_LABELS);

async function understand(
  question: string,
  history: { question: string; intent: Intent }[] = [],
  extra: Partial<UnderstandInput> = {},
): Promise<Intent> {
  const { intent } = await understandQuestion({ question, history, kbIds: KBS, lookup, now: NOW, ...extra });
  // Every intent satisfies the pipeline contract.
  expect(intentSchema.parse(intent)).toEqual(intent);
  return intent;
}

/** Runs a conversation turn by turn; returns every turn's intent. */
async function converse(...questions: string[]): Promise<Intent[]> {
  const history: { question: string; intent: Intent }[] = [];
  for (const question of questions) history.push({ question, intent: await understand(question, [...history]) });
  return history.map((t) => t.intent);
}

const mention = (intent: Intent, text: string) => intent.entities.find((e) => e.mention === text);
const cue = (question: string) => extractTimeCues(question, NOW).cues;

describe("answer types from the question form", () => {
  it.each([
    ["Who directed Forrest Gump?", "who", ["person", "organisation"]],
    ["When was Forrest Gump released?", "when", ["date"]],
    ["What year did Tom Hanks win his first Oscar?", "what", ["date"]],
    ["In which year was Mekong Gear Works founded?", "which", ["date"]],
    ["How many movies did Tom Hanks act in?", "how many", ["count"]],
    ["How much does the Summit 2 Tent cost?", "how much", ["money", "number"]],
    ["What is the list price of the Summit 2 Tent?", "what", ["money", "number"]],
    ["Where is Mekong Gear Works located?", "where", ["location"]],
    ["Which city hosts the Nordics sales meeting?", "which", ["location", "entity"]],
    ["Which company makes the Summit 2 Tent?", "which", ["organisation", "entity"]],
    ["Is the Summit 2 Tent waterproof?", "is", ["boolean"]],
    ["Does Tom Hanks have an Oscar?", "does", ["boolean"]],
    ["What percentage of orders were shipped?", "what", ["percent", "number"]],
    ["Why was the order returned?", "why", ["text"]],
    ["How old is Tom Hanks?", "how old", ["number"]],
  ])("%s → %s %j", async (question, wh, types) => {
    const intent = await understand(question);
    expect(intent.wh).toBe(wh);
    expect(intent.answerTypes).toEqual(types);
  });

  it("asks for a list for plural which-questions and list requests, not for counts", async () => {
    expect((await understand("Which teams did Tom Brady play for?")).answerTypes).toEqual(["organisation", "entity", "list"]);
    const request = await understand("List all products in the Tents category");
    expect(request.wh).toBeNull();
    expect(request.answerTypes).toContain("list");
    expect((await understand("Name all movies with Meg Ryan")).answerTypes).toContain("list");
    expect((await understand("How many products are there?")).answerTypes).toEqual(["count"]);
  });

  it("reads keyword questions by their type nouns", async () => {
    const intent = await understand("Summit 2 Tent price");
    expect(intent.wh).toBeNull();
    expect(intent.answerTypes).toEqual(["money", "number"]);
    expect(mention(intent, "Summit 2 Tent")).toBeDefined();
  });

  it("reads no answer type or aggregate into a statement: its nouns are what it is about, not what it asks", async () => {
    const claim = await understand("The number of unfertilized oocytes in older hermaphrodites increases with age.");
    expect(claim.wh).toBeNull();
    expect(claim.answerTypes).toEqual(["entity", "text"]);
    expect(claim.aggregate).toBeNull();
    expect((await understand("British female students are bullied more than male students.")).answerTypes).toEqual(["entity", "text"]);
    // Keywords without a sentence's verb and full stop still say what they want, and a question mark makes a question.
    expect((await understand("Summit 2 Tent price.")).answerTypes).toEqual(["money", "number"]);
    expect((await understand("employees hired in 2019")).answerTypes).toEqual(["person"]);
    expect((await understand("The number of tents sold in 2025?")).aggregate).toBe("count");
  });
});

describe("relation phrase", () => {
  it.each([
    ["Which movies did Tom Hanks act in?", "act in"],
    ["Which teams did Tom Brady play for?", "play for"],
    ["Which products are made by Mekong Gear Works?", "made by"],
    ["What was the revenue of the Nordics in 2024?", "revenue"],
    ["What is the capital of Germany?", "capital"],
    ["What is the return window for Tents?", "return window"],
    ["How many orders were shipped from Munich?", "shipped from"],
    ["Who directed Forrest Gump?", "directed"],
  ])("%s → %s", async (question, relation) => {
    expect((await understand(question)).relation).toBe(relation);
  });
});

describe("aggregates and superlatives", () => {
  it.each([
    ["How many orders were shipped in 2024?", "count"],
    ["What is the number of customers in Sweden?", "count"],
    ["What is the total revenue of the Nordics?", "sum"],
    ["What is the sum of all order values?", "sum"],
    ["What is the average list price of Tents?", "avg"],
    ["What is the mean order value?", "avg"],
    ["What is the minimum list price?", "min"],
    ["What is the maximum list price?", "max"],
    ["What is the total number of orders?", "count"],
    ["Who directed Forrest Gump?", null],
  ])("%s → %s", async (question, aggregate) => {
    expect((await understand(question)).aggregate).toBe(aggregate);
  });

  it("finds the direction, attribute and limit of superlatives", async () => {
    expect((await understand("Which is the most expensive product?")).superlative).toEqual({
      direction: "max",
      attribute: "price",
      limit: 1,
    });
    expect((await understand("Which tent is the cheapest?")).superlative).toEqual({ direction: "min", attribute: "price", limit: 1 });
    expect((await understand("List the top 3 customers by revenue")).superlative).toEqual({
      direction: "max",
      attribute: "revenue",
      limit: 3,
    });
    expect((await understand("Which region had the highest revenue?")).superlative).toEqual({
      direction: "max",
      attribute: "revenue",
      limit: 1,
    });
    expect((await understand("Which 5 products have the lowest weight?")).superlative).toEqual({
      direction: "min",
      attribute: "weight",
      limit: 5,
    });
    expect((await understand("Which customers placed at least 3 orders?")).superlative).toBeNull();
    // "the first 3 … with the most …": the superlative lists 3.
    expect((await understand("List the first 3 categories with the most products.")).superlative).toMatchObject({
      direction: "max",
      limit: 3,
    });
    // "based on", "in terms of", "according to" say what a ranking is by, as "by" does.
    expect((await understand("List the top 5 suppliers based on the number of products they supply.")).superlative).toEqual({
      direction: "max",
      attribute: "products",
      limit: 5,
    });
    expect((await understand("Show the top 3 customers in terms of revenue.")).superlative).toEqual({
      direction: "max",
      attribute: "revenue",
      limit: 3,
    });
    expect((await understand("Which are the top 2 regions according to revenue?")).superlative).toEqual({
      direction: "max",
      attribute: "revenue",
      limit: 2,
    });
  });

  it("makes a superlative the aggregate only when the value itself is asked for", async () => {
    const value = await understand("What is the highest list price?");
    expect(value.aggregate).toBe("max");
    expect(value.superlative).toMatchObject({ direction: "max", attribute: "list price" });
    const thing = await understand("Which product has the highest list price?");
    expect(thing.aggregate).toBeNull();
    expect(thing.superlative).toMatchObject({ direction: "max" });
  });
});

describe("time cues", () => {
  it("resolves years with comparators", () => {
    expect(cue("Movies released before 2010")).toEqual([
      { text: "before 2010", kind: "absolute", start: null, end: "2010-01-01", comparator: "before", ordinal: null },
    ]);
    expect(cue("Revenue in 2024")).toEqual([
      { text: "in 2024", kind: "absolute", start: "2024-01-01", end: "2025-01-01", comparator: "in", ordinal: null },
    ]);
    expect(cue("Products launched after 2015")[0]).toMatchObject({ comparator: "after", start: "2016-01-01", end: null });
    expect(cue("Orders since 2020")[0]).toMatchObject({ comparator: "since", start: "2020-01-01", end: null });
    expect(cue("Orders until 2021")[0]).toMatchObject({ comparator: "until", start: null, end: "2022-01-01" });
  });

  it("resolves relative cues against now", () => {
    expect(cue("How many orders last year?")[0]).toMatchObject({
      text: "last year",
      kind: "relative",
      start: "2024-01-01",
      end: "2025-01-01",
    });
    expect(cue("Orders shipped last month")[0]).toMatchObject({ kind: "relative", start: "2025-05-01", end: "2025-06-01" });
    expect(cue("Revenue this year")[0]).toMatchObject({ start: "2025-01-01", end: "2026-01-01" });
    expect(cue("Sales in the last 3 months")[0]).toMatchObject({ kind: "relative", start: "2025-03-15", end: "2025-06-16" });
    // A different `now` moves the period.
    expect(extractTimeCues("last year", new Date("2030-02-01T00:00:00Z")).cues[0]).toMatchObject({
      start: "2029-01-01",
      end: "2030-01-01",
    });
  });

  it("reads ranges, months, quarters and decades", () => {
    expect(cue("Orders between 2019 and 2021")[0]).toMatchObject({
      kind: "range",
      comparator: "between",
      start: "2019-01-01",
      end: "2022-01-01",
    });
    expect(cue("Orders from 2019 to 2021")[0]).toMatchObject({ kind: "range", start: "2019-01-01", end: "2022-01-01" });
    expect(cue("Revenue in March 2025")[0]).toMatchObject({ kind: "absolute", start: "2025-03-01", end: "2025-04-01", comparator: "in" });
    expect(cue("Revenue in Q2 2024")[0]).toMatchObject({ start: "2024-04-01", end: "2024-07-01" });
    // The last part of a named year is its fourth quarter or second half; without a year, "last quarter" is no cue of a year's part.
    expect(cue("Top products in the last quarter of 2025")).toMatchObject([{ kind: "absolute", start: "2025-10-01", end: "2026-01-01" }]);
    expect(cue("Revenue in the final half of FY 2023")).toMatchObject([{ start: "2023-07-01", end: "2024-01-01" }]);
    expect(cue("Movies from the 1990s")[0]).toMatchObject({ start: "1990-01-01", end: "2000-01-01" });
    const both = cue("Orders in 2024 and 2025");
    expect(both.map((c) => [c.comparator, c.start])).toEqual([
      ["in", "2024-01-01"],
      ["in", "2025-01-01"],
    ]);
  });

  it("reads ordinals, but not field names or numbers inside names", () => {
    expect(cue("What was the first order?")[0]).toMatchObject({ kind: "ordinal", ordinal: 1, start: null, end: null });
    expect(cue("Who won the second match?")[0]).toMatchObject({ ordinal: 2 });
    expect(cue("Show the last order")[0]).toMatchObject({ ordinal: -1 });
    expect(cue("Show the latest orders")[0]).toMatchObject({ ordinal: -1 });
    expect(cue("When was the earliest order?")[0]).toMatchObject({ ordinal: 1 });
    expect(cue("What is the first name of the singer?")).toEqual([]);
    expect(cue("Price of the Summit 2 Tent and the top 3 customers")).toEqual([]);
    expect(cue("Orders of 2500 units")).toEqual([]);
  });
});

describe("entity mentions", () => {
  it("links the longest mention and drops mentions inside it", async () => {
    const intent = await understand("What is the list price of the Trail Runner 2?");
    const trail = mention(intent, "Trail Runner 2")!;
    expect(trail.span).toEqual([30, 44]);
    expect(trail.fromContext).toBe(false);
    expect(trail.links.slice(0, 1)).toMatchObject([{ score: 1 }]);
    // The documents only know "Trail Runner": a weaker link of the longer mention, not a mention of its own.
    const docs = trail.links.find((l) => l.kbId === "docs")!;
    expect(docs.label).toBe("Trail Runner");
    expect(docs.score).toBeLessThan(1);
    expect(mention(intent, "Trail Runner")).toBeUndefined();
    expect(mention(intent, "list price")!.links[0]).toMatchObject({ kind: "column", score: 1 });
  });

  it("ranks links best first, keeps ten and one more per further KB, and only from the allowed KBs", async () => {
    // Ten refs in one KB and one in each of 14 others: the ten best, then each other KB's best link, so every KB can filter on the value.
    const many: Omit<LabelRow, "normalized">[] = [
      ...Array.from({ length: 12 }, (_, i) => ({ kbId: "kb0", label: "Summit 2 Tent", kind: "value", ref: `r${i}`, sourceObject: null })),
      ...Array.from({ length: 14 }, (_, i) => ({
        kbId: `kb${i + 1}`,
        label: "Summit 2 Tent",
        kind: "value",
        ref: "r",
        sourceObject: null,
      })),
    ];
    const kbIds = [...new Set(many.map((r) => r.kbId))];
    const intent = (
      await understandQuestion({
        question: "Who makes the Summit 2 Tent?",
        history: [],
        kbIds,
        lookup: inMemoryEntityLookup(many),
        now: NOW,
      })
    ).intent;
    const links = mention(intent, "Summit 2 Tent")!.links;
    expect(links).toHaveLength(10 + 14);
    expect(new Set(links.map((l) => l.kbId)).size).toBe(15);
    const hanks = mention(await understand("Which movies did Tom Hanks act in?"), "Tom Hanks")!;
    expect(hanks.links.map((l) => l.kbId)).toEqual(["graph"]);
  });

  it("does not take numbers or years for entities", async () => {
    const intent = await understand("How many orders were shipped in 2024 with 3 items?");
    expect(intent.entities.map((e) => e.mention)).not.toContain("2024");
    expect(intent.entities.map((e) => e.mention)).not.toContain("3");
    expect(mention(intent, "orders")!.links[0]).toMatchObject({ kind: "table" });
  });

  it("keeps a name that links nowhere, so the pipeline can refrain", async () => {
    const intent = await understand("Who is the CEO of Globex Corporation?");
    expect(intent.entities).toEqual([{ mention: "Globex Corporation", span: [18, 36], links: [], fromContext: false }]);
  });

  it("links a surname and a plural to their labels, more weakly", async () => {
    const lindqvist = mention(await understand("What did Lindqvist say about the Nordics?"), "Lindqvist")!;
    expect(lindqvist.links.map((l) => l.label)).toContain("Maria Lindqvist");
    expect(lindqvist.links[0].score).toBeLessThan(1);
    const tents = mention(await understand("Show me the Summit 2 Tents"), "Summit 2 Tents")!;
    expect(tents.links[0]).toMatchObject({ label: "Summit 2 Tent", score: 0.9 });
  });

  it("takes quoted strings as mentions", async () => {
    const intent = await understand('Which documents mention "bivouac sack"?');
    expect(mention(intent, "bivouac sack")).toMatchObject({ links: [] });
  });

  it("finds locations from linked places, place names and prepositions", async () => {
    expect((await understand("How many orders came from customers in Munich and Germany?")).locations).toEqual(["Munich", "Germany"]);
    expect((await understand("Which orders did Stockholm Area Club place?")).locations).toEqual([]);
    expect((await understand("Which customers are based in Ruritania?")).locations).toEqual(["Ruritania"]);
    expect((await understand("What was the revenue of the Nordics?")).locations).toEqual(["Nordics"]);
  });

  it("keeps content words and their stems as keywords", async () => {
    const intent = await understand("How many orders were shipped from Munich?");
    expect(intent.keywords).toEqual(expect.arrayContaining(["orders", "order", "shipped", "ship", "munich"]));
    expect(intent.keywords).not.toContain("how");
    expect(intent.keywords).not.toContain("many");
  });
});

describe("conversation", () => {
  it("completes a pronoun from the previous turn", async () => {
    const [, next] = await converse("Who is Tom Brady?", "Which teams did he play for?");
    expect(next.completed).toBe("Which teams did Tom Brady play for?");
    expect(next.entities).toEqual([expect.objectContaining({ mention: "Tom Brady", span: null, fromContext: true })]);
    expect(next.relation).toBe("play for");
  });

  it("completes possessives and carries the entity across three turns", async () => {
    const [, second, third] = await converse("What is the list price of the Summit 2 Tent?", "Who makes it?", "What is its weight?");
    expect(second.completed).toBe("Who makes Summit 2 Tent?");
    expect(third.completed).toBe("What is Summit 2 Tent's weight?");
    expect(mention(third, "Summit 2 Tent")).toMatchObject({ fromContext: true, span: null });
    expect(mention(third, "Summit 2 Tent")!.links[0]).toMatchObject({ score: 1 });
  });

  it("completes an elliptic question with the earlier relation, entities and answer type", async () => {
    const [first, second, third] = await converse(
      "What was the revenue of the Nordics in 2025?",
      "And in 2024?",
      "What about Central Europe?",
    );
    expect(second.completed).toBe("What was the revenue of the Nordics in 2024?");
    expect(second.relation).toBe(first.relation);
    expect(second.answerTypes).toEqual(first.answerTypes);
    expect(second.time.map((c) => c.start)).toEqual(["2024-01-01"]);
    expect(mention(second, "Nordics")).toMatchObject({ fromContext: true, span: null });
    expect(third.completed).toBe("What was the revenue of the Central Europe in 2024?");
    expect(mention(third, "Central Europe")).toMatchObject({ fromContext: false });
    expect(mention(third, "Nordics")).toBeUndefined();
  });

  it("replaces the entity of the same kind in an ellipsis", async () => {
    const [, next] = await converse("How many orders came from Munich in Sweden?", "what about Germany?");
    expect(next.completed).toBe("How many orders came from Munich in Germany?");
    expect(next.aggregate).toBe("count");
    expect(mention(next, "Munich")).toMatchObject({ fromContext: true });
  });

  it("does not inherit anything into a new, self-contained question", async () => {
    const [, , fresh] = await converse("Who is Tom Brady?", "Which teams did he play for?", "Who directed Forrest Gump?");
    expect(fresh.completed).toBe("Who directed Forrest Gump?");
    expect(fresh.entities.every((e) => !e.fromContext)).toBe(true);
    expect(fresh.entities.map((e) => e.mention)).toEqual(["Forrest Gump"]);
    const [, relative] = await converse("Who is Tom Brady?", "Which products that are tents cost less than 100 euros?");
    expect(relative.completed).toBe("Which products that are tents cost less than 100 euros?");
    const [, own] = await converse("Who is Tom Brady?", "Did Tom Hanks win an Oscar before he turned 40?");
    expect(own.completed).toBe("Did Tom Hanks win an Oscar before he turned 40?");
    expect(own.entities.every((e) => !e.fromContext)).toBe(true);
  });

  it("leaves a pronoun alone without history", async () => {
    const intent = await understand("Which teams did he play for?");
    expect(intent.completed).toBe("Which teams did he play for?");
    expect(intent.entities.filter((e) => e.fromContext)).toEqual([]);
  });
});

describe("language and bad input", () => {
  it("flags questions in other languages and still produces an intent", async () => {
    expect(guessLanguage("What is the capital of Germany?")).toBe("en");
    expect(guessLanguage("Summit 2 Tent price")).toBe("en");
    expect(guessLanguage("Was ist die Hauptstadt von Deutschland?")).toBe("de");
    expect(guessLanguage("Quelle est la capitale de la France ?")).toBe("fr");
    expect(guessLanguage("Vilka produkter tillverkas av Mekong Gear Works?")).toBe("sv");
    expect(guessLanguage("東京の人口は何人ですか")).toBe("ja");
    const german = await understand("Wie viele Bestellungen gab es in Munich im Jahr 2024?");
    expect(german.language).toBe("de");
    expect(german.wh).toBeNull();
    expect(mention(german, "Munich")!.links.length).toBeGreaterThan(0);
    expect(german.time.map((c) => c.start)).toContain("2024-01-01");
  });

  it("bounds the work on a 10,000-character question", async () => {
    const sent: number[] = [];
    const counting: EntityLookup = {
      find: (mentions, kbIds, limit, options) => {
        sent.push(mentions.length);
        return lookup.find(mentions, kbIds, limit, options);
      },
    };
    const question = "Which products made by Mekong Gear Works were shipped to Munich in 2024 and what did Maria Lindqvist say? "
      .repeat(100)
      .slice(0, 10_000);
    const started = performance.now();
    const intent = await understand(question, [], { lookup: counting });
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(sent.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(800);
    expect(intent.entities.length).toBeLessThanOrEqual(24);
    expect(new Set(intent.entities.map((e) => e.mention)).size).toBe(intent.entities.length);
    expect(intent.keywords.length).toBeLessThanOrEqual(64);
    expect(mention(intent, "Mekong Gear Works")).toBeDefined();
  });

  it.each([
    ["an empty question", ""],
    ["blanks", "   "],
    ["punctuation only", "????"],
    ["control characters and emoji", "\u0000\u0001 ☃ 🙂"],
    ["a lone quote", "'"],
    ["one 10,000-letter word", "a".repeat(10_000)],
    ["SQL", "SELECT * FROM users; DROP TABLE x;--"],
    ["only question words", "who who what when"],
  ])("never throws on %s", async (_, question) => {
    const intent = await understand(question);
    expect(intent.question).toBe(question);
  });

  it("goes on without links when the lookup fails, and says so in the trace", async () => {
    const traces: TraceEventInput[] = [];
    const broken: EntityLookup = { find: () => Promise.reject(new Error("database is down")) };
    const ctx: StageContext = { signal: new AbortController().signal, deadline: Date.now() + 10_000, trace: (e) => traces.push(e) };
    const intent = await classicalUnderstand.run(
      { question: "Who directed Forrest Gump?", history: [], kbIds: KBS, lookup: broken, now: NOW },
      ctx,
    );
    expect(intent.entities).toEqual([expect.objectContaining({ mention: "Forrest Gump", links: [] })]);
    expect(traces.some((t) => t.type === "INFO" && t.summary.includes("database is down"))).toBe(true);
  });

  it("stops when the run is cancelled", async () => {
    const controller = new AbortController();
    controller.abort();
    const ctx: StageContext = { signal: controller.signal, deadline: Date.now() + 10_000, trace: () => undefined };
    await expect(
      classicalUnderstand.run({ question: "Who is Tom Hanks?", history: [], kbIds: KBS, lookup, now: NOW }, ctx),
    ).rejects.toBeInstanceOf(RunCancelledError);
  });
});
