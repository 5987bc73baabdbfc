import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BackendUnavailableError } from "@/lib/backends/errors";
import { createSqlBackend, type PostgresConfig } from "@/lib/backends/sql";
import { PostgresEngine } from "@/lib/backends/sql/postgres/engine";
import type { KnowledgeBackend } from "@/lib/backends/types";
import { queryAttackOutcome, queryAttacks, sqlText } from "../../support/attack-corpus";

/**
 * PostgreSQL knowledge bases under attack (npm run test:services starts a real server): least privilege
 * (a superuser or a role that can write is refused unless an admin accepts the risk), and the attack
 * corpus run both through a read-only role and through an accepted superuser connection, the worst
 * case of the issue, where ts_stat, dblink and file functions would otherwise have run. The data must
 * come out exactly as it went in, and no message may show a secret.
 */
const ADMIN_URL = process.env.TEST_POSTGRES_URL;

const SCHEMA = `
  CREATE TABLE customer (customer_id serial PRIMARY KEY, name text NOT NULL, country text);
  INSERT INTO customer (name, country) VALUES ('Ada Lovelace', 'United Kingdom'), ('Grace Hopper', 'United States');
  CREATE TABLE numbers (n int);
  INSERT INTO numbers SELECT generate_series(1, 1000);
  CREATE INDEX customer_name_idx ON customer (name);
  CREATE FUNCTION forget_customers() RETURNS int LANGUAGE sql AS 'DELETE FROM customer RETURNING 1';
  -- Issue 31, case 4: a schema the knowledge base was not registered with, and a view of its schema over it.
  CREATE SCHEMA private;
  CREATE TABLE private.secrets (secret text);
  INSERT INTO private.secrets VALUES ('the launch code');
  CREATE VIEW leak AS SELECT secret FROM private.secrets;
`;

