import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeAllBackends, openBackend } from "@/lib/backends/registry";
import type { KbKind } from "@/lib/backends/types";
import type { CatalogDeps } from "@/lib/deps";
import { getKnowledgeBase, setPrivilegeRiskAcceptance } from "@/lib/catalog/knowledge-bases";
import type { RegisterKbInput } from "@/lib/catalog/knowledge-bases.validation";
import { checkKnowledgeBase } from "@/lib/catalog/refresh";
import { testConnection } from "@/lib/catalog/register";
import { registerKnowledgeBase } from "@/lib/ingest/register";
import { openAndBootstrap } from "@/lib/db/bootstrap";
import type { DatabaseHandle } from "@/lib/db/connect";
import { AppError } from "@/lib/errors";
import { createDynamicSourceObject, refreshDynamicSourceObject } from "@/lib/catalog/source-objects";
import { accessibleKb } from "@/lib/guides/access";
import { captureAction } from "@/lib/guides/capture";
import { runPipeline } from "@/lib/runs/run-pipeline";
import { UPLOAD_ATTACKS } from "../../support/attack-corpus";
import { TARGET_ENGINE, createTestDatabase, type TestDatabase } from "../support/test-database";

/**
 * Registering knowledge bases from hostile uploads (the upload part of the attack corpus) and from
 * PostgreSQL roles with more than read privileges. Uploads are refused with a plain message naming the
 * file, or registered harmlessly (a view that builds a 1 GB value gets no examples and its queries are
 * refused); nothing lands outside the knowledge base's folder.
 */
