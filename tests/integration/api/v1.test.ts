import { NextRequest } from "next/server";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { ApiScope } from "@/lib/auth/api-keys.validation";
import type { CurrentUser } from "@/lib/auth/session";
import type { PrismaClient } from "@/lib/db/generated/client";
import { createTestDatabase, TARGET_ENGINE, type TestDatabase } from "../support/test-database";
import { openApiTestWorkspace } from "../support/api-test-workspace";

/**
 * /api/v1 (issue 29) through its real route handlers, in process, on a real database with the demo
 * catalog: API keys of each role, scopes, bad keys, bad bodies, the access rule, problem details. The one
 * seam is the session lookup (next-auth needs a live request context): cookie requests act as `session`.
 */
let session: CurrentUser | null = null;
vi.mock("@/lib/auth/session", () => ({ getCurrentUser: async () => session }));

type Handler = (req: NextRequest, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;
const BASE = "http://localhost:3000";

async function call(
  handler: Handler,
  path: string,
  opts: { method?: string; token?: string; body?: unknown; headers?: Record<string, string>; params?: Record<string, string> } = {},
) {
  const headers: Record<string, string> = { host: "localhost:3000", ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  let body: string | undefined;
  if (opts.body !== undefined) {
    body = typeof opts.body === "string" ? opts.body : JSON.stringify(opts.body);
    headers["content-type"] ??= "application/json";
  }
  const res = await handler(new NextRequest(`${BASE}${path}`, { method: opts.method ?? (body ? "POST" : "GET"), headers, body }), {
    params: Promise.resolve(opts.params ?? {}),
  });
  return res;
}

describe(`/api/v1 with API keys (${TARGET_ENGINE})`, () => {
  let testDb: TestDatabase;
  let prisma: PrismaClient;
  let routes: Record<string, Record<string, Handler>>;
  let schemas: typeof import("@/lib/server/api-v1/schemas");
  let createApiKey: typeof import("@/lib/auth/api-keys").createApiKey;
  const people = {} as Record<"ADMIN" | "ANALYST" | "USER", CurrentUser>;
  const keys = {} as Record<"ADMIN" | "ANALYST" | "USER", string>;
  let hrId: string;
  let plansId: string;
  const ALL: ApiScope[] = ["ask", "runs:read", "kbs:read", "kbs:write", "guides:write", "admin"];
  const keyFor = async (who: CurrentUser, scopes: ApiScope[], name = "test") =>
    (await createApiKey(prisma, who.id, { name, scopes })).token;

  beforeAll(async () => {
    testDb = await createTestDatabase();
    prisma = await openApiTestWorkspace(testDb);
    const { catalogDeps } = await import("@/lib/deps");
    ({ createApiKey } = await import("@/lib/auth/api-keys"));
    schemas = await import("@/lib/server/api-v1/schemas");
    for (const role of ["ADMIN", "ANALYST", "USER"] as const) {
      const u = await prisma.user.findFirstOrThrow({ where: { role }, include: { memberships: true } });
      people[role] = { id: u.id, email: u.email, name: u.name, role, groupIds: u.memberships.map((m) => m.groupId) };
      keys[role] = await keyFor(people[role], ALL, `${role} all scopes`);
    }
    const { registerKnowledgeBase } = await import("@/lib/ingest/register");
    // Private by default: no group, not opened to everyone.
    hrId = (
      await registerKnowledgeBase(
        prisma,
        catalogDeps(),
        people.ADMIN.id,
        { kind: "DOCUMENTS", name: "HR salaries", connection: { language: "en" } },
        [{ name: "salaries.md", bytes: Buffer.from("# Salaries\n\nThe salary of Jane Roe is 98,000 EUR per year.\n") }],
      )
    ).id;
    const analysts = await prisma.group.findUniqueOrThrow({ where: { name: "Analysts" } });
    plansId = (
      await registerKnowledgeBase(
        prisma,
        catalogDeps(),
        people.ADMIN.id,
        { kind: "DOCUMENTS", name: "Analyst plans", connection: { language: "en" }, groupIds: [analysts.id] },
        [{ name: "plans.md", bytes: Buffer.from("# Plans\n\nProject Nightjar expands into Iceland in 2026.\n") }],
      )
    ).id;
    const load = async (p: string) => (await import(/* @vite-ignore */ `@/app/api/v1/${p}/route`)) as Record<string, Handler>;
    routes = {
      ask: await load("ask"),
      run: await load("runs/[id]"),
      evidence: await load("runs/[id]/evidence"),
      kbs: await load("knowledge-bases"),
      kb: await load("knowledge-bases/[id]"),
      refresh: await load("knowledge-bases/[id]/refresh"),
      reports: await load("evaluation/reports"),
      report: await load("evaluation/reports/[id]"),
      keys: await load("admin/api-keys"),
      key: await load("admin/api-keys/[id]"),
      chat: await load("chat/completions"),
      models: await load("models"),
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

  it("serves an OpenAPI 3.1 document naming every route, without a key", async () => {
    const res = await call(routes.openapi!.GET!, "/api/v1/openapi.json");
    expect(res.status).toBe(200);
    const doc = await res.json();
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths).sort()).toEqual(
      [
        "/api/v1/admin/api-keys",
        "/api/v1/admin/api-keys/{id}",
        "/api/v1/ask",
        "/api/v1/chat/completions",
        "/api/v1/evaluation/reports",
        "/api/v1/evaluation/reports/{id}",
        "/api/v1/guides/export",
        "/api/v1/guides/import",
        "/api/v1/jobs/{id}",
        "/api/v1/knowledge-bases",
        "/api/v1/knowledge-bases/{id}",
        "/api/v1/knowledge-bases/{id}/refresh",
        "/api/v1/models",
        "/api/v1/runs/{id}",
        "/api/v1/runs/{id}/evidence",
      ].sort(),
    );
    // The ask body is the Ask page's own schema.
    expect(doc.paths["/api/v1/ask"].post.requestBody.content["application/json"].schema.properties.question.maxLength).toBe(10_000);
  });

  it("refuses a missing, malformed, unknown, expired or revoked key with 401 problem details saying which", async () => {
    const noKey = await call(routes.kbs!.GET!, "/api/v1/knowledge-bases");
    expect(noKey.status).toBe(401);
    expect(noKey.headers.get("www-authenticate")).toContain("Bearer");
    expect((await problem(noKey)).detail).toMatch(/API key/);

    const malformed = await call(routes.kbs!.GET!, "/api/v1/knowledge-bases", { token: "sk-not-mosaic" });
    expect((await problem(malformed)).detail).toMatch(/not a Mosaic API key/);

    const unknown = await call(routes.kbs!.GET!, "/api/v1/knowledge-bases", { token: `mosaic_abcdefgh_${"A".repeat(43)}` });
    expect(unknown.status).toBe(401);
    expect((await problem(unknown)).detail).toMatch(/not valid/);

    const expired = await createApiKey(prisma, people.USER.id, { name: "old", scopes: ["kbs:read"], expiresInDays: "30" });
    await prisma.apiKey.update({ where: { id: expired.key.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const exp = await call(routes.kbs!.GET!, "/api/v1/knowledge-bases", { token: expired.token });
    expect(exp.status).toBe(401);
    expect((await problem(exp)).detail).toMatch(/expired/);

    const revoked = await createApiKey(prisma, people.USER.id, { name: "gone", scopes: ["kbs:read"] });
    expect((await call(routes.kbs!.GET!, "/api/v1/knowledge-bases", { token: revoked.token })).status).toBe(200);
    // An admin revokes it through the API.
    const del = await call(routes.key!.DELETE!, `/api/v1/admin/api-keys/${revoked.key.id}`, {
      method: "DELETE",
      token: keys.ADMIN,
      params: { id: revoked.key.id },
    });
    expect(del.status).toBe(200);
    expect(schemas.apiKeySchema.parse(await del.json())).toMatchObject({ state: "revoked", revokedBy: people.ADMIN.email });
    const rev = await call(routes.kbs!.GET!, "/api/v1/knowledge-bases", { token: revoked.token });
    expect(rev.status).toBe(401);
    expect((await problem(rev)).detail).toMatch(/revoked/);

    // A deactivated user's keys stop working at once.
    const other = await prisma.user.create({ data: { email: "leaver@x.io", name: "Leaver", passwordHash: "x", role: "USER" } });
    const leaverKey = (await createApiKey(prisma, other.id, { name: "l", scopes: ["kbs:read"] })).token;
    await prisma.user.update({ where: { id: other.id }, data: { active: false } });
    expect((await call(routes.kbs!.GET!, "/api/v1/knowledge-bases", { token: leaverKey })).status).toBe(401);
  });

  it("refuses a key without the route's scope with 403 naming the scope, on every route", async () => {
    const readOnly = await keyFor(people.ADMIN, ["kbs:read"]);
    const cases: [Handler, string, ApiScope, Record<string, unknown>][] = [
      [routes.ask!.POST!, "/api/v1/ask", "ask", { body: { question: "How many orders?" } }],
      [routes.run!.GET!, "/api/v1/runs/x", "runs:read", { params: { id: "x" } }],
      [routes.evidence!.GET!, "/api/v1/runs/x/evidence", "runs:read", { params: { id: "x" } }],
      [routes.refresh!.POST!, `/api/v1/knowledge-bases/${hrId}/refresh`, "kbs:write", { body: {}, params: { id: hrId } }],
      [routes.reports!.GET!, "/api/v1/evaluation/reports", "runs:read", {}],
      [routes.report!.GET!, "/api/v1/evaluation/reports/x", "runs:read", { params: { id: "x" } }],
      [routes.keys!.GET!, "/api/v1/admin/api-keys", "admin", {}],
      [routes.key!.DELETE!, "/api/v1/admin/api-keys/x", "admin", { method: "DELETE", params: { id: "x" } }],
      [routes.chat!.POST!, "/api/v1/chat/completions", "ask", { body: { model: "mosaic", messages: [{ role: "user", content: "hi" }] } }],
    ];
    for (const [handler, path, scope, opts] of cases) {
      const res = await call(handler, path, { ...opts, token: readOnly });
      expect(res.status, path).toBe(403);
      const body = await problem(res);
      expect(body.fields?.scope, path).toBe(`Missing scope: ${scope}`);
      expect(body.detail).toContain(`"${scope}"`);
    }
    const askOnly = await keyFor(people.ADMIN, ["ask"]);
    for (const [handler, path] of [
      [routes.kbs!.GET!, "/api/v1/knowledge-bases"],
      [routes.kb!.GET!, `/api/v1/knowledge-bases/${hrId}`],
      [routes.models!.GET!, "/api/v1/models"],
    ] as const) {
      const res = await call(handler, path, { token: askOnly, params: { id: hrId } });
      expect(res.status, path).toBe(403);
      expect((await problem(res)).fields?.scope).toBe("Missing scope: kbs:read");
    }
  });

  it("names the malformed field, and refuses a body that is not JSON", async () => {
    const empty = await call(routes.ask!.POST!, "/api/v1/ask", { token: keys.USER, body: { question: "  " } });
    expect(empty.status).toBe(400);
    expect((await problem(empty)).fields).toEqual({ question: "Type a question first." });
    const wrongType = await call(routes.ask!.POST!, "/api/v1/ask", { token: keys.USER, body: { question: "x", kbIds: "all" } });
    expect(Object.keys((await problem(wrongType)).fields ?? {})).toEqual(["kbIds"]);
    const notJson = await call(routes.ask!.POST!, "/api/v1/ask", {
      token: keys.USER,
      body: "question=x",
      headers: { "content-type": "text/plain" },
    });
    expect(notJson.status).toBe(415);
    const chat = await call(routes.chat!.POST!, "/api/v1/chat/completions", { token: keys.USER, body: { model: "mosaic", messages: [] } });
    expect(chat.status).toBe(400);
    expect(Object.keys((await problem(chat)).fields ?? {})).toEqual(["messages"]);
    const refresh = await call(routes.refresh!.POST!, `/api/v1/knowledge-bases/${hrId}/refresh`, {
      token: keys.ADMIN,
      body: { parts: "everything" },
      params: { id: hrId },
    });
    expect(Object.keys((await problem(refresh)).fields ?? {})).toEqual(["parts"]);
  });

  it("lists to each role exactly the knowledge bases its user may use, and 404s the others", async () => {
    const names = async (role: keyof typeof keys) => {
      const res = await call(routes.kbs!.GET!, "/api/v1/knowledge-bases", { token: keys[role] });
      expect(res.status).toBe(200);
      return schemas.knowledgeBaseListSchema.parse(await res.json()).knowledgeBases;
    };
    const admin = await names("ADMIN");
    const analyst = await names("ANALYST");
    const user = await names("USER");
    expect(admin.map((k) => k.name)).toEqual(expect.arrayContaining(["HR salaries", "Analyst plans", "Aurora sales database"]));
    expect(admin.find((k) => k.name === "HR salaries")!.access).toEqual({ openToEveryone: false, groups: [] });
    expect(analyst.map((k) => k.name)).toContain("Analyst plans");
    expect(analyst.map((k) => k.name)).not.toContain("HR salaries");
    expect(user.map((k) => k.name)).not.toContain("HR salaries");
    expect(user.map((k) => k.name)).not.toContain("Analyst plans");
    expect(user.length).toBe(3);
    expect(user.every((k) => k.access === null && k.health.message === null)).toBe(true);

    expect(
      (await call(routes.kb!.GET!, `/api/v1/knowledge-bases/${plansId}`, { token: keys.ANALYST, params: { id: plansId } })).status,
    ).toBe(200);
    expect((await call(routes.kb!.GET!, `/api/v1/knowledge-bases/${plansId}`, { token: keys.USER, params: { id: plansId } })).status).toBe(
      404,
    );
    const hidden = await call(routes.kb!.GET!, `/api/v1/knowledge-bases/${hrId}`, { token: keys.USER, params: { id: hrId } });
    expect(hidden.status).toBe(404);
    await problem(hidden);
    const shown = await call(routes.kb!.GET!, `/api/v1/knowledge-bases/${hrId}`, { token: keys.ADMIN, params: { id: hrId } });
    expect(schemas.knowledgeBaseSchema.parse(await shown.json()).health.status).toBe("HEALTHY");

    const models = async (role: keyof typeof keys) =>
      ((await (await call(routes.models!.GET!, "/api/v1/models", { token: keys[role] })).json()) as { data: { id: string }[] }).data.map(
        (m) => m.id,
      );
    expect(await models("USER")).toEqual(expect.arrayContaining(["mosaic"]));
    expect(await models("USER")).not.toContain(`mosaic/${hrId}`);
    expect(await models("ADMIN")).toContain(`mosaic/${hrId}`);
  });

  it("a key never reaches a knowledge base its user cannot: ask, chat and runs", async () => {
    const question = "What is the salary of Jane Roe?";
    // Not vacuous: the admin's key gets the answer from the private knowledge base.
    const adminAsk = await call(routes.ask!.POST!, "/api/v1/ask", { token: keys.ADMIN, body: { question, kbIds: [hrId] } });
    expect(adminAsk.status).toBe(200);
    const adminResult = schemas.askResultSchema.parse(await adminAsk.json());
    expect(JSON.stringify(adminResult.evidence)).toContain("98,000");

    for (const role of ["USER", "ANALYST"] as const) {
      const named = await call(routes.ask!.POST!, "/api/v1/ask", { token: keys[role], body: { question, kbIds: [hrId] } });
      expect(named.status, role).toBe(404);
      const anyKb = await call(routes.ask!.POST!, "/api/v1/ask", { token: keys[role], body: { question } });
      expect(anyKb.status).toBe(200);
      const text = JSON.stringify(await anyKb.json());
      expect(text).not.toContain("98,000");
      expect(text).not.toContain("HR salaries");
      const chat = await call(routes.chat!.POST!, "/api/v1/chat/completions", {
        token: keys[role],
        body: { model: `mosaic/${hrId}`, messages: [{ role: "user", content: question }] },
      });
      expect(chat.status).toBe(404);
      // The admin's run (which read the private knowledge base) is not theirs to open.
      const run = await call(routes.run!.GET!, `/api/v1/runs/${adminResult.runId}`, {
        token: keys[role],
        params: { id: adminResult.runId },
      });
      expect(run.status).toBe(404);
      const ev = await call(routes.evidence!.GET!, `/api/v1/runs/${adminResult.runId}/evidence`, {
        token: keys[role],
        params: { id: adminResult.runId },
      });
      expect(ev.status).toBe(404);
    }
  });

  it("asks as JSON, then reopens the run and its evidence", async () => {
    const res = await call(routes.ask!.POST!, "/api/v1/ask", { token: keys.USER, body: { question: "How many orders were returned?" } });
    expect(res.status).toBe(200);
    const result = schemas.askResultSchema.parse(await res.json());
    expect(result.status).toBe("ANSWERED");
    expect(result.answer).toMatch(/\b7\b/);
    expect(result.citations.length).toBeGreaterThan(0);
    expect(result.evidence.map((e) => e.id)).toEqual(expect.arrayContaining(result.citations));

    const run = await call(routes.run!.GET!, `/api/v1/runs/${result.runId}`, { token: keys.USER, params: { id: result.runId } });
    const view = schemas.runSchema.parse(await run.json());
    expect(view).toMatchObject({ id: result.runId, status: "ANSWERED", askedByYou: true, hidden: null });
    expect(view.trace.length).toBeGreaterThan(0);
    const ev = schemas.runEvidenceSchema.parse(
      await (
        await call(routes.evidence!.GET!, `/api/v1/runs/${result.runId}/evidence`, { token: keys.USER, params: { id: result.runId } })
      ).json(),
    );
    expect(ev.citations).toEqual(result.citations);
    // An admin may open anyone's run; the analyst may not open an unreported run of someone else.
    expect((await call(routes.run!.GET!, `/api/v1/runs/${result.runId}`, { token: keys.ADMIN, params: { id: result.runId } })).status).toBe(
      200,
    );
    expect(
      (await call(routes.run!.GET!, `/api/v1/runs/${result.runId}`, { token: keys.ANALYST, params: { id: result.runId } })).status,
    ).toBe(404);
  });

  it("streams stage events and the answer as Server-Sent Events", async () => {
    const res = await call(routes.ask!.POST!, "/api/v1/ask", {
      token: keys.USER,
      body: { question: "How many orders were returned?" },
      headers: { accept: "text/event-stream" },
    });
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const text = await res.text();
    const events = text
      .trim()
      .split("\n\n")
      .map((block) => ({ event: /^event: (.+)$/m.exec(block)?.[1], data: JSON.parse(/^data: (.+)$/m.exec(block)![1]!) }));
    expect(events.filter((e) => e.event === "stage").length).toBeGreaterThan(2);
    expect(events.at(-1)!.event).toBe("answer");
    expect(schemas.askResultSchema.parse(events.at(-1)!.data).answer).toMatch(/\b7\b/);
  });

  it("answers OpenAI's chat format with numbered citations, whole or streamed", async () => {
    const res = await call(routes.chat!.POST!, "/api/v1/chat/completions", {
      token: keys.USER,
      body: {
        model: "mosaic",
        temperature: 0.2,
        messages: [
          { role: "system", content: "Be brief." },
          { role: "user", content: "Hello" },
          { role: "assistant", content: "Hi!" },
          { role: "user", content: [{ type: "text", text: "How many orders were returned?" }] },
        ],
      },
    });
    expect(res.status).toBe(200);
    const { chatCompletionSchema } = await import("@/lib/server/api-v1/openai-schemas");
    const completion = chatCompletionSchema.parse(await res.json());
    const content = completion.choices[0]!.message.content;
    expect(content).toMatch(/\b7\b[\s\S]*\[1\][\s\S]*Sources:\n\[1\] /);

    const streamed = await call(routes.chat!.POST!, "/api/v1/chat/completions", {
      token: keys.USER,
      body: { model: "mosaic", stream: true, messages: [{ role: "user", content: "How many orders were returned?" }] },
    });
    const lines = (await streamed.text()).split("\n").filter((l) => l.startsWith("data: "));
    expect(lines.at(-1)).toBe("data: [DONE]");
    const chunks = lines.slice(0, -1).map((l) => JSON.parse(l.slice(6)));
    expect(chunks.every((c) => c.object === "chat.completion.chunk")).toBe(true);
    expect(chunks.map((c) => c.choices[0].delta.content ?? "").join("")).toMatch(/\b7\b[\s\S]*Sources:/);
    expect(chunks.at(-1).choices[0].finish_reason).toBe("stop");
  });

  it("keeps roles: refresh is for admins, evaluation reports for analysts and admins, key lists for admins", async () => {
    const sales = (await prisma.knowledgeBase.findFirstOrThrow({ where: { name: "Aurora sales database" } })).id;
    const byUser = await call(routes.refresh!.POST!, `/api/v1/knowledge-bases/${sales}/refresh`, {
      token: keys.USER,
      body: {},
      params: { id: sales },
    });
    expect(byUser.status).toBe(403);
    expect((await problem(byUser)).fields).toBeUndefined();
    const byAdmin = await call(routes.refresh!.POST!, `/api/v1/knowledge-bases/${sales}/refresh`, {
      token: keys.ADMIN,
      body: { parts: "describe" },
      params: { id: sales },
    });
    expect(byAdmin.status).toBe(200);
    expect(schemas.refreshReportSchema.parse(await byAdmin.json()).status).toBe("HEALTHY");
    const missing = await call(routes.refresh!.POST!, "/api/v1/knowledge-bases/nope/refresh", {
      token: keys.ADMIN,
      body: {},
      params: { id: "nope" },
    });
    expect(missing.status).toBe(404);

    expect((await call(routes.reports!.GET!, "/api/v1/evaluation/reports", { token: keys.USER })).status).toBe(403);
    for (const role of ["ANALYST", "ADMIN"] as const) {
      const list = await call(routes.reports!.GET!, "/api/v1/evaluation/reports", { token: keys[role] });
      expect(list.status).toBe(200);
      schemas.reportListSchema.parse(await list.json());
    }
    expect(
      (await call(routes.report!.GET!, "/api/v1/evaluation/reports/nope", { token: keys.ANALYST, params: { id: "nope" } })).status,
    ).toBe(404);

    expect((await call(routes.keys!.GET!, "/api/v1/admin/api-keys", { token: keys.USER })).status).toBe(403);
    expect((await call(routes.keys!.GET!, "/api/v1/admin/api-keys", { token: keys.ANALYST })).status).toBe(403);
    const all = await call(routes.keys!.GET!, "/api/v1/admin/api-keys", { token: keys.ADMIN });
    const listed = (await all.json()).apiKeys as { prefix: string }[];
    expect(listed.length).toBeGreaterThanOrEqual(3);
    expect(JSON.stringify(listed)).not.toContain(keys.USER);
    // A user's key cannot revoke someone else's key.
    const adminKeyId = (await prisma.apiKey.findFirstOrThrow({ where: { userId: people.ADMIN.id } })).id;
    expect(
      (
        await call(routes.key!.DELETE!, `/api/v1/admin/api-keys/${adminKeyId}`, {
          method: "DELETE",
          token: keys.USER,
          params: { id: adminKeyId },
        })
      ).status,
    ).toBe(403);
  });

  it("limits requests per key (token bucket, 429 with Retry-After) and questions running per key (run slots)", async () => {
    const created = await createApiKey(prisma, people.USER.id, { name: "busy", scopes: ["kbs:read", "ask"] });
    await prisma.apiKey.update({ where: { id: created.key.id }, data: { bucketTokens: 0.2, bucketAt: new Date() } });
    const limited = await call(routes.kbs!.GET!, "/api/v1/knowledge-bases", { token: created.token });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect((await problem(limited)).code).toBe("RATE_LIMITED");
    // The bucket refills with time.
    await prisma.apiKey.update({ where: { id: created.key.id }, data: { bucketAt: new Date(Date.now() - 5_000) } });
    expect((await call(routes.kbs!.GET!, "/api/v1/knowledge-bases", { token: created.token })).status).toBe(200);

    // As many questions running for this key as one person may have: the next ask is refused before it starts.
    await prisma.runSlot.createMany({
      data: [1, 2, 3].map(() => ({ principal: `key:${created.key.id}`, expiresAt: new Date(Date.now() + 60_000) })),
    });
    const busy = await call(routes.ask!.POST!, "/api/v1/ask", {
      token: created.token,
      body: { question: "How many orders were returned?" },
    });
    expect(busy.status).toBe(429);
    expect((await problem(busy)).detail).toMatch(/running/);
    // The owner's browser session has its own allowance.
    expect(await prisma.runSlot.count({ where: { principal: `user:${people.USER.id}` } })).toBe(0);
  });

  it("keeps the same-origin rule for cookie requests, and lets a bare bearer request through from anywhere", async () => {
    const evil = { origin: "https://evil.example", "sec-fetch-site": "cross-site" };
    session = people.USER;
    try {
      const forged = await call(routes.ask!.POST!, "/api/v1/ask", {
        body: { question: "How many orders were returned?" },
        headers: { ...evil, cookie: "next-auth.session-token=abc" },
      });
      expect(forged.status).toBe(403);
      // Cookie and bearer together count as a session request: still refused.
      const both = await call(routes.ask!.POST!, "/api/v1/ask", {
        token: keys.USER,
        body: { question: "How many orders were returned?" },
        headers: { ...evil, cookie: "next-auth.session-token=abc" },
      });
      expect(both.status).toBe(403);
      // The signed-in page's own request works with its session, whatever scopes (sessions are not scoped).
      const own = await call(routes.kbs!.GET!, "/api/v1/knowledge-bases", { headers: { cookie: "next-auth.session-token=abc" } });
      expect(own.status).toBe(200);
    } finally {
      session = null;
    }
    const script = await call(routes.kbs!.GET!, "/api/v1/knowledge-bases", { token: keys.USER, headers: evil });
    expect(script.status).toBe(200);
  });
});
