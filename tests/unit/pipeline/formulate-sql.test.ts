import { describe, expect, it } from "vitest";
import { checkSqlSafety } from "@/lib/backends/sql";
import { adjustmentsFor, formulateSql, noAdjustments } from "@/lib/pipeline/stages/formulate/classical";
import { MENTIONED } from "@/lib/pipeline/stages/formulate/sql/column-choice";
import { columnCloseness, columnKey } from "@/lib/pipeline/stages/formulate/sql/column-meaning";
import { linkSchema, parseValueRef } from "@/lib/pipeline/stages/formulate/sql/schema-linking";
import type { Feedback, Intent } from "@/lib/pipeline/contracts";
import { candidate, intent, link, mention, SHOP } from "./formulate-fixtures";

const KB = "kb-shop";
const shop = candidate(KB, "SQL");
const value = (ref: string, label: string, score = 1) => link(KB, "value", ref, label, score, ref.split(".")[0]);

async function sql(i: Intent, feedback: Feedback | null = null, max = 3, structure = SHOP) {
  const adj = feedback ? adjustmentsFor(i, feedback) : noAdjustments();
  const { queries, notes } = await formulateSql(i, shop, structure, adj, max, adj.page);
  // Every formulated query must pass the backend's own safety check, in both dialects.
  for (const q of queries) {
    expect(q.query.language).toBe("sql");
    await expect(checkSqlSafety(q.query.text, "sqlite")).resolves.toBeTruthy();
    await expect(checkSqlSafety(q.query.text, "postgres")).resolves.toBeTruthy();
    expect(q.strategy).toBe("schema-linking");
    expect(q.explanation.length).toBeGreaterThan(10);
  }
  return { texts: queries.map((q) => q.query.text.replace(/\s+/g, " ")), queries, notes };
}

