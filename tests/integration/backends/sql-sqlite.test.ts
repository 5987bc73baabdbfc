import Database from "better-sqlite3";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { COMPACT_MAX_CHARS, DESCRIPTOR_MAX_CHARS } from "@/lib/backends/descriptor";
import {
  BackendUnavailableError,
  QueryExecutionError,
  QueryRejectedError,
  QuerySyntaxError,
  QueryTimeoutError,
} from "@/lib/backends/errors";
import { createSqlBackend, describeSqliteFile } from "@/lib/backends/sql";
import { SqliteEngine } from "@/lib/backends/sql/sqlite/engine";
import { DEFAULT_EXECUTE_OPTIONS, type BackendContext, type KnowledgeBackend, type RowData } from "@/lib/backends/types";

/** The SQL backend against real SQLite files: a shop database made here, and Spider's databases when present. */

const sql = (text: string) => ({ language: "sql" as const, text });
const tempDirs: string[] = [];
const opened: KnowledgeBackend[] = [];

function newKb(name: string): BackendContext {
  const storageDir = mkdtempSync(path.join(tmpdir(), "mosaic-sql-"));
  tempDirs.push(storageDir);
  return { kbId: `kb-${name.toLowerCase()}`, kbName: name, storageDir };
}
function open(file: string, ctx: BackendContext): KnowledgeBackend {
  const b = createSqlBackend({ dialect: "sqlite", file }, {}, ctx);
  opened.push(b);
  return b;
}
const fileHash = (file: string) => createHash("sha256").update(readFileSync(file)).digest("hex");

afterAll(async () => {
  await Promise.all(opened.map((b) => b.close()));
  for (const d of tempDirs) rmSync(d, { recursive: true, force: true });
});

/** A small shop: customers, products and orders that reference both, with a blob, a huge integer and a reserved-word table. */
function createShop(file: string) {
  const db = new Database(file);
  db.exec(`
    CREATE TABLE customer (customer_id INTEGER PRIMARY KEY, name TEXT NOT NULL, country TEXT, loyalty_points INTEGER, avatar BLOB);
    CREATE TABLE product (sku TEXT PRIMARY KEY, title TEXT NOT NULL, price REAL);
    CREATE TABLE "order" (order_id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL REFERENCES customer(customer_id),
                          sku TEXT REFERENCES product, quantity INTEGER, placed_on TEXT);
    CREATE TABLE numbers (n INTEGER);
  `);
  const customers = [
    [1, "Ada Lovelace", "United Kingdom", 120, Buffer.from([1, 2, 3, 4])],
    [2, "Grace Hopper", "United States", BigInt("9007199254740993"), null],
    [3, "Alan Turing", "United Kingdom", 40, null],
    [4, "Marie Curie", "France", 75, null],
  ];
  const insertCustomer = db.prepare("INSERT INTO customer VALUES (?, ?, ?, ?, ?)");
  for (const c of customers) insertCustomer.run(...c);
  db.exec(`
    INSERT INTO product VALUES ('TENT-2', 'Summit 2 Tent', 349.0), ('BAG-1', 'Arctic Sleeping Bag', 399.0), ('BOOT-9', 'Ridge Hiking Boot', 189.5);
    INSERT INTO "order" VALUES (100, 1, 'TENT-2', 1, '2024-03-01'), (101, 2, 'BAG-1', 2, '2024-03-02'), (102, 2, 'TENT-2', 1, '2024-04-11'),
                               (103, 4, 'BOOT-9', 3, '2024-05-20');
    WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000) INSERT INTO numbers SELECT x FROM c;
  `);
  db.close();
}

