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

/** What kind of question a business user asks: the report breaks the metrics down by it (tag "category:…"). */
export const DEMO_CATEGORIES = [
  "sales-lookup",
  "aggregate-per-group",
  "top-n-per-period",
  "empty-period",
  "no-match-filter",
  "policy",
  "annual-report",
  "product-graph",
  "out-of-scope",
  "follow-up",
] as const;
export type DemoCategory = (typeof DEMO_CATEGORIES)[number];

interface Spec {
  question: string;
  gold: EvalQuestion["gold"];
  kb: string | null;
  kind: EvalQuestion["kind"];
  category: DemoCategory;
  /** Document questions name the document that states the answer (its id in the collection: the file name as a slug). */
  document?: string;
  /** Asked in the conversation of this earlier question (its text), after it. */
  after?: string;
}

const REPORT = "annual-report-2025-md";
const TRAVEL = "travel-and-expense-policy-md";
const RETURNS = "returns-policy-html";

const answers = (...a: string[]): EvalQuestion["gold"] => ({ type: "answers", answers: a });
/** A list answer: its items, compared as a set (as a gold query's rows are). */
const list = (...items: string[]): EvalQuestion["gold"] => ({ type: "answers", answers: items, list: true });
const sql = (text: string): EvalQuestion["gold"] => ({ type: "query", language: "sql", text, target: { type: "kb", kbName: SQL } });
const none: EvalQuestion["gold"] = { type: "unanswerable" };
/** Nothing in the data matches what is asked: refraining, or an answer that says so (this one), is right. */
const nothing = (says: string): EvalQuestion["gold"] => ({ type: "unanswerable", nothingRecorded: says });

const doc = (category: DemoCategory, question: string, gold: EvalQuestion["gold"], document: string, after?: string): Spec => ({
  question,
  gold,
  kb: DOCS,
  kind: "DOCUMENTS",
  category,
  document,
  ...(after ? { after } : {}),
});
const db = (category: DemoCategory, question: string, gold: EvalQuestion["gold"], after?: string): Spec => ({
  question,
  gold,
  kb: SQL,
  kind: "SQL",
  category,
  ...(after ? { after } : {}),
});
const graph = (category: DemoCategory, question: string, gold: EvalQuestion["gold"], after?: string): Spec => ({
  question,
  gold,
  kb: RDF,
  kind: "SPARQL",
  category,
  ...(after ? { after } : {}),
});
const refuse = (category: DemoCategory, question: string): Spec => ({ question, gold: none, kb: null, kind: "UNKNOWN", category });

/** Order value: the sum of an order's lines (quantity × unit price); revenue likewise, over all orders. */
const LINES = "FROM orders o JOIN order_items oi ON oi.order_id = o.order_id";
const REVENUE = "SUM(oi.quantity * oi.unit_price)";