describe(`registering from hostile uploads and risky roles (${TARGET_ENGINE})`, () => {
  let db: TestDatabase;
  let handle: DatabaseHandle;
  let deps: CatalogDeps;
  let adminId: string;

  beforeAll(async () => {
    db = await createTestDatabase({ seed: true });
    handle = (await openAndBootstrap(db.env)).handle;
    deps = {
      dataDir: mkdtempSync(path.join(tmpdir(), "mosaic-attack-kbs-")),
      encryptionKey: Buffer.alloc(32, 7),
      datasetsDir: "../shared/datasets",
    };
    adminId = (await handle.prisma.user.findUniqueOrThrow({ where: { email: "admin@mosaic.local" } })).id;
  });
  afterAll(async () => {
    await closeAllBackends();
    await handle.close();
    await db.cleanup();
  });

  const CONNECTION: Record<string, RegisterKbInput["connection"]> = {
    SQL: { dialect: "sqlite" },
    SPARQL: { mode: "embedded" },
    DOCUMENTS: { language: "en" },
  };

  it.each(UPLOAD_ATTACKS.map((a, i) => [a.name, a, i] as const))("%s", async (_, attack, i) => {
    const input = { kind: attack.kind, name: `Upload attack ${i}`, connection: CONNECTION[attack.kind] } as RegisterKbInput;
    const files = attack.files.map((f) => ({ name: f.name, bytes: f.bytes() }));
    let outcome: string;
    try {
      const result = await registerKnowledgeBase(handle.prisma, deps, adminId, input, files);
      outcome = "contained";
      // Registered: what it holds can be asked about without anything escaping the walls.
      const kb = await handle.prisma.knowledgeBase.findUniqueOrThrow({ where: { id: result.id } });
      const backend = openBackend({ ...kb, kind: kb.kind as KbKind }, deps);
      if (attack.kind === "SQL") {
        for (const table of ["v", "t"]) {
          await backend.execute({ language: "sql", text: `SELECT * FROM ${table}` }, { timeoutMs: 5_000 }).then(
            (r) => expect(JSON.stringify(r.records).length).toBeLessThan(2 * 1024 * 1024),
            (e: Error) => expect(e.message).toMatch(/not allowed|no such table|larger than|needed more than|ran longer|too large/),
          );
        }
      }
      if (attack.kind === "DOCUMENTS") {
        const hits = await backend.execute({ language: "search", text: "returns" });
        expect(JSON.stringify(hits.records)).not.toMatch(/<script|onclick=/);
      }
    } catch (e) {
      expect(e).toBeInstanceOf(AppError);
      outcome = (e as Error).message;
      expect(outcome).not.toMatch(/unreachable|RuntimeError|RangeError|at Object\.|\/tmp\/|node_modules/);
    }
    expect(outcome).toMatch(attack.says);
    // Nothing was written outside the knowledge bases' own folders.
    expect(existsSync("/tmp/mosaic-escape.ttl")).toBe(false);
    for (const entry of readdirSync(deps.dataDir)) expect(["kbs", "tmp"]).toContain(entry);
  });

  const ADMIN_URL = process.env.TEST_POSTGRES_URL;
  describe.skipIf(!ADMIN_URL)("PostgreSQL roles", () => {
    const suffix = randomBytes(4).toString("hex");
    const database = `mosaic_priv_${suffix}`;
    const reader = `mosaic_priv_reader_${suffix}`;
    const password = `pw-${randomBytes(6).toString("hex")}`;
    const server = ADMIN_URL ? new URL(ADMIN_URL) : null;
    const connection = (user: string, acceptPrivilegeRisk = false) => ({
      dialect: "postgres" as const,
      host: server!.hostname,
      port: Number(server!.port),
      database,
      user,
      schema: "public",
      ssl: false,
      password,
      acceptPrivilegeRisk,
    });

    beforeAll(async () => {
      const admin = new pg.Client({ connectionString: ADMIN_URL });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${database}`);
      await admin.query(`CREATE ROLE ${reader} LOGIN PASSWORD '${password}'`);
      await admin.end();
      const url = new URL(ADMIN_URL!);
      url.pathname = `/${database}`;
      const owner = new pg.Client({ connectionString: url.toString() });
      await owner.connect();
      await owner.query(`REVOKE CREATE ON SCHEMA public FROM PUBLIC; CREATE TABLE city (id int PRIMARY KEY, name text); INSERT INTO city VALUES (1, 'Oslo');
                         GRANT USAGE ON SCHEMA public TO ${reader}; GRANT SELECT ON city TO ${reader};`);
      await owner.end();
    });
    afterAll(async () => {
      await closeAllBackends();
      const admin = new pg.Client({ connectionString: ADMIN_URL });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      await admin.query(`DROP ROLE IF EXISTS ${reader}`);
      await admin.end();
    });

    it("registers a read-only role and records that it may only read", async () => {
      const r = await registerKnowledgeBase(handle.prisma, deps, adminId, {
        kind: "SQL",
        name: "Cities (reader)",
        connection: connection(reader),
      });
      const detail = await getKnowledgeBase(handle.prisma, { id: adminId, role: "ADMIN", groupIds: [] }, r.id);
      expect(detail).toMatchObject({ status: "HEALTHY", privilegeRisks: [], riskAcceptedAt: null });
    });

    it("refuses a superuser, pointing at the checkbox, and registers it once the risk is accepted; the health view keeps saying so", async () => {
      const superuser = server!.username || "postgres";
      const test = await testConnection(deps, { kind: "SQL", name: "x", connection: connection(superuser) });
      expect(test).toMatchObject({ ok: false, refused: true });
      const refused = await registerKnowledgeBase(handle.prisma, deps, adminId, {
        kind: "SQL",
        name: "Cities (superuser)",
        connection: connection(superuser),
      }).catch((e) => e);
      expect(refused).toBeInstanceOf(AppError);
      expect(refused.code).toBe("VALIDATION");
      expect(refused.message).toMatch(/^Refused: The PostgreSQL user "\w+" is a superuser/);
      expect(refused.fields).toEqual({ acceptPrivilegeRisk: "Tick this to register the knowledge base with this role anyway." });
      expect(await handle.prisma.knowledgeBase.count({ where: { name: "Cities (superuser)" } })).toBe(0);

      const r = await registerKnowledgeBase(handle.prisma, deps, adminId, {
        kind: "SQL",
        name: "Cities (superuser)",
        // Open to every signed-in user (new knowledge bases are private to admins): an analyst and a business user use it below.
        openToEveryone: true,
        connection: connection(superuser, true),
      });
      const viewer = { id: adminId, role: "ADMIN" as const, groupIds: [] };
      let detail = await getKnowledgeBase(handle.prisma, viewer, r.id);
      expect(detail.status).toBe("HEALTHY");
      expect(detail.riskAcceptedBy).toBe("admin@mosaic.local");
      expect(detail.privilegeRisks[0]).toMatch(/^is a superuser/);
      expect(detail.config).not.toHaveProperty("acceptPrivilegeRisk");
      expect((await checkKnowledgeBase(handle.prisma, deps, r.id)).message).toMatch(/An admin accepted this risk\.$/);

      // The acceptance takes effect where people use the knowledge base (issue 31, part 6): an analyst's
      // native query and a business user's question load it with riskAcceptedAt. Backends opened so far
      // came from full rows: start from none, as after a restart.
      await closeAllBackends();
      const analyst = { id: adminId, role: "ANALYST" as const, groupIds: [] };
      const captured = await captureAction(
        await accessibleKb(handle.prisma, analyst, r.id),
        { kind: "NATIVE_QUERY", params: { query: { language: "sql", text: "SELECT name FROM city" } } },
        deps,
      );
      expect(JSON.stringify(captured.pieces)).toContain("Oslo");
      const asked = await runPipeline(handle.prisma, deps, {
        question: "Which cities are there?",
        user: { id: adminId, role: "USER", groupIds: [] },
        kbIds: [r.id],
        llm: null,
        models: null,
      });
      expect(asked.queries.length).toBeGreaterThan(0);
      for (const q of asked.queries) expect(q.error ?? "").not.toMatch(/refused until an admin accepts/);
      expect(asked.queries.some((q) => q.status === "ok")).toBe(true);

      // Withdrawn: the knowledge base is refused again, and says why.
      const withdrawn = await setPrivilegeRiskAcceptance(handle.prisma, deps, { email: "admin@mosaic.local" }, { id: r.id, accept: false });
      expect(withdrawn).toMatchObject({ ok: false, refused: true });
      detail = await getKnowledgeBase(handle.prisma, viewer, r.id);
      expect(detail).toMatchObject({ status: "ERROR", riskAcceptedAt: null });
      expect(detail.lastCheckMessage).toMatch(/^Refused: /);
      const kb = await handle.prisma.knowledgeBase.findUniqueOrThrow({ where: { id: r.id } });
      await expect(openBackend({ ...kb, kind: "SQL" }, deps).execute({ language: "sql", text: "SELECT name FROM city" })).rejects.toThrow(
        /Queries are refused until an admin accepts this risk/,
      );
    });

    it("re-checks stored queries every time they run: a dynamic source object and a guide saved before the check (issue 31, case 14)", async () => {
      const r = await registerKnowledgeBase(handle.prisma, deps, adminId, {
        kind: "SQL",
        name: "Cities (stored queries)",
        openToEveryone: true,
        connection: connection(reader),
      });
      const analyst = { id: adminId, role: "ANALYST" as const, groupIds: [] };
      const saved = await createDynamicSourceObject(handle.prisma, deps, analyst, {
        kbId: r.id,
        name: "All cities",
        query: "SELECT name FROM city",
      });
      // Stored as an earlier version would have let it through: the plan shows the call the text hides.
      const hostile = "WITH s AS (SELECT u.pg_sleep FROM unnest(ARRAY[6.0::float8]) u) SELECT count(*) AS n FROM s";
      await handle.prisma.sourceObject.update({ where: { id: saved.id }, data: { refreshQuery: hostile } });
      const started = performance.now();
      const refreshed = await refreshDynamicSourceObject(handle.prisma, deps, analyst, saved.id);
      expect(refreshed).toMatchObject({ ok: false, message: expect.stringMatching(/pg_sleep\(\) is not allowed/) });
      expect((await handle.prisma.sourceObject.findUniqueOrThrow({ where: { id: saved.id } })).refreshError).toMatch(
        /pg_sleep\(\) is not allowed/,
      );
      expect(performance.now() - started).toBeLessThan(5_000);

      // The alias form passes the parse-tree check: the plan, checked when the query runs, shows the call.
      const question = "How many cities are listed in the guide?";
      const guideQuery = "WITH s AS (SELECT u.pg_sleep FROM unnest(ARRAY[6.0::float8]) u) SELECT count(*) AS n FROM city, s";
      await handle.prisma.extractionGuide.create({
        data: {
          question,
          sources: {
            create: [
              {
                kbId: r.id,
                actions: {
                  create: [
                    {
                      kind: "NATIVE_QUERY",
                      params: { query: { language: "sql", text: guideQuery } },
                    },
                  ],
                },
              },
            ],
          },
        },
      });
      const replayed = await runPipeline(handle.prisma, deps, {
        question,
        user: { id: adminId, role: "USER", groupIds: [] },
        kbIds: [r.id],
        llm: null,
        models: null,
      });
      expect(replayed.totalMs).toBeLessThan(6_000);
      const replay = replayed.queries.find((q) => q.query.text === guideQuery);
      expect(replay).toMatchObject({ status: "refused", guideId: expect.any(String) });
      expect(replay!.error).toMatch(/pg_sleep\(\) is not allowed/);
    });
  });
});