describe("SQL backend on a SQLite file made for the test", () => {
  let ctx: BackendContext;
  let file: string;
  let kb: KnowledgeBackend;
  let hashBefore: string;
  const counts = async () =>
    (
      await kb.execute(
        sql(
          `SELECT (SELECT count(*) FROM customer) AS customers, (SELECT count(*) FROM "order") AS orders, (SELECT count(*) FROM product) AS products`,
        ),
      )
    ).records[0];

  beforeAll(() => {
    ctx = newKb("Shop");
    file = path.join(ctx.storageDir, "database.sqlite");
    createShop(file);
    hashBefore = fileHash(file);
    // A relative file is the KB's own upload, in its storage folder.
    kb = open("database.sqlite", ctx);
  });

  it("checks the connection", async () => {
    const health = await kb.check();
    expect(health).toMatchObject({ ok: true });
    expect(health.message).toMatch(/^Connected \(SQLite 3\.\d+\.\d+, 4 tables\)\.$/);
  });

  it("describes the schema as CREATE TABLE statements with keys, row counts and example values", async () => {
    const d = await kb.describe();
    expect(d.text).toContain('-- SQLite database "Shop" (file database.sqlite; SQLite 3.');
    expect(d.text).toContain(
      "CREATE TABLE customer (\n  customer_id INTEGER,\n  name TEXT NOT NULL,\n  country TEXT,\n  loyalty_points INTEGER,\n  avatar BLOB,\n  PRIMARY KEY (customer_id)\n);",
    );
    expect(d.text).toContain(
      'CREATE TABLE "order" (\n  order_id INTEGER,\n  customer_id INTEGER NOT NULL,\n  sku TEXT,\n  quantity INTEGER,\n  placed_on TEXT,\n  PRIMARY KEY (order_id),\n' +
        "  FOREIGN KEY (sku) REFERENCES product(sku),\n  FOREIGN KEY (customer_id) REFERENCES customer(customer_id)\n);",
    );
    expect(d.text).toContain("-- examples: customer.country: 'United Kingdom', 'United States', 'France'");
    expect(d.text).toContain("-- customer: 4 rows");
    expect(d.text).not.toContain("avatar: '<binary");
    expect(d.compact).toContain('"order"(order_id, customer_id→customer, sku→product, quantity, placed_on)');
    expect(d.stats).toEqual({ tables: 4, columns: 14, rows: 1011, foreignKeys: 2 });
    // The same content gives the same version, from a fresh backend too.
    const again = await open("database.sqlite", ctx).describe();
    expect(again.version).toBe(d.version);
  });

  it("lists one source unit per table with a description made from its content", async () => {
    const units = await kb.sourceUnits();
    expect(units.map((u) => u.key)).toEqual(["customer", "product", "order", "numbers"]);
    const order = units.find((u) => u.key === "order")!;
    expect(order).toMatchObject({ name: "order", contentType: "TABLE", tags: ["sqlite", "table", "has-foreign-keys"] });
    expect(order.description).toMatch(
      /^Table order: 4 rows; columns order_id \(INTEGER, primary key\), customer_id \(INTEGER, → customer\), sku \(TEXT, → product\)/,
    );
    expect(order.description).toContain("references product, customer");
    expect(units.find((u) => u.key === "customer")!.description).toContain("Examples: name: Ada Lovelace, Grace Hopper, Alan Turing");
  });

  it("runs a SELECT and returns JSON-safe records", async () => {
    const r = await kb.execute(sql("SELECT customer_id, name, loyalty_points, avatar FROM customer ORDER BY customer_id"));
    expect(r.columns).toEqual(["customer_id", "name", "loyalty_points", "avatar"]);
    expect(r.truncated).toBe(false);
    expect(r.records[0]).toEqual({ customer_id: 1, name: "Ada Lovelace", loyalty_points: 120, avatar: "<binary 4 bytes>" });
    // Beyond 2^53 a JavaScript number would round: the digits are kept as a string.
    expect(r.records[1].loyalty_points).toBe("9007199254740993");
    expect(JSON.parse(JSON.stringify(r.records))).toEqual(r.records);
  });

  it("keeps both columns when a join returns two with the same name", async () => {
    const r = await kb.execute(
      sql(
        'SELECT c.name, p.title AS name FROM "order" o JOIN customer c ON c.customer_id = o.customer_id JOIN product p ON p.sku = o.sku WHERE o.order_id = 100',
      ),
    );
    expect(r.columns).toEqual(["name", "name (2)"]);
    expect(r.records).toEqual([{ name: "Ada Lovelace", "name (2)": "Summit 2 Tent" }]);
  });

  it("verbalizes rows of one table by primary key, and computed rows as a query result", async () => {
    const rows = kb.verbalize(await kb.execute(sql("SELECT * FROM customer WHERE country = 'United Kingdom'")));
    expect(rows.map((p) => p.text)).toEqual([
      "customer / customer_id: 1, name: Ada Lovelace, country: United Kingdom, loyalty_points: 120, avatar: <binary 4 bytes>",
      "customer / customer_id: 3, name: Alan Turing, country: United Kingdom, loyalty_points: 40",
    ]);
    expect(rows[0]).toMatchObject({
      kind: "row",
      provenance: {
        kb: "kb-shop",
        kbName: "Shop",
        sourceObject: "customer",
        language: "sql",
        location: { table: "customer", key: "customer_id=1" },
      },
      entities: ["Ada Lovelace", "United Kingdom"],
    });
    expect((rows[0].data as RowData).key).toEqual({ customer_id: 1 });
    // The same row found by another query is the same piece of evidence.
    const same = kb.verbalize(await kb.execute(sql("SELECT customer_id, name FROM customer WHERE name LIKE 'Ada%'")));
    expect(same[0].id).toBe(rows[0].id);

    const joined = kb.verbalize(
      await kb.execute(
        sql(
          'SELECT c.name, sum(o.quantity) AS items FROM customer c JOIN "order" o ON o.customer_id = c.customer_id GROUP BY c.name ORDER BY items DESC, c.name',
        ),
      ),
    );
    expect(joined.map((p) => p.text)).toEqual([
      "Query result / name: Grace Hopper, items: 3",
      "Query result / name: Marie Curie, items: 3",
      "Query result / name: Ada Lovelace, items: 1",
    ]);
    expect(joined[0].provenance).toMatchObject({ sourceObject: null, location: { table: "Query result", row: 0 } });
    expect(kb.verbalize(await kb.execute(sql("SELECT * FROM product")), { sourceObject: "catalog" })[0].provenance.sourceObject).toBe(
      "catalog",
    );
  });

  it("reads SQLite's legacy double-quoted strings the way SQLite would", async () => {
    const r = await kb.execute(sql('SELECT "name" FROM customer WHERE country = "France"'));
    expect(r.records).toEqual([{ name: "Marie Curie" }]);
  });

  it("caps a million-row query at maxRows without reading the rest, and says it was truncated", async () => {
    const started = performance.now();
    const r = await kb.execute(sql("SELECT a.n AS a, b.n AS b FROM numbers a CROSS JOIN numbers b"), { maxRows: 1000 });
    expect(r.records).toHaveLength(1000);
    expect(r.truncated).toBe(true);
    const cte = await kb.execute(sql("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000) SELECT x FROM c"));
    expect(cte.records).toHaveLength(DEFAULT_EXECUTE_OPTIONS.maxRows);
    expect(cte.truncated).toBe(true);
    expect(performance.now() - started).toBeLessThan(3_000);
    const exact = await kb.execute(sql("SELECT n FROM numbers WHERE n <= 10"), { maxRows: 10 });
    expect(exact.truncated).toBe(false);
  });

  it("stops a runaway query at the timeout, then runs the next query normally", async () => {
    const started = performance.now();
    const runaway = kb.execute(sql("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"), {
      timeoutMs: 500,
    });
    await expect(runaway).rejects.toBeInstanceOf(QueryTimeoutError);
    await expect(runaway).rejects.toThrow("The query ran longer than 500 ms and was stopped.");
    expect(performance.now() - started).toBeLessThan(2_500);
    expect((await kb.execute(sql("SELECT count(*) AS n FROM customer"))).records).toEqual([{ n: 4 }]);
  });

  it("stops a running query when its signal aborts", async () => {
    const controller = new AbortController();
    const started = performance.now();
    const running = kb.execute(sql("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT max(x) FROM c"), {
      signal: controller.signal,
      timeoutMs: 30_000,
    });
    setTimeout(() => controller.abort(new Error("the user cancelled the run")), 200);
    await expect(running).rejects.toThrow("the user cancelled the run");
    expect(performance.now() - started).toBeLessThan(2_500);
    expect((await kb.execute(sql("SELECT 1 AS one"))).records).toEqual([{ one: 1 }]);
  });

  /** Each attempt is refused with a clear error, and afterwards the file and its rows are exactly as before. */
  const ATTACKS: [string, string, RegExp][] = [
    ["two statements", "SELECT 1; DELETE FROM customer", /holds 2 statements/],
    ["a write after a comment", "SELECT * FROM customer; -- report\nDELETE FROM customer", /holds 2 statements/],
    ["a write after a block comment", "SELECT 1 /* ; */; UPDATE customer SET name = 'x'", /holds 2 statements/],
    [
      "a write inside a CTE",
      "WITH d AS (DELETE FROM customer RETURNING *) SELECT * FROM d",
      /WITH clause may only hold SELECT queries, and this one holds DELETE/,
    ],
    ["DELETE", "DELETE FROM customer", /DELETE is not allowed/],
    ["DROP", 'DROP TABLE "order"', /DROP is not allowed/],
    ["ATTACH", `ATTACH DATABASE '${path.join(tmpdir(), "mosaic-evil.sqlite")}' AS evil`, /ATTACH is not allowed/],
    ["PRAGMA write", "PRAGMA query_only = OFF", /PRAGMA is not allowed/],
    ["PRAGMA after a SELECT", "SELECT 1; PRAGMA writable_schema = ON", /holds 2 statements/],
    ["VACUUM INTO", `VACUUM INTO '${path.join(tmpdir(), "mosaic-copy.sqlite")}'`, /VACUUM is not allowed/],
    ["load_extension", "SELECT load_extension('/tmp/evil.so')", /load_extension\(\) is not allowed/],
    ["writefile", "SELECT writefile('/tmp/mosaic-x', 'pwned')", /writefile\(\) is not allowed/],
    ["a nested-comment trick", "SELECT 1 /* /* */ ; DELETE FROM customer; -- */", /holds 2 statements/],
  ];

  it.each(ATTACKS)("refuses %s and leaves the data untouched", async (_, text, reason) => {
    const before = await counts();
    const attempt = kb.execute(sql(text));
    await expect(attempt).rejects.toBeInstanceOf(QueryRejectedError);
    await expect(attempt).rejects.toThrow(reason);
    expect(await counts()).toEqual(before);
    expect(fileHash(file)).toBe(hashBefore);
  });

  it("has SQLite itself refuse writes that reach it without the parser (the second wall)", async () => {
    const engine = new SqliteEngine(file);
    const run = (text: string) => engine.runQuery(text, DEFAULT_EXECUTE_OPTIONS);
    try {
      await expect(run("DELETE FROM customer")).rejects.toThrow(/only statements that return rows may run/);
      await expect(run("DELETE FROM customer RETURNING *")).rejects.toThrow(/would change the database/);
      await expect(run("PRAGMA query_only = OFF")).rejects.toThrow(/only statements that return rows may run/);
      await expect(run("SELECT 1; DELETE FROM customer")).rejects.toThrow(/SQLite found more than one/);
      await expect(run("SELECT load_extension('x')")).rejects.toBeInstanceOf(QueryRejectedError);
      await expect(run(`ATTACH DATABASE '${path.join(tmpdir(), "mosaic-evil.sqlite")}' AS evil`)).rejects.toBeInstanceOf(
        QueryRejectedError,
      );
    } finally {
      await engine.close();
    }
    expect(fileHash(file)).toBe(hashBefore);
  });

  it("refuses queries in another language and reports SQL errors clearly", async () => {
    await expect(kb.execute({ language: "cypher", text: "MATCH (n) RETURN n" })).rejects.toThrow(
      "Query refused: this knowledge base answers SQL queries, not cypher.",
    );
    const failed = kb.execute(sql("SELECT nope FROM customer"));
    await expect(failed).rejects.toBeInstanceOf(QueryExecutionError);
    await expect(failed).rejects.toThrow("SQLite could not run the query: no such column: nope.");
    await expect(kb.execute(sql("SELECT FROM WHERE"))).rejects.toBeInstanceOf(QuerySyntaxError);
  });

  it("previews a table with its total row count", async () => {
    const p = await kb.preview("order", { limit: 2 });
    expect(p).toEqual({
      kind: "table",
      title: "Table order",
      columns: ["order_id", "customer_id", "sku", "quantity", "placed_on"],
      rows: [
        [100, 1, "TENT-2", 1, "2024-03-01"],
        [101, 2, "BAG-1", 2, "2024-03-02"],
      ],
      totalRows: 4,
      truncated: true,
    });
    expect((await kb.preview("product")).truncated).toBe(false);
    await expect(kb.preview("no_such_table")).rejects.toThrow('There is no table "no_such_table" in Shop.');
  });

  it("indexes table names, column names as words and name-like values", async () => {
    const entries = await kb.entityIndex();
    expect(entries).toContainEqual({ label: "order", kind: "table", ref: "order", sourceObject: "order" });
    expect(entries).toContainEqual({ label: "loyalty points", kind: "column", ref: "customer.loyalty_points", sourceObject: "customer" });
    expect(entries).toContainEqual({ label: "Grace Hopper", kind: "value", ref: "customer.name=Grace Hopper", sourceObject: "customer" });
    expect(entries).toContainEqual({
      label: "Arctic Sleeping Bag",
      kind: "value",
      ref: "product.title=Arctic Sleeping Bag",
      sourceObject: "product",
    });
    // Dates and numbers stored as text are not names.
    expect(entries.some((e) => e.label === "2024-03-01")).toBe(false);
    expect(await kb.entityIndex({ limit: 6 })).toHaveLength(6);
  });

  it("left the file byte-for-byte as it was", () => {
    expect(fileHash(file)).toBe(hashBefore);
  });
});