const SPECS: Spec[] = [
  // The first 28 keep their ids (demo:1–28) so reports before the suite was widened compare question by question.
  // Documents: passages and tables of the policies and the annual report.
  doc(
    "annual-report",
    "What percentage of products contained recycled or certified materials in 2025?",
    answers("68 percent", "68%"),
    REPORT,
  ),
  doc("policy", "What is the hotel cap per night in Oslo?", answers("210", "210 EUR"), TRAVEL),
  doc("policy", "What is the per diem in London?", answers("75", "75 EUR"), TRAVEL),
  doc("annual-report", "By how much did Aurora Outfitters' revenue grow in 2025?", answers("12 percent", "12%"), REPORT),
  doc(
    "annual-report",
    "What was the revenue of Central Europe in 2025?",
    answers("13.6", "13.6 million euros", "EUR 13.6 million"),
    REPORT,
  ),
  doc("policy", "Within how many days must expense claims be submitted?", answers("30", "30 days"), TRAVEL),
  doc("policy", "What is the return window for tents?", answers("60", "60 days"), RETURNS),
  doc("policy", "How many years of warranty do backpacks have?", answers("10", "10 years"), RETURNS),
  doc(
    "annual-report",
    "Which product was named product of the year by Outdoor Gear Review?",
    answers("Trail Runner 2", "The Trail Runner 2 shoe"),
    REPORT,
  ),
  doc("annual-report", "What was the operating margin in 2025?", answers("9.4 percent", "9.4%"), REPORT),
  doc("policy", "In which city is the returns warehouse?", answers("Jönköping"), RETURNS),
  // SQL: the sales database; gold = the gold SQL's result on the demo KB.
  db("sales-lookup", "How many orders were returned?", sql("SELECT count(*) FROM orders WHERE status = 'returned'")),
  db("sales-lookup", "How many orders were shipped?", sql("SELECT count(*) FROM orders WHERE status = 'shipped'")),
  db("sales-lookup", "How many customers are there?", sql("SELECT count(*) FROM customers")),
  db(
    "sales-lookup",
    "What is the list price of the Basecamp 4 Tent?",
    sql("SELECT list_price FROM products WHERE name = 'Basecamp 4 Tent'"),
  ),
  db("sales-lookup", "Which customers are located in Munich?", sql("SELECT name FROM customers WHERE city = 'Munich'")),
  db("sales-lookup", "How many products are in the Footwear category?", sql("SELECT count(*) FROM products WHERE category = 'Footwear'")),
  db("sales-lookup", "Which product has the highest list price?", sql("SELECT name FROM products ORDER BY list_price DESC LIMIT 1")),
  // RDF: the product and organisation graph.
  graph("product-graph", "Who is the chief executive of Aurora Outfitters GmbH?", answers("Anke Vogel")),
  graph("product-graph", "Who is the chief executive of Aurora Outfitters AB?", answers("Maria Lindqvist")),
  graph("product-graph", "Which company makes the Summit 2 Tent?", answers("Mekong Gear Works")),
  graph("product-graph", "What material is the Fjord Down Jacket made of?", answers("recycled down")),
  graph("product-graph", "Where is Fjelltex Textiles located?", answers("Oslo")),
  graph("product-graph", "When was Aurora Outfitters Norge AS founded?", answers("2012")),
  // Not in the sources: the right answer is to refrain.
  refuse("out-of-scope", "What is the warranty period of the Quantum Flux Capacitor?"),
  refuse("out-of-scope", "What was the revenue of the Asia region in 2025?"),
  refuse("out-of-scope", "How many employees does Aurora Outfitters have?"),
  refuse("out-of-scope", "Who won the 1998 FIFA World Cup?"),

  // Widened (issue 32): what a business user of Aurora Outfitters asks, by category, with gold read from the data.
  // Aggregates per group (sales database).
  db(
    "aggregate-per-group",
    "What is the average order value per customer segment?",
    sql(
      `SELECT c.segment, ${REVENUE} / COUNT(DISTINCT o.order_id) AS average_order_value ${LINES} JOIN customers c ON c.customer_id = o.customer_id GROUP BY c.segment`,
    ),
  ),
  db(
    "aggregate-per-group",
    "How many orders did each region place?",
    sql(
      "SELECT r.region, COUNT(*) AS orders FROM orders o JOIN customers c ON c.customer_id = o.customer_id JOIN regions r ON r.region_id = c.region_id GROUP BY r.region",
    ),
  ),
  db(
    "aggregate-per-group",
    "What is the total revenue per product category?",
    sql(`SELECT p.category, ${REVENUE} AS revenue ${LINES} JOIN products p ON p.product_id = oi.product_id GROUP BY p.category`),
  ),
  db("aggregate-per-group", "How many customers are in each segment?", sql("SELECT segment, COUNT(*) FROM customers GROUP BY segment")),
  db(
    "aggregate-per-group",
    "What is the average list price per product category?",
    sql("SELECT category, AVG(list_price) FROM products GROUP BY category"),
  ),
  db(
    "aggregate-per-group",
    "How many orders were placed per country?",
    sql(
      "SELECT r.country, COUNT(*) AS orders FROM orders o JOIN customers c ON c.customer_id = o.customer_id JOIN regions r ON r.region_id = c.region_id GROUP BY r.country",
    ),
  ),
  db(
    "aggregate-per-group",
    "How many orders were placed in each year?",
    sql("SELECT substr(order_date, 1, 4) AS year, COUNT(*) FROM orders GROUP BY year"),
  ),
  db(
    "aggregate-per-group",
    "How many units of each product were sold?",
    sql("SELECT p.name, SUM(oi.quantity) AS units FROM order_items oi JOIN products p ON p.product_id = oi.product_id GROUP BY p.name"),
  ),
  // Top-N per period: 2024 and 2025 hold 60 orders each.
  db(
    "top-n-per-period",
    "What was the highest-selling product in 2024?",
    sql(
      `SELECT p.name ${LINES} JOIN products p ON p.product_id = oi.product_id WHERE o.order_date LIKE '2024%' GROUP BY p.name ORDER BY ${REVENUE} DESC LIMIT 1`,
    ),
  ),
  db(
    "top-n-per-period",
    "Which product had the highest revenue in 2025?",
    sql(
      `SELECT p.name ${LINES} JOIN products p ON p.product_id = oi.product_id WHERE o.order_date LIKE '2025%' GROUP BY p.name ORDER BY ${REVENUE} DESC LIMIT 1`,
    ),
  ),
  db(
    "top-n-per-period",
    "Which product sold the most units in 2025?",
    sql(
      `SELECT p.name ${LINES} JOIN products p ON p.product_id = oi.product_id WHERE o.order_date LIKE '2025%' GROUP BY p.name ORDER BY SUM(oi.quantity) DESC LIMIT 1`,
    ),
  ),
  db(
    "top-n-per-period",
    "Who were the top 3 customers by revenue in 2025?",
    sql(
      `SELECT c.name ${LINES} JOIN customers c ON c.customer_id = o.customer_id WHERE o.order_date LIKE '2025%' GROUP BY c.name ORDER BY ${REVENUE} DESC LIMIT 3`,
    ),
  ),
  db(
    "top-n-per-period",
    "Which customer had the highest revenue in 2024?",
    sql(
      `SELECT c.name ${LINES} JOIN customers c ON c.customer_id = o.customer_id WHERE o.order_date LIKE '2024%' GROUP BY c.name ORDER BY ${REVENUE} DESC LIMIT 1`,
    ),
  ),
  db(
    "top-n-per-period",
    "Which month of 2025 had the highest revenue?",
    sql(
      `SELECT substr(o.order_date, 1, 7) AS month ${LINES} WHERE o.order_date LIKE '2025%' GROUP BY month ORDER BY ${REVENUE} DESC LIMIT 1`,
    ),
  ),
  db(
    "top-n-per-period",
    "What were the top 3 products by revenue in the last quarter of 2025?",
    sql(
      `SELECT p.name ${LINES} JOIN products p ON p.product_id = oi.product_id WHERE o.order_date BETWEEN '2025-10-01' AND '2025-12-31' GROUP BY p.name ORDER BY ${REVENUE} DESC LIMIT 3`,
    ),
  ),
  // Empty periods: the sales database holds orders of 2024 and 2025 only; the report, revenue of 2024 and 2025.
  db("empty-period", "Which product had the highest sales in 2023?", nothing("No sales are recorded for 2023.")),
  db("empty-period", "What was the total revenue in 2023?", nothing("No sales are recorded for 2023.")),
  db("empty-period", "Which customers placed orders in 2023?", nothing("No orders are recorded for 2023.")),
  db("empty-period", "What was the average order value in 2022?", nothing("No orders are recorded for 2022.")),
  db("empty-period", "Which month of 2026 had the most orders?", nothing("No orders are recorded for 2026.")),
  doc("empty-period", "What was the revenue of the Nordic region in 2023?", nothing("No revenue is reported for 2023."), REPORT),
  // Filters that match nothing: a count of zero, or no rows (then say so, or refrain).
  db("no-match-filter", "Which customers are located in Berlin?", nothing("No customers are located in Berlin.")),
  db(
    "no-match-filter",
    "How many returned orders did customers in Munich place?",
    sql(
      "SELECT COUNT(*) FROM orders o JOIN customers c ON c.customer_id = o.customer_id WHERE c.city = 'Munich' AND o.status = 'returned'",
    ),
  ),
  db("no-match-filter", "Which products are in the Kayaks category?", nothing("No products are in the Kayaks category.")),
  db("no-match-filter", "Which orders were cancelled?", nothing("No orders were cancelled.")),
  db(
    "no-match-filter",
    "How many customers are in the Wholesale segment?",
    sql("SELECT COUNT(*) FROM customers WHERE segment = 'Wholesale'"),
  ),
  db("no-match-filter", "Which customers in Norway are clubs?", nothing("No customers in Norway are clubs.")),
  db("no-match-filter", "Which products cost more than 1000 euros?", nothing("No products cost more than 1000 euros.")),
  // Policy questions: the travel and expense policy and the returns policy (no handbook: leave is not covered).
  doc("policy", "What is the hotel cap per night in Berlin?", answers("160", "160 EUR"), TRAVEL),
  doc("policy", "What is the per diem in a city that is not listed in the policy?", answers("50", "50 EUR"), TRAVEL),
  doc("policy", "How long is the return window for footwear?", answers("30", "30 days"), RETURNS),
  doc("policy", "How many years of warranty do sleeping bags have?", answers("3", "3 years"), RETURNS),
  doc("policy", "Which class may be booked for flights of six hours or longer?", answers("Business class", "business"), TRAVEL),
  doc("policy", "How many days before departure must travel be booked?", answers("14", "14 days"), TRAVEL),
  doc("policy", "Above which amount does an expense claim need the CFO's approval?", answers("2,000 EUR", "2000", "2,000"), TRAVEL),
  doc("policy", "Within how many business days are refunds paid after a return arrives?", answers("10", "10 business days"), RETURNS),
  refuse("policy", "How many vacation days do employees get per year?"),
  // The annual report.
  doc(
    "annual-report",
    "What revenue growth does Aurora Outfitters expect for 2026?",
    answers("between 8 and 10 percent", "8 to 10 percent", "8-10%"),
    REPORT,
  ),
  doc("annual-report", "Which region grew fastest in 2025?", answers("Central Europe"), REPORT),
  doc("annual-report", "What was the revenue of the Nordics in 2024?", answers("24.1", "24.1 million euros", "EUR 24.1 million"), REPORT),
  doc(
    "annual-report",
    "In which country does Aurora Outfitters plan to open stores in 2026?",
    answers("the Netherlands", "Netherlands"),
    REPORT,
  ),
  // The product graph.
  graph("product-graph", "How much does the Basecamp 4 Tent weigh?", answers("5100", "5100 grams", "5100 g", "5.1 kg")),
  graph(
    "product-graph",
    "Which products does Fjelltex Textiles make?",
    list("Fjord Down Jacket", "Storm Shell Jacket", "Arctic Sleeping Bag", "Summer Sleeping Bag"),
  ),
  graph("product-graph", "In which country is Sola Sport Manufacturing located?", answers("Portugal")),
  // Out of scope: no source holds it (there is no HR data).
  refuse("out-of-scope", "What is the average salary per department?"),
  refuse("out-of-scope", "What is Aurora Outfitters' share price?"),
  // Follow-ups: asked in the conversation of the question named, after it (a chain continues the same conversation).
  db("follow-up", "And in Berlin?", nothing("No customers are located in Berlin."), "Which customers are located in Munich?"),
  db("follow-up", "And in Vienna?", sql("SELECT name FROM customers WHERE city = 'Vienna'"), "And in Berlin?"),
  doc("follow-up", "And the per diem there?", answers("70", "70 EUR"), TRAVEL, "What is the hotel cap per night in Oslo?"),
  doc("follow-up", "And for jackets?", answers("30", "30 days"), RETURNS, "What is the return window for tents?"),
  db(
    "follow-up",
    "And in 2025?",
    sql(
      `SELECT p.name ${LINES} JOIN products p ON p.product_id = oi.product_id WHERE o.order_date LIKE '2025%' GROUP BY p.name ORDER BY ${REVENUE} DESC LIMIT 1`,
    ),
    "What was the highest-selling product in 2024?",
  ),
  db(
    "follow-up",
    "How many of those were placed in 2025?",
    sql("SELECT COUNT(*) FROM orders WHERE status = 'returned' AND order_date LIKE '2025%'"),
    "How many orders were returned?",
  ),
  db(
    "follow-up",
    "And per region?",
    sql(
      `SELECT r.region, ${REVENUE} / COUNT(DISTINCT o.order_id) AS average_order_value ${LINES} JOIN customers c ON c.customer_id = o.customer_id JOIN regions r ON r.region_id = c.region_id GROUP BY r.region`,
    ),
    "What is the average order value per customer segment?",
  ),
  graph("follow-up", "Where is that company located?", answers("Munich"), "Who is the chief executive of Aurora Outfitters GmbH?"),
];

