import Database from "better-sqlite3";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSqlBackend } from "@/lib/backends/sql";
import type { EntityIndexEntry, KbStructure, KnowledgeBackend, RowData } from "@/lib/backends/types";
import { createDemoSalesDatabase } from "@/lib/demo/sales-database";
import { classicalFormulate } from "@/lib/pipeline/stages/formulate/classical";
import type { StageContext } from "@/lib/pipeline/stage";
import { type Candidate, type EntityMention, type FormulatedQuery, type Intent, intentSchema } from "@/lib/pipeline/contracts";

/**
 * Formulated SQL executed on real SQLite files: the demo sales database and Spider's concert_singer.
 * Intents are written by hand (the understand stage is tested on its own), with entity links taken
 * from the backend's real entityIndex().
 */

const DATASETS = path.resolve(process.env.DATASETS_DIR ?? "../shared/datasets");
const CONCERTS = path.join(DATASETS, "spider", "database", "concert_singer", "concert_singer.sqlite");
const ctx: StageContext = { signal: new AbortController().signal, deadline: Date.now() + 600_000, trace: () => undefined };
const dirs: string[] = [];
const opened: KnowledgeBackend[] = [];
afterAll(async () => {
  await Promise.all(opened.map((b) => b.close()));
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function intent(question: string, o: Partial<Intent> = {}): Intent {
  return intentSchema.parse({
    question,
    completed: question,
    language: "en",
    wh: null,
    answerTypes: [],
    entities: [],
    relation: null,
    time: [],
    locations: [],
    aggregate: null,
    superlative: null,
    keywords: [],
    ...o,
  });
}

/** A mention linked the way the understand stage links it: to every index entry with that exact label. */
function linked(kbId: string, index: EntityIndexEntry[], question: string, text: string, kinds = ["value"]): EntityMention {
  const links = index
    .filter((e) => kinds.includes(e.kind) && e.label.toLowerCase() === text.toLowerCase())
    .map((e) => ({ kbId, label: e.label, kind: e.kind, ref: e.ref, sourceObject: e.sourceObject, score: 1 }));
  expect(links.length, `"${text}" is in the entity index`).toBeGreaterThan(0);
  const at = question.indexOf(text);
  return { mention: text, span: [at, at + text.length], links, fromContext: false };
}

class SqlKb {
  backend!: KnowledgeBackend;
  structure!: KbStructure;
  index!: EntityIndexEntry[];
  raw!: Database.Database;
  constructor(
    readonly kbId: string,
    private readonly file: string,
  ) {}
  async open() {
    this.backend = createSqlBackend(
      { dialect: "sqlite", file: this.file },
      {},
      { kbId: this.kbId, kbName: this.kbId, storageDir: path.dirname(this.file) },
    );
    opened.push(this.backend);
    this.structure = await this.backend.structure();
    this.index = await this.backend.entityIndex();
    this.raw = new Database(this.file, { readonly: true });
  }
  candidate(): Candidate {
    return { kbId: this.kbId, kbName: this.kbId, kind: "SQL", sourceObjects: [], score: 1, reasons: [] };
  }
  async formulate(i: Intent): Promise<FormulatedQuery[]> {
    return classicalFormulate.run(
      { intent: i, candidates: [this.candidate()], structures: new Map([[this.kbId, this.structure]]), guides: [] },
      ctx,
    );
  }
  /** The first formulated query's rows, executed through the backend (safety check included). */
  async answer(i: Intent): Promise<{ rows: Record<string, unknown>[]; queries: FormulatedQuery[] }> {
    const queries = await this.formulate(i);
    expect(queries.length).toBeGreaterThan(0);
    for (const q of queries) await this.backend.execute(q.query, { maxRows: 100 });
    const result = await this.backend.execute(queries[0].query, { maxRows: 100 });
    return { rows: result.records, queries };
  }
  truth(sql: string): unknown[][] {
    return this.raw.prepare(sql).raw(true).all() as unknown[][];
  }
}

describe("formulated SQL on the demo sales database", () => {
  let sales: SqlKb;
  beforeAll(async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "mosaic-formulate-sql-"));
    dirs.push(dir);
    createDemoSalesDatabase(path.join(dir, "sales.sqlite"));
    sales = new SqlKb("kb-sales", path.join(dir, "sales.sqlite"));
    await sales.open();
  });
  afterAll(() => sales.raw.close());

  it("How many orders were returned? → exactly the count of returned orders", async () => {
    const q = "How many orders were returned?";
    const { rows } = await sales.answer(
      intent(q, { wh: "how many", answerTypes: ["count"], aggregate: "count", entities: [linked("kb-sales", sales.index, q, "returned")] }),
    );
    const [[expected]] = sales.truth("SELECT count(*) FROM orders WHERE status = 'returned'");
    expect(expected).toBeGreaterThan(0);
    expect(rows).toEqual([{ "number of orders": expected }]);
  });

  it("Which product has the highest list price? → Basecamp 4 Tent, the context rows as row pieces of the products table", async () => {
    const q = "Which product has the highest list price?";
    const i = intent(q, { wh: "which", answerTypes: ["entity"], superlative: { direction: "max", attribute: "list price", limit: 1 } });
    const { rows, queries } = await sales.answer(i);
    expect(rows).toEqual([{ name: "Basecamp 4 Tent" }]);
    expect(queries[0].role).toBe("answer");
    const pieces = sales.backend.verbalize(await sales.backend.execute(queries[1].query), { sourceObject: queries[1].sourceObject });
    expect(pieces[0].text).toBe("products / product_id: 2, name: Basecamp 4 Tent, list_price: 529");
    expect((pieces[0].data as RowData).key).toEqual({ product_id: 2 });
  });

  it("How many orders were placed by customers in Germany? → joins orders, customers and regions", async () => {
    const q = "How many orders were placed by customers in Germany?";
    const { rows } = await sales.answer(intent(q, { aggregate: "count", entities: [linked("kb-sales", sales.index, q, "Germany")] }));
    const [[expected]] = sales.truth(
      "SELECT count(*) FROM orders o JOIN customers c USING (customer_id) JOIN regions r USING (region_id) WHERE r.country = 'Germany'",
    );
    expect(rows).toEqual([{ "number of orders": expected }]);
  });

  it("Which customer placed the most orders? → the customer with the highest order count", async () => {
    const q = "Which customer placed the most orders?";
    const { rows } = await sales.answer(
      intent(q, { wh: "which", answerTypes: ["organisation"], superlative: { direction: "max", attribute: "orders", limit: 1 } }),
    );
    const [[name]] = sales.truth(
      "SELECT c.name, count(*) AS n FROM customers c JOIN orders o USING (customer_id) GROUP BY c.customer_id ORDER BY n DESC LIMIT 1",
    );
    expect(rows).toEqual([{ name }]);
  });

  it("What was the total quantity of Tents sold in 2025? → SUM over the order lines of 2025 tents", async () => {
    const q = "What was the total quantity of Tents sold in 2025?";
    const i = intent(q, {
      aggregate: "sum",
      answerTypes: ["number"],
      entities: [linked("kb-sales", sales.index, q, "Tents")],
      time: [{ text: "in 2025", kind: "absolute", start: "2025-01-01", end: "2026-01-01", comparator: "in", ordinal: null }],
    });
    const { rows, queries } = await sales.answer(i);
    const [[expected]] = sales.truth(
      "SELECT sum(i.quantity) FROM order_items i JOIN products p USING (product_id) JOIN orders o USING (order_id) WHERE p.category = 'Tents' AND o.order_date >= '2025-01-01' AND o.order_date < '2026-01-01'",
    );
    expect(queries[0].query.text).toContain("SUM(");
    expect(rows).toEqual([{ "total quantity": expected }]);
  });

  it("a hostile value runs as a harmless literal", async () => {
    const hostile = "O'Brien'; DROP TABLE orders; --";
    const q = `How many orders did ${hostile} place?`;
    const i = intent(q, {
      aggregate: "count",
      entities: [
        {
          mention: hostile,
          span: null,
          fromContext: false,
          links: [
            { kbId: "kb-sales", label: hostile, kind: "value", ref: `customers.name=${hostile}`, sourceObject: "customers", score: 1 },
          ],
        },
      ],
    });
    const { rows } = await sales.answer(i);
    expect(rows).toEqual([{ "number of orders": 0 }]);
    expect(sales.truth("SELECT count(*) FROM orders")).toEqual([[120]]);
  });
});