describe("SQL schema linking", () => {
  it("reads the SQL backend's value refs, with dots and equal signs inside values", async () => {
    expect(parseValueRef("orders.status=returned", SHOP)).toEqual({ table: "orders", column: "status", value: "returned" });
    expect(parseValueRef("customers.name=A.B = C", SHOP)).toEqual({ table: "customers", column: "name", value: "A.B = C" });
    expect(parseValueRef("nosuch.column=x", SHOP)).toBeNull();
    expect(parseValueRef("orders.status", SHOP)).toBeNull();
  });

  it("counts the rows a linked value selects: the answer query returns exactly the count", async () => {
    const q = "How many orders were returned?";
    const { texts, queries } = await sql(
      intent(q, {
        wh: "how many",
        answerTypes: ["count"],
        aggregate: "count",
        entities: [mention(q, "returned", [value("orders.status=returned", "returned")])],
      }),
    );
    expect(texts[0]).toBe(`SELECT COUNT(*) AS "number of orders" FROM "orders" WHERE "status" = 'returned'`);
    expect(queries[0].sourceObject).toBe("orders");
    expect(queries[0].role).toBe("answer");
    expect(queries[0].fit).toMatchObject({ valuesUsed: [], valuesMissed: [], unresolved: [], coverage: 1 });
    expect(queries.slice(1).every((x) => x.role === "context")).toBe(true);
    // The alternatives: the rows behind the count, and the count per status (in case the value sits elsewhere).
    expect(texts[1]).toBe(`SELECT "order_id", "status" FROM "orders" WHERE "status" = 'returned' LIMIT 50`);
    expect(texts[2]).toBe(`SELECT "status", COUNT(*) AS "number of orders" FROM "orders" GROUP BY "status" LIMIT 50`);
  });

  it("lists the rows a linked value selects by what identifies them, not by the column the value fixes", async () => {
    // orders has no name column: its first text column (status) stands in for one, but the filter fixes it to one value.
    for (const q of ["Which orders were returned?", "List the returned orders."]) {
      const { texts, queries } = await sql(
        intent(q, { entities: [mention(q, "returned", [value("orders.status=returned", "returned")])] }),
      );
      expect(texts[0]).toBe(`SELECT "order_id" FROM "orders" WHERE "status" = 'returned'`);
      expect(queries[0].role).toBe("answer");
    }
    // A real name the question fixes names the one row it is about: shown back, it answers nothing.
    const q = "How much does the Basecamp 4 Tent weigh?";
    const named = await sql(
      intent(q, { entities: [mention(q, "Basecamp 4 Tent", [value("products.name=Basecamp 4 Tent", "Basecamp 4 Tent")])] }),
    );
    expect(named.texts[0]).toBe(`SELECT "name" FROM "products" WHERE "name" = 'Basecamp 4 Tent'`);
    expect(named.queries.some((x) => x.role === "answer")).toBe(false);
    // An ask that names no table wants an attribute of what the value selects, which nothing linked: its id is no answer.
    const unasked = "How is returned spelled?";
    const attribute = await sql(
      intent(unasked, { entities: [mention(unasked, "returned", [value("orders.status=returned", "returned")])] }),
    );
    expect(attribute.texts.some((t) => t.startsWith(`SELECT "order_id" FROM "orders" WHERE "status" = 'returned'`))).toBe(false);
    expect(attribute.queries.some((x) => x.role === "answer")).toBe(false);
    // Nor does an ask that names the table only inside the value it pins.
    const inside = "Which one corresponds to returned orders?";
    const insideValue = await sql(
      intent(inside, { entities: [mention(inside, "returned orders", [value("orders.status=returned", "returned")])] }),
    );
    expect(insideValue.texts.some((t) => t.startsWith(`SELECT "order_id" FROM "orders" WHERE "status" = 'returned'`))).toBe(false);
    expect(insideValue.queries.some((x) => x.role === "answer")).toBe(false);
  });

  it("joins along the shortest foreign-key path to a value in another table and counts distinct answer rows", async () => {
    const q = "How many orders were placed by customers in Germany?";
    const { texts } = await sql(
      intent(q, {
        wh: "how many",
        answerTypes: ["count"],
        aggregate: "count",
        entities: [mention(q, "Germany", [value("regions.country=Germany", "Germany")])],
      }),
    );
    expect(texts[0]).toBe(
      `SELECT COUNT(DISTINCT "orders"."order_id") AS "number of orders" FROM "orders" ` +
        `JOIN "customers" ON "orders"."customer_id" = "customers"."customer_id" JOIN "regions" ON "customers"."region_id" = "regions"."region_id" ` +
        `WHERE "regions"."country" = 'Germany'`,
    );
  });

  it("maps a superlative to ORDER BY … LIMIT on the named numeric column; the answer is the entity's name, the context shows its identity", async () => {
    const q = "Which product has the highest list price?";
    const { texts } = await sql(
      intent(q, { wh: "which", answerTypes: ["entity"], superlative: { direction: "max", attribute: "list price", limit: 1 } }),
    );
    expect(texts[0]).toBe(`SELECT "name" FROM "products" WHERE "list_price" IS NOT NULL ORDER BY "list_price" DESC LIMIT 1`);
    expect(texts[1]).toBe(
      `SELECT "product_id", "name", "list_price" FROM "products" WHERE "list_price" IS NOT NULL ORDER BY "list_price" DESC LIMIT 10`,
    );
  });

  it("reads the direction of a superlative adjective from the adjective, whatever the intent wrote", async () => {
    const q = "Which is the cheapest product?";
    for (const direction of ["max", "min"] as const) {
      const { texts } = await sql(intent(q, { wh: "which", superlative: { direction, attribute: "cheapest", limit: 1 } }));
      expect(texts[0]).toContain(`ORDER BY "list_price" ASC LIMIT 1`);
    }
  });

  it("groups for 'per' and aggregates the named numeric column", async () => {
    const q = "What is the average list price per category?";
    const { texts } = await sql(intent(q, { wh: "what", answerTypes: ["money"], aggregate: "avg" }));
    expect(texts[0]).toBe(`SELECT "category", AVG("list_price") AS "average list price" FROM "products" GROUP BY "category"`);
  });

  it("asks several aggregates of one column when the question does", async () => {
    const q = "What are the average, minimum and maximum list price of products?";
    const { texts } = await sql(intent(q, { aggregate: "avg" }));
    expect(texts[0]).toBe(
      `SELECT AVG("list_price") AS "average list price", MIN("list_price") AS "minimum list price", MAX("list_price") AS "maximum list price" FROM "products"`,
    );
  });

  it("turns a time cue into a period on the date column", async () => {
    const q = "How many orders were placed in 2024?";
    const { texts } = await sql(
      intent(q, {
        aggregate: "count",
        time: [{ text: "in 2024", kind: "absolute", start: "2024-01-01", end: "2025-01-01", comparator: "in", ordinal: null }],
      }),
    );
    expect(texts[0]).toBe(
      `SELECT COUNT(*) AS "number of orders" FROM "orders" WHERE "order_date" >= '2024-01-01' AND "order_date" < '2025-01-01'`,
    );
    const before = await sql(
      intent("How many orders were placed before 2025?", {
        aggregate: "count",
        time: [{ text: "before 2025", kind: "absolute", start: "2025-01-01", end: "2026-01-01", comparator: "before", ordinal: null }],
      }),
    );
    expect(before.texts[0]).toContain(`WHERE "order_date" < '2025-01-01'`);
  });

  it("orders by date for an ordinal time cue", async () => {
    const q = "What was the first order of Alpenweg GmbH?";
    const { texts } = await sql(
      intent(q, {
        time: [{ text: "first", kind: "ordinal", start: null, end: null, comparator: null, ordinal: 1 }],
        entities: [mention(q, "Alpenweg GmbH", [value("customers.name=Alpenweg GmbH", "Alpenweg GmbH")])],
      }),
    );
    expect(texts[0]).toContain(`WHERE "customers"."name" = 'Alpenweg GmbH'`);
    expect(texts[0]).toContain(`ORDER BY "orders"."order_date" ASC LIMIT 1`);
  });

  it("counts rows of another table per answer row for 'the most …' superlatives", async () => {
    const q = "Which customer placed the most orders?";
    const { texts } = await sql(intent(q, { wh: "which", superlative: { direction: "max", attribute: "orders", limit: 1 } }));
    expect(texts[0]).toBe(
      `SELECT "customers"."name" FROM "customers" ` +
        `JOIN "orders" ON "customers"."customer_id" = "orders"."customer_id" GROUP BY "customers"."customer_id", "customers"."name" ` +
        `ORDER BY COUNT(DISTINCT "orders"."order_id") DESC LIMIT 1`,
    );
  });

  it("reads numeric comparisons and negated values", async () => {
    const q = "Which products have a list price above 300?";
    expect((await sql(intent(q, { wh: "which" }))).texts[0]).toContain(`WHERE "list_price" > 300`);
    const between = await sql(intent("Which products cost between 100 and 200 in list price?", { wh: "which" }));
    expect(between.texts[0]).toContain(`"list_price" BETWEEN 100 AND 200`);
    const n = "Which orders were not returned?";
    expect(
      (await sql(intent(n, { entities: [mention(n, "returned", [value("orders.status=returned", "returned")])] }))).texts[0],
    ).toContain(`WHERE "status" <> 'returned'`);
  });

  it("quotes hostile values as one string literal", async () => {
    const hostile = "O'Brien'; DROP TABLE x; --";
    const q = `How many orders did ${hostile} place?`;
    const { texts } = await sql(
      intent(q, { aggregate: "count", entities: [mention(q, hostile, [value(`customers.name=${hostile}`, hostile)])] }),
    );
    expect(texts[0]).toContain(`WHERE "customers"."name" = 'O''Brien''; DROP TABLE x; --'`);
    // The safety check reads each text as one statement with the value intact (the helper checked them all).
    const filtered = texts.filter((t) => t.includes("O''Brien"));
    expect(filtered.length).toBeGreaterThanOrEqual(2);
    for (const t of filtered) expect((await checkSqlSafety(t, "sqlite")).normalized).toContain("'O''Brien''; DROP TABLE x; --'");
    const relaxed = await sql(
      intent(q, { aggregate: "count", entities: [mention(q, hostile, [value(`customers.name=${hostile}`, hostile)])] }),
      { type: "empty_result", target: null, detail: "" },
    );
    expect(relaxed.texts[0]).toContain(`LIKE '%o''brien''; drop table x; --%' ESCAPE '!'`);
  });

  it("quotes identifiers that are reserved words or hold quotes", async () => {
    const structure = {
      ...SHOP,
      tables: [
        {
          name: 'order"s',
          columns: [
            { name: "select", type: "INTEGER", examples: [1] },
            { name: "group", type: "TEXT", examples: ["a"] },
          ],
          primaryKey: ["select"],
          foreignKeys: [],
          rows: 3,
        },
      ],
    };
    const { texts } = await sql(intent('How many order"s are there?', { aggregate: "count" }), null, 3, structure);
    expect(texts[0]).toBe(`SELECT COUNT(*) AS "number of order s" FROM "order""s"`);
  });

  it("keeps to maxQueriesPerCandidate", async () => {
    const q = "How many orders were returned?";
    const i = intent(q, { aggregate: "count", entities: [mention(q, "returned", [value("orders.status=returned", "returned")])] });
    expect((await sql(i, null, 1)).queries).toHaveLength(1);
    expect((await sql(i, null, 2)).queries).toHaveLength(2);
  });
});

