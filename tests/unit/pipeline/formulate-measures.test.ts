import { describe, expect, it } from "vitest";
import { checkSqlSafety } from "@/lib/backends/sql";
import type { KbStructure } from "@/lib/backends/types";
import { annotateStructure, tableNotesSchema } from "@/lib/catalog/table-notes";
import { formulateSql, noAdjustments } from "@/lib/pipeline/stages/formulate/classical";
import { describeNotes, describeStructure } from "@/lib/pipeline/stages/formulate/llm";
import { withNotedSynonyms } from "@/lib/pipeline/stages/formulate/vocabulary";
import { columnKey } from "@/lib/pipeline/stages/formulate/sql/column-meaning";
import type { Intent } from "@/lib/pipeline/contracts";
import { candidate, intent, SHOP } from "./formulate-fixtures";

/**
 * Measures and synonyms from an analyst's notes on a table (lib/catalog/table-notes.ts), as SQL
 * formulation uses them: a measure named by the question is its own aggregate and ranks groups of
 * another table; a synonym names its column. Intents are written by hand.
 */

const ORDER_ITEMS = tableNotesSchema.parse({
  measures: [
    { name: "revenue", expression: "quantity * unit_price", synonyms: ["turnover"] },
    { name: "units sold", expression: "quantity" },
  ],
});
const CUSTOMERS = tableNotesSchema.parse({ columns: [{ name: "city", synonyms: ["town"] }] });
const NOTED = annotateStructure(SHOP, (t) => ({ order_items: ORDER_ITEMS, customers: CUSTOMERS })[t]).structure as Extract<
  KbStructure,
  { kind: "sql" }
>;
const shop = candidate("kb-shop", "SQL");

async function answerSql(i: Intent, structure = NOTED): Promise<string> {
  const taught = withNotedSynonyms(i, structure).intent;
  const { queries } = await formulateSql(taught, shop, structure, noAdjustments(), 1, 0);
  const text = queries[0]?.query.text ?? "";
  await checkSqlSafety(text, "sqlite");
  return text;
}

const REVENUE = 'SUM("order_items"."quantity" * "order_items"."unit_price")';

describe("an analyst's measure in SQL formulation", () => {
  it("ranks another table's rows by the measure's aggregate, reached through the joins between them", async () => {
    const text = await answerSql(
      intent("Which customer had the highest revenue?", { superlative: { direction: "max", attribute: "revenue", limit: 1 } }),
    );
    expect(text).toContain(`ORDER BY ${REVENUE} DESC`);
    expect(text).toMatch(/GROUP BY "customers"\."customer_id"/);
    expect(text).toMatch(/LIMIT 1$/);
    // Without the notes there is no revenue to rank by.
    expect(
      await answerSql(
        intent("Which customer had the highest revenue?", { superlative: { direction: "max", attribute: "revenue", limit: 1 } }),
        SHOP,
      ),
    ).not.toContain("SUM(");
  });

  it("is summed when named with no aggregate word of its own, per the group asked for", async () => {
    const text = await answerSql(intent("What is the revenue per product category?"));
    expect(text).toContain(`${REVENUE} AS "total revenue"`);
    expect(text).toContain('GROUP BY "products"."category"');
  });

  it("answers 'how many' of what it sums, and its words are not asked for again as a column", async () => {
    const text = await answerSql(intent("How many units of each product were sold?", { aggregate: "count" }));
    expect(text).toContain('SUM("order_items"."quantity") AS "total units sold"');
    expect(text).not.toContain("COUNT(");
    expect(text).not.toContain("unit_price");
    expect(text).toContain('GROUP BY "products"."product_id"');
  });

  it("is named by its synonyms as by its name", async () => {
    const text = await answerSql(
      intent("Which customer had the highest turnover?", { superlative: { direction: "max", attribute: "turnover", limit: 1 } }),
    );
    expect(text).toContain(`ORDER BY ${REVENUE} DESC`);
  });

  it("lets a column's synonym name the column", () => {
    const { intent: taught, named } = withNotedSynonyms(intent("Which customers are in each town?"), NOTED);
    expect(named).toEqual(['"town" → customers.city']);
    expect(taught.keywords).toContain("city");
    expect(withNotedSynonyms(intent("Which customers are in each region?"), NOTED).named).toEqual([]);
  });

  it("tells a language model how to write a measure, and never shows it as a column", () => {
    expect(describeNotes(NOTED)).toBe(
      [
        "Analysts' notes (a measure is no column: write its expression):",
        "  customers.city (also called town)",
        '  measure "revenue" (also called turnover) = SUM(order_items.quantity * order_items.unit_price)',
        '  measure "units sold" = SUM(order_items.quantity)',
      ].join("\n"),
    );
    expect(describeStructure(NOTED)).not.toContain("revenue");
    expect(describeNotes(SHOP)).toBe("");
  });
});

describe("a condition on an analyst's measure", () => {
  it("is a HAVING per answer row, not a WHERE on the measure's expression, and not also reported", async () => {
    const text = await answerSql(intent("Which products sold more than 100 units?", { wh: "which", answerTypes: ["entity", "list"] }));
    expect(text).toMatch(/GROUP BY "products"\."product_id", "products"\."name"\nHAVING SUM\("order_items"\."quantity"\) > 100$/);
    expect(text).not.toMatch(/WHERE/);
    expect(text.split("\n")[0]).toBe('SELECT "products"."name"');
  });

  it("reads a count of a noun that names the measure, with the period in WHERE", async () => {
    const text = await answerSql(
      intent("Which customers bought more than 40 units in 2025?", {
        wh: "which",
        time: [{ text: "in 2025", kind: "absolute", start: "2025-01-01", end: "2026-01-01", comparator: "in", ordinal: null }],
      }),
    );
    expect(text).toContain(`WHERE "orders"."order_date" >= '2025-01-01' AND "orders"."order_date" < '2026-01-01'`);
    expect(text).toMatch(/GROUP BY "customers"\."customer_id", "customers"\."name"\nHAVING SUM\("order_items"\."quantity"\) > 40$/);
  });

  it("compares the measure a comparison names", async () => {
    const text = await answerSql(intent("Which customers have a revenue above 500?", { wh: "which" }));
    expect(text).toContain(`HAVING ${REVENUE} > 500`);
  });

  it("says so when no column takes a comparison, rather than dropping it", async () => {
    const i = intent("Which customers bought more than 40 units?", { wh: "which" });
    const { queries } = await formulateSql(i, shop, SHOP, noAdjustments(), 1, 0);
    expect(queries[0].fit?.unresolved.join(" ")).toMatch(/I could not tell which column "more than 40" compares/);
  });
});

describe("a comparison no word places", () => {
  it("takes the answer rows' numeric column closest in meaning, before a related table's, and is said when none stands out", async () => {
    const i = intent("Which products cost less than 150 euros?", { wh: "which" });
    const closeness = new Map([
      [columnKey("products", "list_price"), 0.2],
      [columnKey("order_items", "unit_price"), 0.34],
    ]);
    const withMeaning = { ...shop, columnMeaning: closeness };
    const { queries } = await formulateSql(i, withMeaning, SHOP, noAdjustments(), 1, 0);
    expect(queries[0].query.text.replace(/\s+/g, " ")).toBe(`SELECT "name" FROM "products" WHERE "list_price" < 150`);
    const noMeaning = { ...shop, columnMeaning: new Map<string, number>() };
    const none = await formulateSql(i, noMeaning, SHOP, noAdjustments(), 1, 0);
    expect(none.queries[0].fit?.unresolved).toHaveLength(1);
  });
});