describe.skipIf(!existsSync(CONCERTS))("formulated SQL on Spider concert_singer", () => {
  let spider: SqlKb;
  beforeAll(async () => {
    spider = new SqlKb("kb-concerts", CONCERTS);
    await spider.open();
  });
  afterAll(() => spider.raw.close());

  it("How many singers are from France? (the value linked)", async () => {
    const q = "How many singers are from France?";
    const { rows } = await spider.answer(
      intent(q, { aggregate: "count", answerTypes: ["count"], entities: [linked("kb-concerts", spider.index, q, "France")] }),
    );
    const [[expected]] = spider.truth("SELECT count(*) FROM singer WHERE country = 'France'");
    expect(rows).toEqual([{ "number of singer": expected }]);
  });

  it("What is the average, minimum, and maximum age of all singers from France?", async () => {
    const q = "What is the average, minimum, and maximum age of all singers from France?";
    const { rows } = await spider.answer(intent(q, { aggregate: "avg", entities: [linked("kb-concerts", spider.index, q, "France")] }));
    const [[avg, min, max]] = spider.truth("SELECT avg(age), min(age), max(age) FROM singer WHERE country = 'France'");
    expect(rows).toEqual([{ "average age": avg, "minimum age": min, "maximum age": max }]);
  });

  it("Show the stadium name and the number of concerts in each stadium.", async () => {
    const q = "Show the stadium name and the number of concerts in each stadium.";
    const { rows } = await spider.answer(intent(q, { aggregate: "count" }));
    const gold = spider.truth(
      "SELECT T2.name, count(*) FROM concert AS T1 JOIN stadium AS T2 ON T1.stadium_id = T2.stadium_id GROUP BY T1.stadium_id",
    );
    expect(rows.map((r) => [r.Name, r["number of concert"]]).sort()).toEqual(gold.sort());
  });

  it("What are the names of the singers who performed in a concert in 2014?", async () => {
    const q = "What are the names of the singers who performed in a concert in 2014?";
    const i = intent(q, {
      time: [{ text: "in 2014", kind: "absolute", start: "2014-01-01", end: "2015-01-01", comparator: "in", ordinal: null }],
    });
    const { rows } = await spider.answer(i);
    const gold = spider.truth(
      "SELECT DISTINCT T2.name FROM singer_in_concert AS T1 JOIN singer AS T2 ON T1.singer_id = T2.singer_id JOIN concert AS T3 ON T1.concert_id = T3.concert_id WHERE T3.year = 2014",
    );
    expect([...new Set(rows.map((r) => r.Name))].sort()).toEqual(gold.map((g) => g[0]).sort());
  });

  it("What is the name and capacity of the stadium with the highest average attendance?", async () => {
    const q = "What is the name and capacity of the stadium with the highest average attendance?";
    const { rows } = await spider.answer(intent(q, { superlative: { direction: "max", attribute: "average attendance", limit: 1 } }));
    const [[name, capacity]] = spider.truth("SELECT name, capacity FROM stadium ORDER BY average DESC LIMIT 1");
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ Name: name, Capacity: capacity });
  });
});