describe("SQL formulation under the critic's feedback", () => {
  const q = "How many orders did Nordic Trails AB place?";
  const links = [value("customers.name=Nordic Trails AB", "Nordic Trails AB", 0.9), value("customers.city=Nordic", "Nordic", 0.6)];
  const base = intent(q, { aggregate: "count", entities: [mention(q, "Nordic Trails AB", links)] });

  it("wrong_entity: uses the next-best link of the named mention", async () => {
    const { texts } = await sql(base, { type: "wrong_entity", target: "Nordic Trails AB", detail: "not in the evidence" });
    expect(texts[0]).toContain(`WHERE "customers"."city" = 'Nordic'`);
    expect(texts.join(" ")).not.toContain("Nordic Trails AB'");
  });

  it("missing_entity on a linked mention: drops its filter and looks it up by name", async () => {
    const { texts } = await sql(base, { type: "missing_entity", target: "Nordic Trails AB", detail: "" });
    expect(texts[0]).not.toContain(`= 'Nordic Trails AB'`);
    expect(texts[0]).toContain(`LIKE '%nordic trails ab%' ESCAPE '!'`);
  });

  it("empty_result: value filters become contains-matches and time filters go", async () => {
    const timed = {
      ...base,
      time: [
        { text: "in 2024", kind: "absolute" as const, start: "2024-01-01", end: "2025-01-01", comparator: "in" as const, ordinal: null },
      ],
    };
    const { texts } = await sql(timed, { type: "empty_result", target: null, detail: "" });
    expect(texts[0]).toContain(`LOWER("customers"."name") LIKE '%nordic trails ab%' ESCAPE '!'`);
    expect(texts[0]).not.toContain("2024");
  });

  it("empty_result escapes LIKE wildcards in the value", async () => {
    const v = "100%_pure";
    const i = intent(`Which products are ${v}?`, { entities: [mention(`Which products are ${v}?`, v, [value(`products.name=${v}`, v)])] });
    expect((await sql(i, { type: "empty_result", target: null, detail: "" })).texts[0]).toContain(`LIKE '%100!%!_pure%' ESCAPE '!'`);
  });

  it("next_batch: the next page of rows", async () => {
    const i = intent("Which products are in the Tents category?", {
      entities: [mention("Which products are in the Tents category?", "Tents", [value("products.category=Tents", "Tents")])],
    });
    // The answer query has no row limit of its own (the answer row cap bounds it) and is not paged; the context rows are.
    expect((await sql(i)).texts[0]).not.toMatch(/LIMIT/);
    expect((await sql(i)).texts[1]).toMatch(/LIMIT 50$/);
    expect((await sql(i, { type: "next_batch", target: null, detail: "" })).texts[0]).toMatch(/LIMIT 50 OFFSET 50$/);
    expect((await sql(i, { type: "next_batch", target: "2", detail: "" })).texts[0]).toMatch(/LIMIT 50 OFFSET 100$/);
  });
});