describe("SQL backend on files it cannot use", () => {
  it("says the file is missing, and what to do", async () => {
    const ctx = newKb("Missing");
    const kb = open("gone.sqlite", ctx);
    const health = await kb.check();
    expect(health.ok).toBe(false);
    // The file's name, never the server's path to it.
    expect(health.message).toBe("The database file of this knowledge base (gone.sqlite) is missing. Upload the database again.");
    await expect(kb.execute(sql("SELECT 1"))).rejects.toBeInstanceOf(BackendUnavailableError);
  });

  it("says a file is not a SQLite database", async () => {
    const ctx = newKb("NotSqlite");
    writeFileSync(path.join(ctx.storageDir, "database.sqlite"), "name,country\nAda,UK\n".repeat(200));
    const health = await open("database.sqlite", ctx).check();
    expect(health.ok).toBe(false);
    expect(health.message).toBe("database.sqlite is not a SQLite database, or it is damaged. Upload a SQLite database file.");
  });
});

const DATASETS = path.resolve(process.env.DATASETS_DIR ?? "../shared/datasets");
const SPIDER = path.join(DATASETS, "spider", "database");
const spiderFile = (db: string) => path.join(SPIDER, db, `${db}.sqlite`);
const haveSpider = existsSync(spiderFile("concert_singer")) && existsSync(spiderFile("world_1"));

