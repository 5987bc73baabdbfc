import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { QueryRejectedError, QueryTimeoutError } from "@/lib/backends/errors";
import { createSqlBackend, type PostgresConfig } from "@/lib/backends/sql";
import { PostgresEngine } from "@/lib/backends/sql/postgres/engine";
import { DEFAULT_EXECUTE_OPTIONS, type KnowledgeBackend, type RowData } from "@/lib/backends/types";

/**
 * The SQL backend against a real PostgreSQL server (npm run test:services starts one and sets
 * TEST_POSTGRES_URL to its admin URL). The test makes its own database and read-only role, and drops
 * both afterwards.
 */
const ADMIN_URL = process.env.TEST_POSTGRES_URL;
const sql = (text: string) => ({ language: "sql" as const, text });

const SCHEMA = `
  CREATE TABLE customer (customer_id serial PRIMARY KEY, name text NOT NULL, country varchar(40), loyalty_points bigint,
                         balance numeric(12, 2), born date, last_seen timestamptz, avatar bytea, prefs jsonb);
  CREATE TABLE product (sku text PRIMARY KEY, title text NOT NULL, price numeric(8, 2));
  CREATE TABLE "Order" (order_id int PRIMARY KEY, customer_id int NOT NULL REFERENCES customer(customer_id),
                        sku text REFERENCES product(sku), quantity int, placed_at timestamp);
  CREATE TABLE numbers (n int);
  INSERT INTO customer (name, country, loyalty_points, balance, born, last_seen, avatar, prefs) VALUES
    ('Ada Lovelace', 'United Kingdom', 120, 10.50, '1815-12-10', '2024-03-01T10:00:00Z', '\\x01020304', '{"newsletter": true}'),
    ('Grace Hopper', 'United States', 9007199254740993, 0.10, '1906-12-09', NULL, NULL, NULL),
    ('Alan Turing', 'United Kingdom', 40, 3.00, '1912-06-23', NULL, NULL, NULL),
    ('Marie Curie', 'France', 75, 7.25, '1867-11-07', NULL, NULL, NULL);
  INSERT INTO product VALUES ('TENT-2', 'Summit 2 Tent', 349.00), ('BAG-1', 'Arctic Sleeping Bag', 399.00), ('BOOT-9', 'Ridge Hiking Boot', 189.50);
  INSERT INTO "Order" VALUES (100, 1, 'TENT-2', 1, '2024-03-01 09:30:00'), (101, 2, 'BAG-1', 2, '2024-03-02 12:00:00'),
                             (102, 2, 'TENT-2', 1, '2024-04-11 08:15:00'), (103, 4, 'BOOT-9', 3, '2024-05-20 17:45:00');
  INSERT INTO numbers SELECT generate_series(1, 1000);
  -- A function that writes: the parser cannot know what it does, the READ ONLY transaction does.
  CREATE FUNCTION forget_customers() RETURNS int LANGUAGE sql AS 'DELETE FROM customer RETURNING 1';
  CREATE SCHEMA sales;
  CREATE TABLE sales.region (region_id int PRIMARY KEY, name text);
  INSERT INTO sales.region VALUES (1, 'Nordics'), (2, 'Central Europe');
`;