describe("SQL schema linking with the semantic signal", () => {
  it("answers from the table source selection found close in meaning when no word of the question names one", () => {
    const q = "Show all clients.";
    const i = intent(q, { wh: "which", answerTypes: ["entity"] });
    const plain = linkSchema(SHOP, i, candidate(KB, "SQL"), noAdjustments());
    expect(plain.root).not.toBe("customers");
    // "client" shares no word with any table; the embedding similarity of the customers table does the linking.
    const withMeaning = linkSchema(SHOP, i, { ...candidate(KB, "SQL"), meaning: { customers: 0.55, orders: 0.1 } }, noAdjustments());
    expect(withMeaning.root).toBe("customers");
  });

  it("does not let meaning overrule a table the question names", () => {
    const q = "How many orders are there?";
    const i = intent(q, { wh: "how many", answerTypes: ["count"], aggregate: "count" });
    const linking = linkSchema(SHOP, i, { ...candidate(KB, "SQL"), meaning: { customers: 0.6, orders: 0.2 } }, noAdjustments());
    expect(linking.root).toBe("orders");
  });
});

describe("SQL schema linking with columns close in meaning", () => {
  const avgCost = () => intent("What is the average cost of all products?", { wh: "what", answerTypes: ["number"], aggregate: "avg" });

  it("measures the column the question names only by meaning ('cost' → list_price)", async () => {
    const i = avgCost();
    // No word of the question names a numeric column: by words alone there is nothing to average.
    const plain = await formulateSql(i, shop, SHOP, noAdjustments(), 1, 0);
    expect(plain.queries[0].query.text).not.toMatch(/AVG/);
    const withMeaning = {
      ...shop,
      columnMeaning: new Map([
        [columnKey("products", "list_price"), 0.8],
        [columnKey("order_items", "unit_price"), 0.7],
      ]),
    };
    const dense = await formulateSql(i, withMeaning, SHOP, noAdjustments(), 1, 0);
    expect(dense.queries[0].query.text.replace(/\s+/g, " ")).toBe(`SELECT AVG("list_price") AS "average list price" FROM "products"`);
  });

  it("stays below a column the question names, and never makes a column 'asked for' on its own", () => {
    const i = intent("What is the average unit price?", { wh: "what", answerTypes: ["number"], aggregate: "avg" });
    const closest = new Map([
      [columnKey("products", "list_price"), 1],
      [columnKey("order_items", "quantity"), 1],
      [columnKey("customers", "city"), 1],
    ]);
    const linking = linkSchema(SHOP, i, { ...shop, columnMeaning: closest }, noAdjustments());
    const score = (table: string, name: string) => linking.columnScore(linking.columns.get(table)!.find((c) => c.name === name)!);
    expect(score("order_items", "unit_price")).toBe(1);
    // Half named by words ("price"): meaning adds nothing above that.
    expect(score("products", "list_price")).toBe(0.5);
    // A table none of whose columns the question names: meaning ranks them, below MENTIONED.
    expect(score("customers", "city")).toBeGreaterThan(0);
    expect(score("customers", "city")).toBeLessThan(MENTIONED);
    // A table whose column the question names ("unit price") is read by words alone.
    expect(score("order_items", "quantity")).toBe(0);
  });

  it("leaves a table to its named column even when that column cannot serve (text, not numbers)", async () => {
    const i = intent("What is the highest status of the orders?", { wh: "what", answerTypes: ["entity"], aggregate: "max" });
    const closest = new Map([
      [columnKey("orders", "order_date"), 1],
      [columnKey("orders", "customer_id"), 1],
    ]);
    const linking = linkSchema(SHOP, i, { ...shop, columnMeaning: closest }, noAdjustments());
    expect(linking.columnScore(linking.columns.get("orders")!.find((c) => c.name === "order_date")!)).toBe(0);
  });
});