describe.skipIf(!haveSpider)("SQL backend on Spider's SQLite databases", () => {
  it("describes concert_singer with keys and examples, and answers its gold queries", async () => {
    const kb = open(spiderFile("concert_singer"), newKb("concert_singer"));
    const d = await kb.describe();
    expect(d.text).toContain("CREATE TABLE singer (\n  Singer_ID INT,\n  Name TEXT,");
    expect(d.text).toContain(
      "  PRIMARY KEY (concert_ID, Singer_ID),\n  FOREIGN KEY (Singer_ID) REFERENCES singer(Singer_ID),\n  FOREIGN KEY (concert_ID) REFERENCES concert(concert_ID)",
    );
    expect(d.text).toContain("-- examples: singer.Country: 'Netherlands', 'United States', 'France'");
    expect(d.stats).toMatchObject({ tables: 4, foreignKeys: 3 });

    const questions = JSON.parse(readFileSync(path.join(DATASETS, "spider", "dev-questions.json"), "utf8")) as {
      db_id: string;
      query: string;
    }[];
    const gold = questions.filter((q) => q.db_id === "concert_singer");
    expect(gold.length).toBeGreaterThan(20);
    for (const q of gold) {
      const r = await kb.execute(sql(q.query));
      expect(kb.verbalize(r)).toHaveLength(r.records.length);
    }
    const oldest = kb.verbalize(await kb.execute(sql("SELECT Name, Country, Age FROM singer ORDER BY Age DESC LIMIT 1")));
    expect(oldest[0].text).toBe("singer / Name: Joe Sharp, Country: Netherlands, Age: 52");
  });

  it("locates world_1 rows by their text primary key and links its names", async () => {
    const kb = open(spiderFile("world_1"), newKb("world_1"));
    const pieces = kb.verbalize(await kb.execute(sql("SELECT Code, Name, Continent FROM country WHERE Name = 'Netherlands'")));
    expect(pieces[0]).toMatchObject({
      text: "country / Code: NLD, Name: Netherlands, Continent: Europe",
      provenance: { location: { table: "country", key: "Code=NLD" } },
    });
    const entries = await kb.entityIndex({ limit: 2_000 });
    expect(entries.filter((e) => e.kind === "table").map((e) => e.ref)).toEqual(["city", "country", "countrylanguage"]);
    expect(entries).toContainEqual({ label: "Country Code", kind: "column", ref: "city.CountryCode", sourceObject: "city" });
    expect(entries.length).toBeLessThanOrEqual(2_000);
    expect(entries.some((e) => e.kind === "value" && e.ref.startsWith("country.Name="))).toBe(true);
    const preview = await kb.preview("city", { limit: 3 });
    expect(preview).toMatchObject({ kind: "table", totalRows: 4079, truncated: true });
  });

  // How long it takes is measured, not asserted (row counts now run in the killable query process, issue 31).
  it("describes every Spider database within the size bounds", async () => {
    const dbs = readdirSync(SPIDER).filter((db) => existsSync(spiderFile(db)));
    for (const db of dbs) {
      const d = await describeSqliteFile(spiderFile(db));
      expect(d.text.length, db).toBeLessThanOrEqual(DESCRIPTOR_MAX_CHARS);
      expect(d.compact.length, db).toBeLessThanOrEqual(COMPACT_MAX_CHARS);
      expect(d.text, db).toContain("CREATE TABLE");
    }
    expect(dbs.length).toBeGreaterThan(150);
  }, 300_000);
});