export function demoQuestions(): EvalQuestion[] {
  const ids = new Map<string, string>();
  return SPECS.map(({ question, gold, kb, kind, category, document, after }, i) => {
    const id = `demo:${i + 1}`;
    // A follow-up names its earlier question by text; it must come earlier in the list (checked here, not at run time).
    const followUpOf = after === undefined ? undefined : ids.get(after);
    if (after !== undefined && !followUpOf)
      throw new Error(`demo suite: "${question}" follows up "${after}", which is not an earlier question`);
    if (!ids.has(question)) ids.set(question, id);
    return {
      id,
      suite: "demo",
      question,
      kind,
      goldKbNames: kb ? [kb] : [],
      gold,
      ...(document ? { evidence: { documentIds: [document] } } : {}),
      ordered: gold.type === "query" && /\border\s+by\b/i.test(gold.text) && !/\blimit\s+1\b/i.test(gold.text),
      tags: [gold.type === "unanswerable" ? "unanswerable" : `kb:${kind.toLowerCase()}`],
      category,
      ...(followUpOf ? { followUpOf } : {}),
    };
  });
}

export function demoSuite(): SuiteDefinition {
  return {
    key: "demo",
    label: "Demo workspace",
    description:
      "What a business user of the demo company asks, by category: policy and report documents (with the document that holds each answer), the sales database (lookups, aggregates per group, top-N per period, empty periods, filters that match nothing), the product graph, follow-ups in one conversation, and questions to refrain from.",
    questions: demoQuestions(),
    scope: (kb) => kb.origin === "demo",
  };
}