describe("value links between columns of one table", () => {
  const q = "Which customers are in the city Munich?";
  const links = [value("customers.name=Munich", "Munich"), value("customers.city=Munich", "Munich")];

  it("a value found in two columns of one table filters the column the words beside it name", () => {
    const linking = linkSchema(
      SHOP,
      intent(q, { wh: "which", answerTypes: ["entity"], entities: [mention(q, "Munich", links)] }),
      shop,
      noAdjustments(),
    );
    expect(linking.values.map((v) => v.column.name)).toEqual(["city"]);
    // The column the question asks to show ("what city") is not the one the words beside the value name ("named Munich").
    const shown = "What city is the customer named Munich in?";
    const named = linkSchema(
      SHOP,
      intent(shown, { wh: "what", answerTypes: ["entity"], entities: [mention(shown, "Munich", [...links].reverse())] }),
      shop,
      noAdjustments(),
    );
    expect(named.values.map((v) => v.column.name)).toEqual(["name"]);
  });

  it("or, when no word names either, the column close in meaning", () => {
    const paraphrase = "Which customers are located in Munich?";
    const i = intent(paraphrase, { wh: "which", answerTypes: ["entity"], entities: [mention(paraphrase, "Munich", links)] });
    expect(linkSchema(SHOP, i, shop, noAdjustments()).values.map((v) => v.column.name)).toEqual(["name"]);
    const closest = new Map([[columnKey("customers", "city"), 0.6]]);
    expect(linkSchema(SHOP, i, { ...shop, columnMeaning: closest }, noAdjustments()).values.map((v) => v.column.name)).toEqual(["city"]);
  });
});