describe.skipIf(!ADMIN_URL)("PostgreSQL knowledge bases under attack", () => {
  const suffix = randomBytes(4).toString("hex");
  const database = `mosaic_attack_${suffix}`;
  const roles = {
    reader: `mosaic_reader_${suffix}`,
    writer: `mosaic_writer_${suffix}`,
    creator: `mosaic_creator_${suffix}`,
    files: `mosaic_files_${suffix}`,
    wide: `mosaic_wide_${suffix}`,
    given: `mosaic_given_${suffix}`,
  };
  const password = `pw-${randomBytes(8).toString("hex")}`;
  let owner: pg.Client;
  let base: PostgresConfig;
  const opened: KnowledgeBackend[] = [];
  const open = (user: string, accepted = false) => {
    const b = createSqlBackend(
      { ...base, user },
      { password },
      { kbId: `kb-${user}`, kbName: "Shop", storageDir: "/tmp", privilegeRiskAccepted: accepted },
    );
    opened.push(b);
    return b;
  };

  async function fingerprint(): Promise<string> {
    const r = await owner.query(`
      SELECT (SELECT md5(string_agg(c::text, '|' ORDER BY customer_id)) FROM customer c) AS customers,
             (SELECT count(*) FROM numbers) AS numbers,
             (SELECT string_agg(tablename, ',' ORDER BY tablename) FROM pg_tables WHERE schemaname = 'public') AS tables,
             (SELECT last_value FROM customer_customer_id_seq) AS seq,
             (SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()) > 0 AS alive,
             (SELECT count(*) FROM pg_locks WHERE locktype = 'advisory') AS advisory_locks`);
    return JSON.stringify(r.rows[0]);
  }

  beforeAll(async () => {
    const admin = new pg.Client({ connectionString: ADMIN_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${database}`);
    for (const role of Object.values(roles)) await admin.query(`CREATE ROLE ${role} LOGIN PASSWORD '${password}'`);
    await admin.query(`GRANT pg_read_server_files TO ${roles.files}`);
    await admin.end();
    const url = new URL(ADMIN_URL!);
    url.pathname = `/${database}`;
    owner = new pg.Client({ connectionString: url.toString() });
    await owner.connect();
    await owner.query(SCHEMA);
    await owner.query(`REVOKE CREATE ON SCHEMA public FROM PUBLIC`);
    for (const role of Object.values(roles))
      await owner.query(`GRANT USAGE ON SCHEMA public TO ${role}; GRANT SELECT ON ALL TABLES IN SCHEMA public TO ${role}`);
    await owner.query(`GRANT INSERT, UPDATE ON customer TO ${roles.writer}`);
    await owner.query(`GRANT CREATE ON SCHEMA public TO ${roles.creator}`);
    await owner.query(`GRANT USAGE ON SCHEMA private TO ${roles.wide}; GRANT SELECT ON private.secrets TO ${roles.wide}`);
    const server = new URL(ADMIN_URL!);
    base = {
      dialect: "postgres",
      host: server.hostname,
      port: Number(server.port),
      database,
      user: roles.reader,
      schema: "public",
      ssl: false,
    };
  });

  afterAll(async () => {
    await Promise.all(opened.map((b) => b.close()));
    await owner?.end();
    if (!ADMIN_URL) return;
    const admin = new pg.Client({ connectionString: ADMIN_URL });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    for (const role of Object.values(roles)) await admin.query(`DROP ROLE IF EXISTS ${role}`);
    await admin.end();
  });

  describe("least privilege", () => {
    it("accepts a role that may only read, and says nothing more is needed", async () => {
      const health = await open(roles.reader).check();
      expect(health).toMatchObject({ ok: true, privilegeRisks: [] });
      expect(health.message).toMatch(/^Connected \(PostgreSQL \d+/);
    });

    it("refuses a superuser, saying why and what to do", async () => {
      const superuser = new URL(ADMIN_URL!).username || "postgres";
      const kb = open(superuser);
      const health = await kb.check();
      expect(health.ok).toBe(false);
      expect(health.refused).toBe(true);
      expect(health.message).toMatch(new RegExp(`^Refused: The PostgreSQL user "${superuser}" is a superuser \\(it can read server files`));
      expect(health.message).toContain(
        "Connect with a role that may only read (GRANT SELECT on the knowledge base's tables), or, as an admin, accept the risk for this knowledge base.",
      );
      await expect(kb.execute({ language: "sql", text: "SELECT name FROM customer" })).rejects.toBeInstanceOf(BackendUnavailableError);
    });

    it("refuses a role that can write, naming the tables", async () => {
      const health = await open(roles.writer).check();
      expect(health).toMatchObject({ ok: false, refused: true });
      expect(health.privilegeRisks).toEqual(["can change data (public.customer)"]);
    });

    it("refuses a role that can create objects", async () => {
      const health = await open(roles.creator).check();
      expect(health).toMatchObject({ ok: false, refused: true });
      expect(health.privilegeRisks).toEqual(["can create objects (schema public)"]);
    });

    it("refuses a member of pg_read_server_files", async () => {
      const health = await open(roles.files).check();
      expect(health).toMatchObject({ ok: false, refused: true });
      expect(health.privilegeRisks).toEqual(["is a member of pg_read_server_files (it can read any file the server can)"]);
    });

    it("refuses a role that can read another schema, naming the tables (issue 31, case 4)", async () => {
      const health = await open(roles.wide).check();
      expect(health).toMatchObject({ ok: false, refused: true });
      expect(health.privilegeRisks).toEqual(['can read tables outside the schema "public" (private.secrets)']);
    });

    it("says which session functions every role may execute, and refuses a role given server-file functions", async () => {
      const health = await open(roles.reader).check();
      expect(health.message).toMatch(
        /may execute pg_sleep\(\), .*pg_terminate_backend\(\), .*pg_advisory_lock\(\), .*current_setting\(\), set_config\(\), .*ts_stat\(\), .*query_to_xml\(\)/,
      );
      await owner.query(`GRANT EXECUTE ON FUNCTION pg_read_file(text) TO ${roles.given}`);
      const given = await open(roles.given).check();
      expect(given.privilegeRisks).toContain("may execute functions that reach outside the database (pg_read_file())");
    });

    it("lets an admin accept the risk, and keeps saying so", async () => {
      const kb = open(roles.writer, true);
      const health = await kb.check();
      expect(health.ok).toBe(true);
      expect(health.message).toMatch(
        /can change data \(public\.customer\)\. An admin accepted this risk\. The PostgreSQL user "\w+" may execute pg_sleep\(\)/,
      );
      expect((await kb.execute({ language: "sql", text: "SELECT count(*) AS n FROM customer" })).records).toEqual([{ n: 2 }]);
    });
  });

  const cases = queryAttacks("sql-postgres");
  const SECRET = /SCRAM-SHA-256|md5[0-9a-f]{32}|root:x:0:0|PRIVATE KEY|pw-[0-9a-f]{16}|the launch code/;

  async function attack(kb: KnowledgeBackend, a: (typeof cases)[number], roleCanReach = true) {
    const before = await fingerprint();
    // A role without the privilege is stopped by PostgreSQL first; the checks must refuse it where the role could read.
    if (a.reaches && !roleCanReach) a = { ...a, expect: "contained", says: /may not read this|is not allowed/ };
    const outcome = await queryAttackOutcome(a, () =>
      kb.execute({ language: "sql", text: sqlText(a, { table: "customer", column: "name" }) }, { timeoutMs: a.timeoutMs ?? 5_000 }),
    );
    expect(outcome).toMatch(a.says);
    expect(outcome).not.toMatch(SECRET);
    expect(await fingerprint()).toBe(before);
  }

  describe("nothing of a query outlives it (issue 31, case 3)", () => {
    it("releases session-level advisory locks, settings and cursors when the connection goes back to the pool", async () => {
      // Our own reads skip the query checks, so they can take what a query that slipped through would.
      const engine = new PostgresEngine({ ...base, user: roles.reader }, password);
      try {
        const read = (sql: string) => engine.readInternal(sql, { timeoutMs: 5_000, maxRows: 1 });
        await read("SELECT pg_advisory_lock(987654), set_config('work_mem', '1GB', false), set_config('search_path', 'private', false)");
        const locks = await owner.query("SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory'");
        expect(locks.rows[0].n).toBe(0);
        // The pool hands the same connection back (one at a time here): its settings are the connection's own again.
        const after = await read("SELECT current_setting('work_mem'), pg_backend_pid()");
        const again = await read("SELECT current_setting('work_mem'), pg_backend_pid()");
        expect(after.rows[0]![1]).toBe(again.rows[0]![1]);
        expect(after.rows[0]![0]).not.toBe("1GB");
      } finally {
        await engine.close();
      }
    });

    it("runs queries under SET LOCAL limits", async () => {
      const engine = new PostgresEngine({ ...base, user: roles.reader }, password);
      try {
        const r = await engine.readInternal(
          "SELECT current_setting('statement_timeout'), current_setting('lock_timeout'), current_setting('work_mem'), current_setting('idle_in_transaction_session_timeout')",
          { timeoutMs: 3_000, maxRows: 1 },
        );
        expect(r.rows[0]).toEqual(["3s", "3s", "32MB", "10s"]);
      } finally {
        await engine.close();
      }
    });
  });

  describe("the corpus through a read-only role", () => {
    it.each(cases.map((c) => [c.name, c] as const))("%s", async (_, a) => attack(open(roles.reader), a, false));
  });

  describe("what reaches other schemas, through a role that can read them whose risk an admin accepted", () => {
    it.each(cases.filter((c) => c.reaches === "other-schemas").map((c) => [c.name, c] as const))("%s", async (_, a) =>
      attack(open(roles.wide, true), a),
    );
  });

  describe("the corpus through a superuser whose risk an admin accepted (the worst case)", () => {
    let superKb: KnowledgeBackend;
    beforeAll(() => {
      superKb = open(new URL(ADMIN_URL!).username || "postgres", true);
    });
    it.each(cases.map((c) => [c.name, c] as const))("%s", async (_, a) => attack(superKb, a));
  });
});
