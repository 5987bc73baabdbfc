import { DEMO_KB_NAMES } from "../../demo/seed-catalog";
import type { EvalQuestion, SuiteDefinition } from "../types";

/**
 * The demo workspace's own questions (lib/demo: Aurora Outfitters' policies and report, sales database
 * and product graph), with gold read from that content: SQL questions are judged by their gold SQL on
 * the demo sales KB (so they also get execution match), document and graph questions by the answers the
 * content states, and a few questions the sources cannot answer, where the right behaviour is to refrain.
 */

const DOCS = DEMO_KB_NAMES.documents;
const SQL = DEMO_KB_NAMES.sql;
const RDF = DEMO_KB_NAMES.sparql;

/** Document questions name the document that states the answer (its id in the collection: the file name as a slug). */
type Spec = [question: string, gold: EvalQuestion["gold"], kb: string | null, kind: EvalQuestion["kind"], document?: string];

const REPORT = "annual-report-2025-md";
const TRAVEL = "travel-and-expense-policy-md";
const RETURNS = "returns-policy-html";

const answers = (...a: string[]): EvalQuestion["gold"] => ({ type: "answers", answers: a });
const sql = (text: string): EvalQuestion["gold"] => ({ type: "query", language: "sql", text, target: { type: "kb", kbName: SQL } });
const none: EvalQuestion["gold"] = { type: "unanswerable" };

const SPECS: Spec[] = [
  // Documents: passages and tables of the policies and the annual report.
  [
    "What percentage of products contained recycled or certified materials in 2025?",
    answers("68 percent", "68%"),
    DOCS,
    "DOCUMENTS",
    REPORT,
  ],
  ["What is the hotel cap per night in Oslo?", answers("210", "210 EUR"), DOCS, "DOCUMENTS", TRAVEL],
  ["What is the per diem in London?", answers("75", "75 EUR"), DOCS, "DOCUMENTS", TRAVEL],
  ["By how much did Aurora Outfitters' revenue grow in 2025?", answers("12 percent", "12%"), DOCS, "DOCUMENTS", REPORT],
  ["What was the revenue of Central Europe in 2025?", answers("13.6", "13.6 million euros", "EUR 13.6 million"), DOCS, "DOCUMENTS", REPORT],
  ["Within how many days must expense claims be submitted?", answers("30", "30 days"), DOCS, "DOCUMENTS", TRAVEL],
  ["What is the return window for tents?", answers("60", "60 days"), DOCS, "DOCUMENTS", RETURNS],
  ["How many years of warranty do backpacks have?", answers("10", "10 years"), DOCS, "DOCUMENTS", RETURNS],
  [
    "Which product was named product of the year by Outdoor Gear Review?",
    answers("Trail Runner 2", "The Trail Runner 2 shoe"),
    DOCS,
    "DOCUMENTS",
    REPORT,
  ],
  ["What was the operating margin in 2025?", answers("9.4 percent", "9.4%"), DOCS, "DOCUMENTS", REPORT],
  ["In which city is the returns warehouse?", answers("Jönköping"), DOCS, "DOCUMENTS", RETURNS],
  // SQL: the sales database; gold = the gold SQL's result on the demo KB.
  ["How many orders were returned?", sql("SELECT count(*) FROM orders WHERE status = 'returned'"), SQL, "SQL"],
  ["How many orders were shipped?", sql("SELECT count(*) FROM orders WHERE status = 'shipped'"), SQL, "SQL"],
  ["How many customers are there?", sql("SELECT count(*) FROM customers"), SQL, "SQL"],
  ["What is the list price of the Basecamp 4 Tent?", sql("SELECT list_price FROM products WHERE name = 'Basecamp 4 Tent'"), SQL, "SQL"],
  ["Which customers are located in Munich?", sql("SELECT name FROM customers WHERE city = 'Munich'"), SQL, "SQL"],
  ["How many products are in the Footwear category?", sql("SELECT count(*) FROM products WHERE category = 'Footwear'"), SQL, "SQL"],
  ["Which product has the highest list price?", sql("SELECT name FROM products ORDER BY list_price DESC LIMIT 1"), SQL, "SQL"],
  // RDF: the product and organisation graph.
  ["Who is the chief executive of Aurora Outfitters GmbH?", answers("Anke Vogel"), RDF, "SPARQL"],
  ["Who is the chief executive of Aurora Outfitters AB?", answers("Maria Lindqvist"), RDF, "SPARQL"],
  ["Which company makes the Summit 2 Tent?", answers("Mekong Gear Works"), RDF, "SPARQL"],
  ["What material is the Fjord Down Jacket made of?", answers("recycled down"), RDF, "SPARQL"],
  ["Where is Fjelltex Textiles located?", answers("Oslo"), RDF, "SPARQL"],
  ["When was Aurora Outfitters Norge AS founded?", answers("2012"), RDF, "SPARQL"],
  // Not in the sources: the right answer is to refrain.
  ["What is the warranty period of the Quantum Flux Capacitor?", none, null, "UNKNOWN"],
  ["What was the revenue of the Asia region in 2025?", none, null, "UNKNOWN"],
  ["How many employees does Aurora Outfitters have?", none, null, "UNKNOWN"],
  ["Who won the 1998 FIFA World Cup?", none, null, "UNKNOWN"],
];

export function demoQuestions(): EvalQuestion[] {
  return SPECS.map(([question, gold, kb, kind, document], i) => ({
    id: `demo:${i + 1}`,
    suite: "demo",
    question,
    kind,
    goldKbNames: kb ? [kb] : [],
    gold,
    ...(document ? { evidence: { documentIds: [document] } } : {}),
    ordered: gold.type === "query" && /\border\s+by\b/i.test(gold.text) && !/\blimit\s+1\b/i.test(gold.text),
    tags: [gold.type === "unanswerable" ? "unanswerable" : `kb:${kind.toLowerCase()}`],
  }));
}

export function demoSuite(): SuiteDefinition {
  return {
    key: "demo",
    label: "Demo workspace",
    description:
      "The demo catalog's own questions: policy and report documents (with the document that holds each answer), the sales database, the product graph, and questions to refrain from.",
    questions: demoQuestions(),
    scope: (kb) => kb.origin === "demo",
  };
}