describe("column closeness from embedding cosines", () => {
  it("scores a column by how far it stands out from its table's other columns", () => {
    // "How old is the oldest singer?" against the singer table's columns (all-MiniLM-L6-v2 cosines, rounded).
    const [id, name, country, age] = columnCloseness([0.56, 0.61, 0.54, 0.86]);
    expect(age).toBeGreaterThan(0.5);
    expect([id, name, country]).toEqual([0, 0, 0]);
  });

  it("says nothing for a table unrelated to the question, or a lone column", () => {
    expect(columnCloseness([0.05, 0.18, 0.02, 0.1])).toEqual([0, 0, 0, 0]);
    expect(columnCloseness([0.9])).toEqual([0]);
  });
});

describe("comparisons by an adjective its column measures inversely", () => {
  const people = (column: { name: string; type: string; examples: (string | number)[] }): typeof SHOP => ({
    kind: "sql",
    dialect: "sqlite",
    tables: [
      {
        name: "employees",
        columns: [
          { name: "employee_id", type: "INTEGER", examples: [1] },
          { name: "full_name", type: "TEXT", examples: ["Ada Berg"] },
          column,
        ],
        primaryKey: ["employee_id"],
        foreignKeys: [],
        rows: 40,
      },
    ],
  });
  const thisYear = new Date().getUTCFullYear();

  it("reads an age as the birth year that many years back, the comparator turned around", async () => {
    const born = people({ name: "born", type: "INTEGER", examples: [1961, 1990] });
    const older = await sql(intent("Which employees are older than 50?", { wh: "which" }), null, 1, born);
    expect(older.texts[0]).toBe(`SELECT "full_name" FROM "employees" WHERE "born" < ${thisYear - 50}`);
    const younger = await sql(intent("Which employees are younger than 30?", { wh: "which" }), null, 1, born);
    expect(younger.texts[0]).toBe(`SELECT "full_name" FROM "employees" WHERE "born" > ${thisYear - 30}`);
    // A year stays a year: only the comparator turns.
    const beforeYear = await sql(intent("Which employees are older than 1970?", { wh: "which" }), null, 1, born);
    expect(beforeYear.texts[0]).toBe(`SELECT "full_name" FROM "employees" WHERE "born" < 1970`);
  });

  it("says what it could not compare rather than comparing an age with dates", async () => {
    const dated = people({ name: "birth_date", type: "TEXT", examples: ["1970-04-02"] });
    const { queries } = await sql(intent("Which employees are older than 50?", { wh: "which" }), null, 1, dated);
    expect(queries[0].query.text).not.toMatch(/WHERE/);
    expect(queries[0].fit?.unresolved.join(" ")).toMatch(/older than 50/);
  });
});