describe.skipIf(!ADMIN_URL)("SQL backend on PostgreSQL", () => {
  const suffix = randomBytes(4).toString("hex");
  const database = `mosaic_sql_${suffix}`;
  const role = `mosaic_reader_${suffix}`;
  const salesRole = `mosaic_sales_${suffix}`;
  const password = `pw-${randomBytes(8).toString("hex")}`;
  let server: URL;
  let owner: pg.Client;
  let config: PostgresConfig;
  let kb: KnowledgeBackend;
  const opened: KnowledgeBackend[] = [];
  const open = (overrides: Partial<PostgresConfig> = {}, secret: string | undefined = password) => {
    const b = createSqlBackend(
      { ...config, ...overrides },
      { password: secret },
      { kbId: `kb-${database}`, kbName: "Shop", storageDir: "/tmp" },
    );
    opened.push(b);
    return b;
  };

  /** Everything an attack could change: every row of every table, the tables and functions, the sequence. */
  async function fingerprint(): Promise<string> {
    const r = await owner.query(`
      SELECT (SELECT md5(string_agg(c::text, '|' ORDER BY customer_id)) FROM customer c) AS customers,
             (SELECT md5(string_agg(o::text, '|' ORDER BY order_id)) FROM "Order" o) AS orders,
             (SELECT md5(string_agg(p::text, '|' ORDER BY sku)) FROM product p) AS products,
             (SELECT count(*) FROM numbers) AS numbers,
             (SELECT string_agg(table_schema || '.' || table_name, ',' ORDER BY 1) FROM information_schema.tables WHERE table_schema IN ('public', 'sales')) AS tables,
             (SELECT last_value FROM customer_customer_id_seq) AS seq`);
    return JSON.stringify(r.rows[0]);
  }

  beforeAll(async () => {
    server = new URL(ADMIN_URL!);
    const admin = new pg.Client({ connectionString: ADMIN_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${database}`);
    await admin.query(`CREATE ROLE ${role} LOGIN PASSWORD '${password}'`);
    await admin.query(`CREATE ROLE ${salesRole} LOGIN PASSWORD '${password}'`);
    await admin.end();
    const url = new URL(ADMIN_URL!);
    url.pathname = `/${database}`;
    owner = new pg.Client({ connectionString: url.toString() });
    await owner.connect();
    await owner.query(SCHEMA);
    // A role per schema: a role that could read both would be a risk for either knowledge base (privileges.ts).
    await owner.query(`GRANT USAGE ON SCHEMA public TO ${role}; GRANT SELECT ON ALL TABLES IN SCHEMA public TO ${role}`);
    await owner.query(`GRANT USAGE ON SCHEMA sales TO ${salesRole}; GRANT SELECT ON ALL TABLES IN SCHEMA sales TO ${salesRole}`);
    config = { dialect: "postgres", host: server.hostname, port: Number(server.port), database, user: role, schema: "public", ssl: false };
    kb = open();
  });

  afterAll(async () => {
    await Promise.all(opened.map((b) => b.close()));
    await owner?.end();
    if (!ADMIN_URL) return;
    const admin = new pg.Client({ connectionString: ADMIN_URL });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.query(`DROP ROLE IF EXISTS ${role}`);
    await admin.query(`DROP ROLE IF EXISTS ${salesRole}`);
    await admin.end();
  });

  it("checks the connection", async () => {
    const health = await kb.check();
    expect(health.ok).toBe(true);
    expect(health.message).toMatch(/^Connected \(PostgreSQL \d+\.\d+, 4 tables\)\. /);
    // What every role may execute by default is said, not refused: the query checks refuse the calls.
    expect(health.message).toMatch(
      /The PostgreSQL user "\w+" may execute pg_sleep\(\), .*pg_terminate_backend\(\), .*ts_stat\(\), .* as every role may unless a database administrator revokes them/,
    );
    expect(health.privilegeRisks).toEqual([]);
  });

  it("describes the schema as CREATE TABLE statements with keys, row counts and examples", async () => {
    const d = await kb.describe();
    expect(d.text).toContain(
      `-- PostgreSQL database "Shop" (database ${database} on ${server.hostname}:${server.port}, schema public; PostgreSQL `,
    );
    expect(d.text).toContain(
      'CREATE TABLE "Order" (\n  order_id integer,\n  customer_id integer NOT NULL,\n  sku text,\n  quantity integer,\n  placed_at timestamp without time zone,\n' +
        "  PRIMARY KEY (order_id),\n  FOREIGN KEY (customer_id) REFERENCES customer(customer_id),\n  FOREIGN KEY (sku) REFERENCES product(sku)\n);",
    );
    expect(d.text).toContain("  country character varying(40),");
    expect(d.text).toContain("-- examples: customer.country: 'United Kingdom', 'United States', 'France'");
    expect(d.text).toContain("-- customer: 4 rows");
    expect(d.text).not.toContain("sales.region");
    expect(d.stats).toEqual({ tables: 4, columns: 18, rows: 1011, foreignKeys: 2 });
    expect((await open().describe()).version).toBe(d.version);
    const sales = await open({ schema: "sales", user: salesRole }).describe();
    expect(sales.compact).toBe('PostgreSQL "Shop": 1 table.\nregion(region_id, name)');
  });

  it("lists one source unit per table", async () => {
    const units = await kb.sourceUnits();
    expect(units.map((u) => u.key).sort()).toEqual(["Order", "customer", "numbers", "product"]);
    const order = units.find((u) => u.key === "Order")!;
    expect(order.tags).toEqual(["postgres", "table", "has-foreign-keys"]);
    expect(order.description).toMatch(
      /^Table Order: 4 rows; columns order_id \(integer, primary key\), customer_id \(integer, → customer\)/,
    );
  });

  it("runs a SELECT in a read-only transaction and returns JSON-safe records", async () => {
    const r = await kb.execute(
      sql("SELECT customer_id, name, loyalty_points, balance, born, last_seen, avatar, prefs FROM customer ORDER BY customer_id LIMIT 2;"),
    );
    expect(r.records).toEqual([
      {
        customer_id: 1,
        name: "Ada Lovelace",
        loyalty_points: 120,
        balance: 10.5,
        born: "1815-12-10",
        last_seen: "2024-03-01T10:00:00.000Z",
        avatar: "<binary 4 bytes>",
        prefs: { newsletter: true },
      },
      {
        customer_id: 2,
        name: "Grace Hopper",
        loyalty_points: "9007199254740993",
        balance: 0.1,
        born: "1906-12-09",
        last_seen: null,
        avatar: null,
        prefs: null,
      },
    ]);
    const placed = await kb.execute(sql('SELECT placed_at FROM "Order" WHERE order_id = 100'));
    expect(placed.records).toEqual([{ placed_at: "2024-03-01 09:30:00" }]);
    // current_setting is not for queries (it reads server settings, and the plan check refuses it); the engine's own reads may call it.
    const engine = new PostgresEngine(config, password);
    try {
      await expect(engine.runQuery("SELECT current_setting('work_mem')", DEFAULT_EXECUTE_OPTIONS)).rejects.toThrow(
        /current_setting\(\) is not allowed/,
      );
      const readOnly = await engine.readInternal(
        "SELECT current_setting('transaction_read_only'), current_setting('statement_timeout'), current_setting('lock_timeout'), current_setting('work_mem')",
        { timeoutMs: 1_500, maxRows: 1 },
      );
      expect(readOnly.rows).toEqual([["on", "1500ms", "1500ms", "32MB"]]);
    } finally {
      await engine.close();
    }
  });

  it("verbalizes rows of one table by primary key, and joins as a query result", async () => {
    const rows = kb.verbalize(
      await kb.execute(sql("SELECT customer_id, name, country FROM customer WHERE country = 'United Kingdom' ORDER BY customer_id")),
    );
    expect(rows.map((p) => p.text)).toEqual([
      "customer / customer_id: 1, name: Ada Lovelace, country: United Kingdom",
      "customer / customer_id: 3, name: Alan Turing, country: United Kingdom",
    ]);
    expect(rows[0].provenance).toMatchObject({ sourceObject: "customer", location: { table: "customer", key: "customer_id=1" } });
    expect((rows[0].data as RowData).key).toEqual({ customer_id: 1 });
    const joined = kb.verbalize(
      await kb.execute(
        sql(
          'SELECT c.name, p.title FROM "Order" o JOIN customer c USING (customer_id) JOIN product p USING (sku) ORDER BY o.order_id LIMIT 1',
        ),
      ),
    );
    expect(joined[0]).toMatchObject({
      text: "Query result / name: Ada Lovelace, title: Summit 2 Tent",
      entities: ["Ada Lovelace", "Summit 2 Tent"],
    });
  });

  it("fetches at most maxRows + 1 rows through a cursor and flags the rest as truncated", async () => {
    const started = performance.now();
    const r = await kb.execute(sql("SELECT a.n AS a, b.n AS b FROM numbers a CROSS JOIN numbers b"), { maxRows: 500 });
    expect(r.records).toHaveLength(500);
    expect(r.truncated).toBe(true);
    const cte = await kb.execute(sql("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000) SELECT x FROM c"), {
      maxRows: 10,
    });
    expect(cte.records.map((rec) => rec.x)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(cte.truncated).toBe(true);
    expect(performance.now() - started).toBeLessThan(3_000);
    expect((await kb.execute(sql("SELECT n FROM numbers WHERE n <= 3"), { maxRows: 3 })).truncated).toBe(false);
  });

  /** 10^12 rows to count: runs until something stops it. */
  const RUNAWAY = "SELECT count(*) FROM numbers a, numbers b, numbers c, numbers d";

  it("stops a runaway query past the timeout, then runs the next query normally", async () => {
    const started = performance.now();
    const sleeping = kb.execute(sql(RUNAWAY), { timeoutMs: 500 });
    await expect(sleeping).rejects.toBeInstanceOf(QueryTimeoutError);
    await expect(sleeping).rejects.toThrow("The query ran longer than 500 ms and was stopped.");
    expect(performance.now() - started).toBeLessThan(2_500);
    expect((await kb.execute(sql("SELECT count(*) AS n FROM customer"))).records).toEqual([{ n: 4 }]);
  });

  it("cancels a running query when its signal aborts", async () => {
    const controller = new AbortController();
    const started = performance.now();
    const running = kb.execute(sql(RUNAWAY), { signal: controller.signal, timeoutMs: 30_000 });
    setTimeout(() => controller.abort(new Error("the user cancelled the run")), 200);
    await expect(running).rejects.toThrow("the user cancelled the run");
    expect(performance.now() - started).toBeLessThan(3_000);
    expect((await kb.execute(sql("SELECT 1 AS one"))).records).toEqual([{ one: 1 }]);
  });

  const ATTACKS: [string, string, RegExp][] = [
    ["two statements", "SELECT 1; DELETE FROM customer", /holds 2 statements/],
    ["a write after a comment", "SELECT * FROM customer; -- report\nDELETE FROM customer", /holds 2 statements/],
    ["a write after a block comment", "SELECT 1 /* ; */; UPDATE customer SET name = 'x'", /holds 2 statements/],
    [
      "DELETE inside a CTE",
      "WITH gone AS (DELETE FROM customer WHERE true RETURNING *) SELECT count(*) FROM gone",
      /WITH clause may only hold SELECT.*DELETE/,
    ],
    [
      "UPDATE inside a CTE",
      "WITH u AS (UPDATE customer SET name = 'x' RETURNING *) SELECT * FROM u",
      /WITH clause may only hold SELECT.*UPDATE/,
    ],
    [
      "INSERT inside a CTE",
      "WITH i AS (INSERT INTO product VALUES ('X', 'x', 1) RETURNING *) SELECT * FROM i",
      /WITH clause may only hold SELECT.*INSERT/,
    ],
    ["COPY … TO PROGRAM", "COPY customer TO PROGRAM 'cat > /tmp/mosaic-stolen'", /COPY is not allowed/],
    ["COPY (query) TO a file", "COPY (SELECT * FROM customer) TO '/tmp/mosaic-stolen'", /COPY is not allowed/],
    ["SELECT INTO", "SELECT * INTO stolen FROM customer", /SELECT … INTO creates a table/],
    ["CREATE TABLE AS", "CREATE TABLE stolen AS SELECT * FROM customer", /CREATE is not allowed/],
    ["DROP", 'DROP TABLE "Order"', /DROP is not allowed/],
    ["TRUNCATE", "TRUNCATE customer CASCADE", /TRUNCATE is not allowed/],
    ["SET", "SET default_transaction_read_only = off", /SET is not allowed/],
    ["DO block", "DO $$ BEGIN DELETE FROM customer; END $$", /DO is not allowed/],
    ["nextval", "SELECT nextval('customer_customer_id_seq')", /nextval\(\) is not allowed/],
    ["set_config", "SELECT set_config('default_transaction_read_only', 'off', false)", /set_config\(\) is not allowed/],
    ["pg_read_file", "SELECT pg_read_file('/etc/passwd')", /pg_read_file\(\) is not allowed/],
    ["lo_import", "SELECT lo_import('/etc/passwd')", /lo_import\(\) is not allowed/],
    ["query_to_xml", "SELECT query_to_xml('DELETE FROM customer RETURNING 1', true, false, '')", /query_to_xml\(\) is not allowed/],
    ["pg_terminate_backend", "SELECT pg_terminate_backend(pid) FROM pg_stat_activity", /pg_terminate_backend\(\) is not allowed/],
    ["a function that writes", "SELECT forget_customers()", /forget_customers\(\) is not allowed/],
  ];

  it.each(ATTACKS)("refuses %s and leaves the data untouched", async (_, text, reason) => {
    const before = await fingerprint();
    const attempt = kb.execute(sql(text));
    await expect(attempt).rejects.toBeInstanceOf(QueryRejectedError);
    await expect(attempt).rejects.toThrow(reason);
    expect(await fingerprint()).toBe(before);
  });

  it("has the engine refuse writes that reach it without the parser (the second and third walls)", async () => {
    const before = await fingerprint();
    // A superuser connection: only the READ ONLY transaction and the cursor stand in the way.
    const engine = new PostgresEngine({ ...config, user: new URL(ADMIN_URL!).username || "postgres" }, undefined, {
      privilegeRiskAccepted: true,
    });
    const run = (text: string) => engine.runQuery(text, DEFAULT_EXECUTE_OPTIONS);
    try {
      await expect(run("SELECT nextval('customer_customer_id_seq')")).rejects.toBeInstanceOf(QueryRejectedError);
      // The plan names the call (the second wall); our own reads skip that check, and the READ ONLY transaction refuses the write.
      await expect(run("SELECT forget_customers()")).rejects.toThrow(/forget_customers\(\) is not allowed/);
      await expect(engine.readInternal("SELECT forget_customers()", { timeoutMs: 5_000, maxRows: 1 })).rejects.toThrow(
        /PostgreSQL refused it: the query tried to change something/,
      );
      await expect(run("DELETE FROM customer RETURNING *")).rejects.toThrow(/a write is not allowed/);
      await expect(run("SELECT 1; DELETE FROM customer")).rejects.toThrow(/cannot insert multiple commands|syntax/);
      await expect(run("SELECT * INTO stolen FROM customer")).rejects.toThrow();
    } finally {
      await engine.close();
    }
    expect(await fingerprint()).toBe(before);
  });

  it("previews a table with its total row count", async () => {
    const p = await kb.preview("Order", { limit: 2 });
    expect(p).toEqual({
      kind: "table",
      title: "Table Order",
      columns: ["order_id", "customer_id", "sku", "quantity", "placed_at"],
      rows: [
        [100, 1, "TENT-2", 1, "2024-03-01 09:30:00"],
        [101, 2, "BAG-1", 2, "2024-03-02 12:00:00"],
      ],
      totalRows: 4,
      truncated: true,
    });
  });

  it("indexes tables, columns and name-like values", async () => {
    const entries = await kb.entityIndex();
    expect(entries).toContainEqual({ label: "Order", kind: "table", ref: "Order", sourceObject: "Order" });
    expect(entries).toContainEqual({ label: "loyalty points", kind: "column", ref: "customer.loyalty_points", sourceObject: "customer" });
    expect(entries).toContainEqual({ label: "Marie Curie", kind: "value", ref: "customer.name=Marie Curie", sourceObject: "customer" });
    expect(entries).toContainEqual({
      label: "Ridge Hiking Boot",
      kind: "value",
      ref: "product.title=Ridge Hiking Boot",
      sourceObject: "product",
    });
  });

  it("says clearly why it cannot connect, and never shows the password", async () => {
    const secret = "hunter2-do-not-show";
    const cases: [Partial<PostgresConfig>, RegExp][] = [
      [{ database: "no_such_db" }, /^The database "no_such_db" does not exist on /],
      [{ user: "no_such_role" }, /^Authentication failed for user "no_such_role" on .*Check the user and the password\.$/],
      [{ port: 1 }, /^Connection refused at 127\.0\.0\.1:1: is PostgreSQL running there/],
      [{ schema: "no_such_schema" }, /^The schema "no_such_schema" does not exist in the database /],
    ];
    for (const [overrides, message] of cases) {
      const health = await open({ ...overrides, ...(overrides.port ? { host: "127.0.0.1" } : {}) }, secret).check();
      expect(health.ok).toBe(false);
      expect(health.message).toMatch(message);
      expect(health.message).not.toContain(secret);
    }
  });
});
