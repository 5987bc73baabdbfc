import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { NextRequest } from "next/server";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { ApiScope } from "@/lib/auth/api-keys.validation";
import type { CurrentUser } from "@/lib/auth/session";
import type { PrismaClient } from "@/lib/db/generated/client";
import { API_KEY_ATTACKS } from "../../support/attack-corpus";
import { createTestDatabase, TARGET_ENGINE, type TestDatabase } from "../support/test-database";
import { openApiTestWorkspace } from "../support/api-test-workspace";

/**
 * The API's writes (issue 29): POST /api/v1/knowledge-bases (from an upload or a connection) and the
 * guides' export and import, through the real route handlers in process on a real database, with keys
 * of each role, keys lacking the scope, bad bodies, and the access rule. As in v1.test.ts the one seam
 * is the session lookup (next-auth needs a live request context); no session is used here.
 */
vi.mock("@/lib/auth/session", () => ({ getCurrentUser: async () => null }));

type Handler = (req: NextRequest, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;
const BASE = "http://localhost:3000";

async function call(
  handler: Handler,
  path: string,
  opts: {
    method?: string;
    token?: string;
    body?: unknown;
    form?: FormData;
    headers?: Record<string, string>;
    params?: Record<string, string>;
  } = {},
) {
  const headers: Record<string, string> = { host: "localhost:3000", ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  let body: string | FormData | undefined = opts.form;
  if (opts.body !== undefined) {
    body = typeof opts.body === "string" ? opts.body : JSON.stringify(opts.body);
    headers["content-type"] ??= "application/json";
  }
  return handler(new NextRequest(`${BASE}${path}`, { method: opts.method ?? (body ? "POST" : "GET"), headers, body }), {
    params: Promise.resolve(opts.params ?? {}),
  });
}

/** The registration settings as JSON in `payload` and the files in `files`, as the registration page sends them. */
function uploadForm(payload: unknown, files: { name: string; bytes: Buffer; type?: string }[]): FormData {
  const form = new FormData();
  form.set("payload", JSON.stringify(payload));
  for (const f of files) form.append("files", new File([new Uint8Array(f.bytes)], f.name, { type: f.type ?? "application/octet-stream" }));
  return form;
}

describe(`/api/v1 writes: registration and guides (${TARGET_ENGINE})`, () => {
  let testDb: TestDatabase;
  let prisma: PrismaClient;
  let routes: Record<string, Record<string, Handler>>;
  let schemas: typeof import("@/lib/server/api-v1/schemas");
  let createApiKey: typeof import("@/lib/auth/api-keys").createApiKey;
  const people = {} as Record<"ADMIN" | "ANALYST" | "USER", CurrentUser>;
  const keys = {} as Record<"ADMIN" | "ANALYST" | "USER", string>;
  const ALL: ApiScope[] = ["ask", "runs:read", "kbs:read", "kbs:write", "guides:write", "admin"];
  const keyFor = async (who: CurrentUser, scopes: ApiScope[], name = "test") =>
    (await createApiKey(prisma, who.id, { name, scopes })).token;
  let sqliteBytes: Buffer;
  let analystsGroup: string;
  /** Registered through the API in the tests below. */
  let privateKb = { id: "", name: "Staff pay (API)" };
  let teamKb = { id: "", name: "Team staff (API)" };

  beforeAll(async () => {
    testDb = await createTestDatabase();
    prisma = await openApiTestWorkspace(testDb, { catalog: false });
    ({ createApiKey } = await import("@/lib/auth/api-keys"));
    schemas = await import("@/lib/server/api-v1/schemas");
    for (const role of ["ADMIN", "ANALYST", "USER"] as const) {
      const u = await prisma.user.findFirstOrThrow({ where: { role }, include: { memberships: true } });
      people[role] = { id: u.id, email: u.email, name: u.name, role, groupIds: u.memberships.map((m) => m.groupId) };
      keys[role] = await keyFor(people[role], ALL, `${role} all scopes`);
    }
    analystsGroup = (await prisma.group.findUniqueOrThrow({ where: { name: "Analysts" } })).id;
    const dir = mkdtempSync(path.join(tmpdir(), "mosaic-api-write-"));
    try {
      const file = path.join(dir, "staff.sqlite");
      const sqlite = new Database(file);
      sqlite.exec(
        "CREATE TABLE staff (id INTEGER PRIMARY KEY, name TEXT NOT NULL, team TEXT NOT NULL, salary INTEGER NOT NULL);" +
          "INSERT INTO staff (name, team, salary) VALUES ('Ada', 'Data', 91000), ('Ben', 'Data', 78000), ('Cy', 'Sales', 66000);",
      );
      sqlite.close();
      sqliteBytes = readFileSync(file);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const load = async (p: string) => (await import(/* @vite-ignore */ `@/app/api/v1/${p}/route`)) as Record<string, Handler>;
    routes = {
      kbs: await load("knowledge-bases"),
      job: await load("jobs/[id]"),
      ask: await load("ask"),
      export: await load("guides/export"),
      import: await load("guides/import"),
      openapi: await load("openapi.json"),
    };
  }, 180_000);

  afterAll(async () => {
    const { closeAllBackends } = await import("@/lib/backends/registry");
    await closeAllBackends();
    const g = globalThis as unknown as { __mosaicDb?: Promise<{ handle: { close(): Promise<void> } }> };
    await (await g.__mosaicDb)?.handle.close();
    delete g.__mosaicDb;
    await testDb?.cleanup();
  });

  const problem = async (res: Response) => {
    expect(res.headers.get("content-type")).toContain("application/problem+json");
    const body = schemas.problemSchema.parse(await res.json());
    expect(body.status).toBe(res.status);
    return body;
  };
  const register = (token: string, init: { body?: unknown; form?: FormData }) =>
    call(routes.kbs!.POST!, "/api/v1/knowledge-bases", { token, ...init });

  it("registers a SQLite upload as an admin: 201, the GET view, private by default, audited; then a team's copy", async () => {
    const res = await register(keys.ADMIN, {
      form: uploadForm({ kind: "SQL", name: privateKb.name, connection: { dialect: "sqlite" } }, [
        { name: "staff.sqlite", bytes: sqliteBytes },
      ]),
    });
    expect(res.status).toBe(201);
    const body = schemas.registeredKnowledgeBaseSchema.parse(await res.json());
    expect(body.knowledgeBase).toMatchObject({
      name: privateKb.name,
      kind: "SQL",
      health: { status: "HEALTHY" },
      access: { openToEveryone: false, groups: [] },
    });
    expect(body.jobId).toBe(body.jobIds[0]);
    expect(await prisma.job.findUnique({ where: { id: body.jobId! } })).not.toBeNull();
    privateKb = { ...privateKb, id: body.knowledgeBase.id };
    const { flushAudit } = await import("@/lib/audit/audit");
    await flushAudit();
    const record = await prisma.auditEvent.findFirst({ where: { action: "kb.register", targetId: privateKb.id } });
    expect(record).toMatchObject({ actorId: people.ADMIN.id, outcome: "success" });
    expect(record!.detail).toMatchObject({ via: "api", files: [{ name: "staff.sqlite", bytes: sqliteBytes.length }] });

    // Private by default: the analyst and the business user do not see it.
    for (const role of ["ANALYST", "USER"] as const) {
      const list = schemas.knowledgeBaseListSchema.parse(
        await (await call(routes.kbs!.GET!, "/api/v1/knowledge-bases", { token: keys[role] })).json(),
      );
      expect(list.knowledgeBases.map((k) => k.id)).not.toContain(privateKb.id);
    }

    const team = await register(keys.ADMIN, {
      form: uploadForm({ kind: "SQL", name: teamKb.name, groupIds: [analystsGroup], connection: { dialect: "sqlite" } }, [
        { name: "staff.sqlite", bytes: sqliteBytes },
      ]),
    });
    expect(team.status).toBe(201);
    const teamBody = schemas.registeredKnowledgeBaseSchema.parse(await team.json());
    expect(teamBody.knowledgeBase.access?.groups.map((g) => g.id)).toEqual([analystsGroup]);
    teamKb = { ...teamKb, id: teamBody.knowledgeBase.id };
  });

  it("registers a markdown collection from an upload and answers a question from it through /api/v1/ask", async () => {
    const res = await register(keys.ADMIN, {
      form: uploadForm({ kind: "DOCUMENTS", name: "Field notes (API)", openToEveryone: true, connection: { language: "en" } }, [
        {
          name: "lighthouse.md",
          bytes: Buffer.from("# Lighthouse\n\nThe Kestrel Point lighthouse was first lit in 1874 by keeper Maren Voss.\n"),
          type: "text/markdown",
        },
      ]),
    });
    expect(res.status).toBe(201);
    const body = schemas.registeredKnowledgeBaseSchema.parse(await res.json());
    expect(body.knowledgeBase).toMatchObject({ kind: "DOCUMENTS", access: { openToEveryone: true } });
    // A collection's own embedding job comes first: ingestion goes on there, and the client can follow it.
    const job = await prisma.job.findUniqueOrThrow({ where: { id: body.jobId! } });
    expect(job.kbId).toBe(body.knowledgeBase.id);
    const polled = await call(routes.job!.GET!, `/api/v1/jobs/${job.id}`, { token: keys.ADMIN, params: { id: job.id } });
    expect(polled.status).toBe(200);
    expect(schemas.jobSchema.parse(await polled.json())).toMatchObject({
      id: job.id,
      kind: job.kind,
      knowledgeBaseId: body.knowledgeBase.id,
      status: job.status,
    });
    // Jobs are the admins' (as registration is): an analyst's key is refused, an unknown id is not found.
    const asAnalyst = await call(routes.job!.GET!, `/api/v1/jobs/${job.id}`, { token: keys.ANALYST, params: { id: job.id } });
    expect(asAnalyst.status).toBe(403);
    await problem(asAnalyst);
    const unknown = await call(routes.job!.GET!, "/api/v1/jobs/nope", { token: keys.ADMIN, params: { id: "nope" } });
    expect(unknown.status).toBe(404);
    expect((await problem(unknown)).detail).toMatch(/No background job/);

    const asked = await call(routes.ask!.POST!, "/api/v1/ask", {
      token: keys.USER,
      body: { question: "When was the Kestrel Point lighthouse first lit?", kbIds: [body.knowledgeBase.id] },
    });
    expect(asked.status).toBe(200);
    const result = schemas.askResultSchema.parse(await asked.json());
    expect(JSON.stringify(result.evidence)).toContain("1874");
    expect(result.evidence.every((e) => e.kb === "Field notes (API)")).toBe(true);
  });

  it("registers from a connection as JSON; an unreachable one is a 422 naming what failed, and nothing is kept", async () => {
    const res = await register(keys.ADMIN, {
      body: {
        kind: "SQL",
        name: "Nowhere (API)",
        connection: { dialect: "postgres", host: "127.0.0.1", port: 1, database: "x", user: "x", password: "s3cret-pw" },
      },
    });
    expect(res.status).toBe(422);
    const body = await problem(res);
    expect(body.code).toBe("UNAVAILABLE");
    expect(body.fields?.connection).toBeTruthy();
    expect(JSON.stringify(body)).not.toContain("s3cret-pw");
    expect(await prisma.knowledgeBase.count({ where: { name: "Nowhere (API)" } })).toBe(0);
  });

  it.skipIf(!process.env.TEST_POSTGRES_URL)(
    "registers a PostgreSQL connection from JSON with a read-only role: 201, the password stored encrypted, never returned",
    async () => {
      const suffix = randomBytes(4).toString("hex");
      const database = `mosaic_apiw_${suffix}`;
      const role = `mosaic_apiw_reader_${suffix}`;
      const password = `pw-${randomBytes(8).toString("hex")}`;
      const server = new URL(process.env.TEST_POSTGRES_URL!);
      const admin = new pg.Client({ connectionString: server.toString() });
      await admin.connect();
      try {
        await admin.query(`CREATE DATABASE ${database}`);
        await admin.query(`CREATE ROLE ${role} LOGIN PASSWORD '${password}'`);
        const url = new URL(server.toString());
        url.pathname = `/${database}`;
        const owner = new pg.Client({ connectionString: url.toString() });
        await owner.connect();
        await owner.query(
          "CREATE TABLE shipment (id int PRIMARY KEY, port text NOT NULL); INSERT INTO shipment VALUES (1, 'Rotterdam'), (2, 'Gdansk');" +
            `GRANT USAGE ON SCHEMA public TO ${role}; GRANT SELECT ON ALL TABLES IN SCHEMA public TO ${role}`,
        );
        await owner.end();
        const res = await register(keys.ADMIN, {
          body: {
            kind: "SQL",
            name: "Shipments (API)",
            groupIds: [analystsGroup],
            connection: { dialect: "postgres", host: server.hostname, port: Number(server.port), database, user: role, password },
          },
        });
        const text = await res.text();
        expect(res.status, text).toBe(201);
        expect(text).not.toContain(password);
        const body = schemas.registeredKnowledgeBaseSchema.parse(JSON.parse(text));
        expect(body.knowledgeBase).toMatchObject({ kind: "SQL", health: { status: "HEALTHY" } });
        const row = await prisma.knowledgeBase.findUniqueOrThrow({ where: { id: body.knowledgeBase.id } });
        expect(row.secretsCiphertext).toBeTruthy();
        expect(row.secretsCiphertext).not.toContain(password);
        expect(JSON.stringify(row.config)).not.toContain(password);
        const { closeBackend } = await import("@/lib/backends/registry");
        // Its pool is closed before its database is dropped below.
        await closeBackend(row.id);
      } finally {
        await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
        await admin.query(`DROP ROLE IF EXISTS ${role}`);
        await admin.end();
      }
    },
  );

  it("names the malformed field (400), and asks for the files an upload kind needs", async () => {
    const noName = await register(keys.ADMIN, { body: { kind: "SQL", name: " ", connection: { dialect: "sqlite" } } });
    expect(noName.status).toBe(400);
    expect((await problem(noName)).fields).toEqual({ name: "Enter a name." });
    const badKind = await register(keys.ADMIN, { body: { kind: "EXCEL", name: "x" } });
    expect(Object.keys((await problem(badKind)).fields ?? {})).toEqual(["kind"]);
    const badUri = await register(keys.ADMIN, { body: { kind: "CYPHER", name: "x", connection: { uri: "http://x", user: "neo4j" } } });
    expect(Object.keys((await problem(badUri)).fields ?? {})).toEqual(["connection.uri"]);
    const noFiles = await register(keys.ADMIN, { body: { kind: "SQL", name: "No file (API)", connection: { dialect: "sqlite" } } });
    expect(noFiles.status).toBe(400);
    expect((await problem(noFiles)).fields).toEqual({ files: "Required." });
    const notSqlite = await register(keys.ADMIN, {
      form: uploadForm({ kind: "SQL", name: "Fake (API)", connection: { dialect: "sqlite" } }, [
        { name: "fake.sqlite", bytes: Buffer.alloc(200, 1) },
      ]),
    });
    expect(notSqlite.status).toBe(400);
    expect((await problem(notSqlite)).detail).toMatch(/fake\.sqlite is not a SQLite database/);
    const badPayload = new FormData();
    badPayload.set("payload", "{not json");
    expect((await register(keys.ADMIN, { form: badPayload })).status).toBe(400);
    expect(await prisma.knowledgeBase.count({ where: { name: { in: ["No file (API)", "Fake (API)"] } } })).toBe(0);
  });

  it("refuses other roles (403) and a key without the scope (403 naming it)", async () => {
    const input = { kind: "SQL", name: "x", connection: { dialect: "sqlite" } };
    for (const role of ["ANALYST", "USER"] as const) {
      const res = await register(keys[role], { body: input });
      expect(res.status, role).toBe(403);
      expect((await problem(res)).fields).toBeUndefined();
    }
    const cases: [Handler, string, ApiScope, Record<string, unknown>][] = [
      [routes.kbs!.POST!, "/api/v1/knowledge-bases", "kbs:write", { body: input }],
      [routes.import!.POST!, "/api/v1/guides/import", "guides:write", { body: [] }],
    ];
    const readOnly = await keyFor(people.ADMIN, ["kbs:read", "ask"]);
    for (const [handler, p, scope, opts] of cases) {
      const res = await call(handler, p, { ...opts, token: readOnly });
      expect(res.status, p).toBe(403);
      expect((await problem(res)).fields?.scope).toBe(`Missing scope: ${scope}`);
    }
    const writeOnly = await keyFor(people.ADMIN, ["guides:write"]);
    const exp = await call(routes.export!.GET!, "/api/v1/guides/export", { token: writeOnly });
    expect(exp.status).toBe(403);
    expect((await problem(exp)).fields?.scope).toBe("Missing scope: kbs:read");
    for (const [route, handler] of [
      ["import", routes.import!.POST!],
      ["export", routes.export!.GET!],
    ] as const) {
      const res = await call(handler, `/api/v1/guides/${route}`, {
        token: keys.USER,
        ...(route === "import" ? { body: [{ kb: teamKb.name, question: "q", query: "SELECT 1" }] } : {}),
      });
      expect(res.status, route).toBe(403);
    }
  });

  it("imports guides all or nothing: one bad item refuses the lot (422 naming it), keepGoing imports the good ones, dryRun only checks", async () => {
    const good = { kb: teamKb.name, question: "Who is on the Data team?", query: "SELECT name FROM staff WHERE team = 'Data'" };
    const bad = { kb: teamKb.name, question: "Drop the staff", query: "DELETE FROM staff" };
    const empty = { kb: teamKb.name, question: "Who is on the Moon team?", query: "SELECT name FROM staff WHERE team = 'Moon'" };
    const before = await prisma.extractionGuide.count();

    const refused = await call(routes.import!.POST!, "/api/v1/guides/import", { token: keys.ANALYST, body: [good, bad, empty] });
    expect(refused.status).toBe(422);
    const refusedJson = (await refused.clone().json()) as { report: unknown };
    const p = await problem(refused);
    expect(Object.keys(p.fields ?? {})).toEqual(["guides.1", "guides.2"]);
    expect(p.fields!["guides.1"]).toMatch(/DELETE is not allowed/);
    expect(p.fields!["guides.2"]).toMatch(/returns no rows/);
    const report = schemas.guideImportReportSchema.parse(refusedJson.report);
    expect(report).toMatchObject({ committed: false, imported: 0, failed: 2 });
    expect(report.items[0]).toMatchObject({ status: "ready", rows: 2 });
    expect(await prisma.extractionGuide.count()).toBe(before);

    const dry = await call(routes.import!.POST!, "/api/v1/guides/import", {
      token: keys.ANALYST,
      body: { guides: [good], dryRun: true },
    });
    expect(dry.status).toBe(200);
    expect(schemas.guideImportReportSchema.parse(await dry.json())).toMatchObject({ committed: false, dryRun: true, imported: 0 });
    expect(await prisma.extractionGuide.count()).toBe(before);

    const kept = await call(routes.import!.POST!, "/api/v1/guides/import", {
      token: keys.ANALYST,
      body: { guides: [good, bad], keepGoing: true },
    });
    expect(kept.status).toBe(200);
    const keptReport = schemas.guideImportReportSchema.parse(await kept.json());
    expect(keptReport).toMatchObject({ committed: true, imported: 1, failed: 1 });
    expect(keptReport.items.map((i) => i.status)).toEqual(["imported", "failed"]);
    expect(await prisma.extractionGuide.count()).toBe(before + 1);
    const guide = await prisma.extractionGuide.findUniqueOrThrow({ where: { id: keptReport.items[0]!.guideId! } });
    expect(guide.question).toBe(good.question);

    // The default knowledge base by id, for items that name none; the same item again is a duplicate.
    const again = await call(routes.import!.POST!, "/api/v1/guides/import", {
      token: keys.ANALYST,
      body: { kb: teamKb.id, guides: [{ question: good.question, query: good.query }] },
    });
    expect(schemas.guideImportReportSchema.parse(await again.json()).items[0]!.status).toBe("duplicate");

    const { flushAudit } = await import("@/lib/audit/audit");
    await flushAudit();
    const audited = await prisma.auditEvent.findFirst({ where: { action: "guides.import", actorId: people.ANALYST.id } });
    expect(audited?.kbIds).toEqual([teamKb.id]);

    // A malformed item names its field.
    const malformed = await call(routes.import!.POST!, "/api/v1/guides/import", {
      token: keys.ANALYST,
      body: [good, { kb: teamKb.name, question: "No query" }],
    });
    expect(malformed.status).toBe(400);
    expect(Object.keys((await problem(malformed)).fields ?? {})).toEqual(["guides.1.query"]);
  });

  it("exports the guides in the CLI's format, per knowledge base by id, only where the user may look", async () => {
    const res = await call(routes.export!.GET!, `/api/v1/guides/export?kb=${teamKb.id}`, { token: keys.ANALYST });
    expect(res.status).toBe(200);
    const items = schemas.exportedGuideSchema.array().parse(await res.json());
    expect(items).toEqual([
      { kb: teamKb.name, question: "Who is on the Data team?", query: "SELECT name FROM staff WHERE team = 'Data'", language: "sql" },
    ]);
    // What export writes, import reads back (as duplicates here).
    const back = await call(routes.import!.POST!, "/api/v1/guides/import", { token: keys.ADMIN, body: items });
    expect(back.status).toBe(200);
    expect(schemas.guideImportReportSchema.parse(await back.json()).duplicates).toBe(1);
    const unknown = await call(routes.export!.GET!, "/api/v1/guides/export?kb=nope", { token: keys.ADMIN });
    expect(unknown.status).toBe(404);
  });

  it("refuses every API-key write attack of the corpus", async () => {
    const fill = (v: unknown): unknown =>
      JSON.parse(JSON.stringify(v).replaceAll("{privateKbName}", privateKb.name).replaceAll("{privateKb}", privateKb.id));
    for (const attack of API_KEY_ATTACKS) {
      const before = await prisma.extractionGuide.count();
      const kbsBefore = await prisma.knowledgeBase.count();
      const input = fill(attack.input);
      const res =
        attack.route === "kbs.register"
          ? await register(keys[attack.as], { body: input })
          : attack.route === "guides.import"
            ? await call(routes.import!.POST!, "/api/v1/guides/import", { token: keys[attack.as], body: input })
            : await call(routes.export!.GET!, `/api/v1/guides/export?${new URLSearchParams(input as Record<string, string>).toString()}`, {
                token: keys[attack.as],
              });
      expect(attack.refusedWith, attack.name).toContain(res.status);
      const text = await res.text();
      expect(text, attack.name).not.toContain("91000");
      expect(await prisma.knowledgeBase.count(), attack.name).toBe(kbsBefore);
      if (attack.importsNothing) expect(await prisma.extractionGuide.count(), attack.name).toBe(before);
    }
  });

  it("documents the new routes in the OpenAPI document", async () => {
    const doc = await (await call(routes.openapi!.GET!, "/api/v1/openapi.json")).json();
    const reg = doc.paths["/api/v1/knowledge-bases"].post;
    expect(reg["x-mosaic-scope"]).toBe("kbs:write");
    expect(Object.keys(reg.requestBody.content).sort()).toEqual(["application/json", "multipart/form-data"]);
    expect(Object.keys(reg.responses)).toEqual(expect.arrayContaining(["201", "422"]));
    expect(doc.paths["/api/v1/guides/import"].post["x-mosaic-scope"]).toBe("guides:write");
    expect(doc.paths["/api/v1/guides/export"].get["x-mosaic-scope"]).toBe("kbs:read");
  });
});
