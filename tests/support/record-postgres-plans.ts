// Records EXPLAIN (VERBOSE, FORMAT JSON) output of a real PostgreSQL server for the plan walker's unit
// tests (tests/unit/backends/sql-plan-check.test.ts), so they run without a server:
//   npx tsx tests/support/record-postgres-plans.ts            (starts a throw-away server, as test:services does)
//   TEST_POSTGRES_URL=postgresql://… npx tsx tests/support/record-postgres-plans.ts
// Writes tests/fixtures/postgres-plans.json. Queries reach the planner only: nothing of them runs.
import { writeFileSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { startPostgres, type PostgresServer } from "./services/postgres";

/** The knowledge base's schema is `kb`; `private` is another schema the owner keeps. */
const SETUP = `
  CREATE SCHEMA kb; CREATE SCHEMA private;
  CREATE TYPE kb.mood AS ENUM ('ok', 'bad');
  CREATE TABLE kb.customer (id int PRIMARY KEY, name text, country varchar(40), n numeric(12, 2), m kb.mood, ip inet, prefs jsonb);
  INSERT INTO kb.customer SELECT g, 'n' || g, 'c' || (g % 5), g, 'ok', '10.0.0.1', '{}' FROM generate_series(1, 200) g;
  CREATE TABLE private.secrets (s text);
  CREATE VIEW kb.leaky AS SELECT c.name, s.s FROM kb.customer c, private.secrets s;
  CREATE FUNCTION kb.lower(kb.mood) RETURNS text LANGUAGE sql AS 'SELECT $1::text';
  CREATE FUNCTION kb.shout(text) RETURNS text LANGUAGE plpgsql AS 'BEGIN RETURN upper($1); END';
  CREATE OPERATOR public.!!! (RIGHTARG = float8, FUNCTION = pg_catalog.pg_sleep);
  ANALYZE;
`;

/** [name, query, what the walker must say: "ok" or a fragment of the refusal]. */
export const PLAN_CASES: [string, string, string][] = [
  ["a plain read", "SELECT name, country FROM customer WHERE id = 5", "ok"],
  [
    "aggregates, FILTER, ordered aggregates, LIKE, IN, HAVING, ORDER BY, LIMIT",
    "SELECT country, count(*), sum(n) FILTER (WHERE n > 3), string_agg(name, ',' ORDER BY name) FROM customer WHERE name LIKE 'n%' AND id IN (1, 2, 3) GROUP BY country HAVING count(*) > 1 ORDER BY 2 DESC LIMIT 5",
    "ok",
  ],
  [
    "SQL-standard syntax the deparser prints as keywords",
    "SELECT row_number() OVER (PARTITION BY country ORDER BY n), EXTRACT(year FROM now()), substring(name from 1 for 2), trim(both 'x' from name), position('a' in name), CASE WHEN n > 1 THEN 'a' ELSE 'b' END, coalesce(name, 'x'), greatest(n, 2), nullif(n, 2), CURRENT_DATE, now() AT TIME ZONE 'UTC', name COLLATE \"C\", ARRAY[n, 2], ROW(n, 2), name IS NULL, n::int, '2024-01-01'::date + 1, left(name, 2), n BETWEEN 1 AND 2, name IS DISTINCT FROM 'x' FROM customer",
    "ok",
  ],
  [
    "subqueries: scalar, EXISTS, IN, in ORDER BY",
    "SELECT name, (SELECT max(id) FROM customer), EXISTS (SELECT 1 FROM customer c2 WHERE c2.id = customer.id + 1), id IN (SELECT id FROM customer WHERE n > 50) FROM customer ORDER BY (SELECT min(id) FROM customer)",
    "ok",
  ],
  ["an enum of the knowledge base's schema and an inet literal", "SELECT name FROM customer WHERE m = 'ok' AND ip << '10.0.0.0/8'", "ok"],
  ["JSON look-ups", "SELECT prefs->>'a', prefs @> '{}', jsonb_typeof(prefs) FROM customer", "ok"],
  [
    "typmods and multi-word types",
    "SELECT '1.5'::numeric(10,2), now()::timestamp(3) without time zone, '1'::varchar(4), 2.5::float8",
    "ok",
  ],
  ["grouping sets", "SELECT country, count(*) FROM customer GROUP BY GROUPING SETS ((country), (name), ())", "ok"],
  ["a recursive CTE", "WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r WHERE i < 5) SELECT * FROM r", "ok"],
  ["unnest in FROM and a LATERAL subquery", "SELECT u, l.k FROM unnest(ARRAY[1, 2]) u, LATERAL (SELECT u + 1 AS k) l", "ok"],
  ["a string that looks like a call", "SELECT 'pg_sleep(10)' AS s, 'it''s' AS t FROM customer", "ok"],
  // Case 1: field notation resolved to calls.
  ["(2.5::float8).pg_sleep", "SELECT (2.5::float8).pg_sleep", "pg_sleep() is not allowed"],
  ["('server_version'::text).current_setting", "SELECT ('server_version'::text).current_setting", "current_setting() is not allowed"],
  ["x.ts_stat over unnest", "SELECT x.ts_stat FROM unnest(ARRAY['SELECT 1']) x", "ts_stat() is not allowed"],
  ["alias.pg_sleep over unnest", "SELECT x.pg_sleep FROM unnest(ARRAY[1.0::float8]) x", "pg_sleep() is not allowed"],
  // Case 3 and 14: an advisory lock and the stored form of case 1.
  ["(987654::bigint).pg_advisory_lock", "SELECT (987654::bigint).pg_advisory_lock", "pg_advisory_lock() is not allowed"],
  [
    "a guide's CTE with a field-notation sleep",
    "WITH s AS (SELECT (6.0::float8).pg_sleep) SELECT count(*) FROM s",
    "pg_sleep() is not allowed",
  ],
  [
    "field notation nested in a subquery in ORDER BY",
    "SELECT name FROM customer ORDER BY (SELECT u.pg_advisory_lock::text FROM unnest(ARRAY[5::bigint]) u)",
    "pg_advisory_lock() is not allowed",
  ],
  [
    "field notation in HAVING",
    "SELECT country FROM customer GROUP BY country HAVING (SELECT x.current_setting FROM unnest(ARRAY['work_mem']) x) IS NULL",
    "current_setting() is not allowed",
  ],
  [
    "field notation behind LATERAL",
    "SELECT s.v FROM customer c, LATERAL (SELECT x.pg_sleep AS v FROM unnest(ARRAY[c.n::float8]) x) s",
    "pg_sleep() is not allowed",
  ],
  // Case 4: other schemas, directly and through a view.
  [
    "private.secrets on a knowledge base of schema kb",
    "SELECT * FROM private.secrets",
    'private.secrets, which is outside this knowledge base\'s schema "kb"',
  ],
  ["a view of kb reading private.secrets", "SELECT * FROM leaky", "private.secrets, which is outside"],
  ["a system catalog", "SELECT rolname FROM pg_catalog.pg_roles", "pg_catalog.pg_authid, which is outside"],
  // Casts, operators, functions of the knowledge base's schema.
  ["cast to regclass", "SELECT 'pg_class'::regclass", "casting to regclass is not allowed"],
  ["cast to regproc", "SELECT 'pg_sleep'::regproc", "casting to regproc is not allowed"],
  ["an operator of another schema whose function sleeps", "SELECT OPERATOR(public.!!!) 0.1::float8", "operator public.!!! is not allowed"],
  ["a function of the knowledge base's schema", "SELECT shout(name) FROM customer", "shout() is not allowed"],
  ["a set-returning function in FROM", "SELECT * FROM generate_series(1, 3)", "generate_series() is not allowed"],
  ["CURRENT_USER", "SELECT CURRENT_USER", "CURRENT_USER is not allowed"],
  ["row locks", "SELECT * FROM customer FOR UPDATE", "row locks"],
];

async function main() {
  let server: PostgresServer | null = null;
  const url = process.env.TEST_POSTGRES_URL ?? (server = await startPostgres()).url;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  const database = `mosaic_plans_${process.pid}`;
  await admin.query(`CREATE DATABASE ${database}`);
  const target = new URL(url);
  target.pathname = `/${database}`;
  const client = new pg.Client({ connectionString: target.toString() });
  try {
    await client.connect();
    await client.query(SETUP);
    const version = (await client.query("SHOW server_version")).rows[0].server_version as string;
    await client.query("SET search_path = kb");
    const cases = [];
    for (const [name, sql, expect] of PLAN_CASES) {
      const r = await client.query(`EXPLAIN (VERBOSE, FORMAT JSON) ${sql}`);
      cases.push({ name, sql, expect, plan: r.rows[0]["QUERY PLAN"] });
    }
    const out = path.resolve(import.meta.dirname, "../fixtures/postgres-plans.json");
    writeFileSync(out, `${JSON.stringify({ server: `PostgreSQL ${version}`, schema: "kb", cases }, null, 1)}\n`);
    console.log(`wrote ${cases.length} plans from PostgreSQL ${version} to ${out}`);
  } finally {
    await client.end();
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.end();
    server?.stop();
  }
}

await main();
