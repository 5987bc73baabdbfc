import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import type { NextRequest } from "next/server";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { ApiScope } from "@/lib/auth/api-keys.validation";
import type { CurrentUser } from "@/lib/auth/session";
import type { PrismaClient } from "@/lib/db/generated/client";
import { MCP_ATTACKS, MCP_SECRETS, type McpAttack } from "../../support/attack-corpus";
import { type RouteServer, serveRoute } from "../../support/route-server";
import { createTestDatabase, TARGET_ENGINE, type TestDatabase } from "../support/test-database";
import { openApiTestWorkspace } from "../support/api-test-workspace";

/**
 * The MCP server at /api/mcp (issue 29, part 3) through the MCP SDK's own Client and Streamable HTTP
 * transport, over a real HTTP server in front of the app's route handler, on a real database with the
 * demo catalog: each role's key, a key without the scope a tool needs, a key with none of the MCP scopes,
 * bad keys, unknown tools and bad arguments, and the MCP part of the attack corpus. The one seam is the
 * session lookup (next-auth needs a live request context), which no request here uses.
 */
vi.mock("@/lib/auth/session", () => ({ getCurrentUser: async () => null }));

type Handler = (req: NextRequest, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;

interface TextResult {
  isError?: boolean;
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
}

describe(`MCP server with API keys (${TARGET_ENGINE})`, () => {
  let testDb: TestDatabase;
  let prisma: PrismaClient;
  let server: RouteServer;
  let createApiKey: typeof import("@/lib/auth/api-keys").createApiKey;
  const people = {} as Record<"ADMIN" | "ANALYST" | "USER", CurrentUser>;
  const keys = {} as Record<"ADMIN" | "ANALYST" | "USER", string>;
  const clients: Client[] = [];
  let hrId: string;
  let plansId: string;
  const keyFor = async (who: CurrentUser, scopes: ApiScope[], name = "mcp test") =>
    (await createApiKey(prisma, who.id, { name, scopes })).token;

  /** A connected SDK client (initialize + initialized, as any MCP client does) acting with `token`. */
  async function connect(token: string): Promise<Client> {
    const client = new Client({ name: "mosaic-test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
    );
    clients.push(client);
    return client;
  }

  const text = (r: TextResult) => r.content.map((c) => c.text ?? "").join("\n");

  beforeAll(async () => {
    testDb = await createTestDatabase();
    prisma = await openApiTestWorkspace(testDb);
    const { catalogDeps } = await import("@/lib/deps");
    ({ createApiKey } = await import("@/lib/auth/api-keys"));
    for (const role of ["ADMIN", "ANALYST", "USER"] as const) {
      const u = await prisma.user.findFirstOrThrow({ where: { role }, include: { memberships: true } });
      people[role] = { id: u.id, email: u.email, name: u.name, role, groupIds: u.memberships.map((m) => m.groupId) };
      keys[role] = await keyFor(people[role], ["ask", "kbs:read", "runs:read"], `${role} mcp`);
    }
    const { registerKnowledgeBase } = await import("@/lib/ingest/register");
    hrId = (
      await registerKnowledgeBase(
        prisma,
        catalogDeps(),
        people.ADMIN.id,
        { kind: "DOCUMENTS", name: "HR salaries", connection: { language: "en" } },
        [{ name: "salaries.md", bytes: Buffer.from(`# Salaries\n\nThe salary of Jane Roe is ${MCP_SECRETS.privateKb} EUR per year.\n`) }],
      )
    ).id;
    const analysts = await prisma.group.findUniqueOrThrow({ where: { name: "Analysts" } });
    plansId = (
      await registerKnowledgeBase(
        prisma,
        catalogDeps(),
        people.ADMIN.id,
        { kind: "DOCUMENTS", name: "Analyst plans", connection: { language: "en" }, groupIds: [analysts.id] },
        [{ name: "plans.md", bytes: Buffer.from(`# Plans\n\nProject ${MCP_SECRETS.analystKb} expands into Iceland in 2026.\n`) }],
      )
    ).id;
    const route = (await import("@/app/api/mcp/route")) as unknown as Record<string, Handler>;
    server = await serveRoute("/api/mcp", { POST: route.POST, GET: route.GET, DELETE: route.DELETE });
  }, 180_000);

  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    await server?.close();
    const { closeAllBackends } = await import("@/lib/backends/registry");
    await closeAllBackends();
    const g = globalThis as unknown as { __mosaicDb?: Promise<{ handle: { close(): Promise<void> } }> };
    await (await g.__mosaicDb)?.handle.close();
    delete g.__mosaicDb;
    await testDb?.cleanup();
  });

  it("lists the tools and the run-evidence resource template to a key with every MCP scope", async () => {
    const client = await connect(keys.USER);
    expect(client.getServerVersion()?.name).toBe("mosaic");
    const tools = (await client.listTools()).tools;
    expect(tools.map((t) => t.name).sort()).toEqual(["ask", "get_run_evidence", "list_knowledge_bases", "search_knowledge_base"]);
    const ask = tools.find((t) => t.name === "ask")!;
    expect(ask.inputSchema.required).toEqual(["question"]);
    expect((ask.inputSchema.properties as Record<string, { maxLength?: number }>).question!.maxLength).toBe(10_000);
    const templates = (await client.listResourceTemplates()).resourceTemplates;
    expect(templates.map((t) => t.uriTemplate)).toEqual(["mosaic://runs/{runId}/evidence"]);
  });

  it("asks as the key's user: the answer with numbered citations, structured content, the run's evidence as tool and resource, audited", async () => {
    const client = await connect(keys.USER);
    const result = (await client.callTool({ name: "ask", arguments: { question: "How many orders were returned?" } })) as TextResult;
    expect(result.isError).toBeFalsy();
    expect(text(result)).toMatch(/\b7\b[\s\S]*\[1\][\s\S]*Sources:\n\[1\] /);
    const s = result.structuredContent as { answer: string; runId: string; status: string; citations: { n: number; evidenceId: string }[] };
    expect(s.status).toBe("ANSWERED");
    expect(s.answer).toMatch(/\b7\b/);
    expect(s.citations[0]!.n).toBe(1);

    const evidence = (await client.callTool({ name: "get_run_evidence", arguments: { runId: s.runId } })) as TextResult;
    expect(evidence.isError).toBeFalsy();
    const ev = evidence.structuredContent as { runId: string; citations: string[]; evidence: { id: string }[] };
    expect(ev.runId).toBe(s.runId);
    expect(ev.citations).toEqual(s.citations.map((c) => c.evidenceId));
    expect(text(evidence)).toMatch(/^\[1\] /);

    const listed = (await client.listResources()).resources.map((r) => r.uri);
    expect(listed).toContain(`mosaic://runs/${s.runId}/evidence`);
    const read = await client.readResource({ uri: `mosaic://runs/${s.runId}/evidence` });
    expect(read.contents[0]!.mimeType).toBe("application/json");
    expect(JSON.parse((read.contents[0] as { text: string }).text)).toEqual(ev);

    // Audited like an API ask (the write does not hold up the answer, so wait for it).
    await vi.waitFor(
      async () => expect(await prisma.auditEvent.count({ where: { action: "ask", runId: s.runId, actorId: people.USER.id } })).toBe(1),
      { timeout: 5_000 },
    );
    await vi.waitFor(async () => expect(await prisma.auditEvent.count({ where: { action: "evidence.open", runId: s.runId } })).toBe(2), {
      timeout: 5_000,
    });
  });

  it("searches one knowledge base the user may use and returns ranked evidence", async () => {
    const client = await connect(keys.ANALYST);
    const result = (await client.callTool({
      name: "search_knowledge_base",
      arguments: { kbId: plansId, query: "Where does Project Nightjar expand?", limit: 3 },
    })) as TextResult;
    expect(result.isError).toBeFalsy();
    const s = result.structuredContent as { kbId: string; evidence: { kb: string; text: string }[] };
    expect(s.kbId).toBe(plansId);
    expect(s.evidence.length).toBeGreaterThan(0);
    expect(s.evidence.length).toBeLessThanOrEqual(3);
    expect(s.evidence.every((e) => e.kb === "Analyst plans")).toBe(true);
    expect(text(result)).toContain("Iceland");
  });

  it("lists to each role exactly the knowledge bases its user may use", async () => {
    const names = async (role: keyof typeof keys) => {
      const r = (await (await connect(keys[role])).callTool({ name: "list_knowledge_bases", arguments: {} })) as TextResult;
      return (r.structuredContent as { knowledgeBases: { name: string }[] }).knowledgeBases.map((k) => k.name);
    };
    expect(await names("ADMIN")).toEqual(expect.arrayContaining(["HR salaries", "Analyst plans", "Aurora sales database"]));
    const analyst = await names("ANALYST");
    expect(analyst).toContain("Analyst plans");
    expect(analyst).not.toContain("HR salaries");
    const user = await names("USER");
    expect(user).not.toContain("HR salaries");
    expect(user).not.toContain("Analyst plans");
    expect(user.length).toBe(3);
  });

  it("hides and refuses the tools a key lacks the scope for, naming the scope; refuses a key with no MCP scope with 403", async () => {
    const kbsOnly = await connect(await keyFor(people.ADMIN, ["kbs:read"]));
    expect((await kbsOnly.listTools()).tools.map((t) => t.name)).toEqual(["list_knowledge_bases"]);
    expect((await kbsOnly.listResourceTemplates()).resourceTemplates).toEqual([]);
    for (const [name, args, scope] of [
      ["ask", { question: "How many orders were returned?" }, "ask"],
      ["search_knowledge_base", { kbId: hrId, query: "salary" }, "ask"],
      ["get_run_evidence", { runId: "x" }, "runs:read"],
    ] as const) {
      const r = (await kbsOnly.callTool({ name, arguments: args })) as TextResult;
      expect(r.isError, name).toBe(true);
      expect(text(r)).toContain(`lacks the "${scope}" scope`);
      expect(JSON.stringify(r)).not.toContain(MCP_SECRETS.privateKb);
    }
    await expect(kbsOnly.readResource({ uri: "mosaic://runs/x/evidence" })).rejects.toThrow(/runs:read/);
    // A refusal by the domain is a tool error with the plain message, which a client that checks output schemas reads as such.
    const user = await connect(keys.USER);
    await user.listTools();
    const notShared = (await user.callTool({
      name: "ask",
      arguments: { question: "What is Jane Roe's salary?", kbIds: [hrId] },
    })) as TextResult;
    expect(notShared.isError).toBe(true);
    expect(text(notShared)).toBe("One of the chosen knowledge bases does not exist or is not shared with you.");

    const askOnly = await connect(await keyFor(people.USER, ["ask"]));
    const refused = (await askOnly.callTool({ name: "list_knowledge_bases", arguments: {} })) as TextResult;
    expect(text(refused)).toContain('lacks the "kbs:read" scope');

    // A key with none of the MCP scopes does not get in: 403 problem details naming them.
    const writer = await keyFor(people.ADMIN, ["kbs:write", "guides:write"]);
    const res = await fetch(server.url, {
      method: "POST",
      headers: { authorization: `Bearer ${writer}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(res.status).toBe(403);
    expect(res.headers.get("content-type")).toContain("application/problem+json");
    expect((await res.json()).fields).toEqual({ scope: "Missing scope: one of ask, kbs:read, runs:read" });
    await expect(connect(writer)).rejects.toThrow(/403/);
  });

  it("refuses a missing, unknown, expired or revoked key with 401 problem details, before any MCP message is read", async () => {
    const post = (token?: string) =>
      fetch(server.url, {
        method: "POST",
        headers: {
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
    const none = await post();
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toContain("Bearer");
    expect((await none.json()).detail).toMatch(/API key/);
    expect((await (await post(`mosaic_abcdefgh_${"A".repeat(43)}`)).json()).detail).toMatch(/not valid/);
    const expired = await createApiKey(prisma, people.USER.id, { name: "old", scopes: ["ask"], expiresInDays: "30" });
    await prisma.apiKey.update({ where: { id: expired.key.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const exp = await post(expired.token);
    expect(exp.status).toBe(401);
    expect((await exp.json()).detail).toMatch(/expired/);
    const revoked = await createApiKey(prisma, people.USER.id, { name: "gone", scopes: ["ask"] });
    await prisma.apiKey.update({ where: { id: revoked.key.id }, data: { revokedAt: new Date() } });
    const rev = await post(revoked.token);
    expect(rev.status).toBe(401);
    expect((await rev.json()).detail).toMatch(/revoked/);
    // Stateless: no stream to open, no session to end.
    const get = await fetch(server.url, { headers: { authorization: `Bearer ${keys.USER}`, accept: "text/event-stream" } });
    expect(get.status).toBe(405);
  });

  it("answers an unknown tool and bad arguments with the protocol's error (-32602, naming the field), and keeps serving", async () => {
    const client = await connect(keys.USER);
    const unknown = await client.callTool({ name: "drop_database", arguments: {} }).catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(McpError);
    expect((unknown as McpError).code).toBe(-32602);
    expect((unknown as McpError).message).toContain("Unknown tool: drop_database");

    const empty = await client.callTool({ name: "ask", arguments: { question: "   " } }).catch((e: unknown) => e);
    expect(empty).toBeInstanceOf(McpError);
    expect((empty as McpError).code).toBe(-32602);
    expect((empty as McpError).message).toContain("question: Type a question first.");
    const wrongType = await client.callTool({ name: "ask", arguments: { question: "x", kbIds: "all" } }).catch((e: unknown) => e);
    expect((wrongType as McpError).message).toMatch(/kbIds/);
    const missing = await client.callTool({ name: "search_knowledge_base", arguments: { query: "x" } }).catch((e: unknown) => e);
    expect((missing as McpError).message).toMatch(/kbId/);
    const badUri = await client.readResource({ uri: "mosaic://secrets" }).catch((e: unknown) => e);
    expect((badUri as McpError).code).toBe(-32002);

    // A malformed JSON-RPC message is the transport's error; the server still answers the next one.
    const malformed = await fetch(server.url, {
      method: "POST",
      headers: { authorization: `Bearer ${keys.USER}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ hello: "world" }),
    });
    expect(malformed.status).toBe(400);
    expect((await malformed.json()).error.code).toBe(-32700);

    const after = (await client.callTool({ name: "list_knowledge_bases", arguments: {} })) as TextResult;
    expect(after.isError).toBeFalsy();
  });

  describe("attack corpus: a key never reaches a knowledge base its user cannot", () => {
    let adminRun: string;
    beforeAll(async () => {
      // Not vacuous: the admin's key reads the private knowledge base through the same tools.
      const admin = await connect(keys.ADMIN);
      const r = (await admin.callTool({
        name: "ask",
        arguments: { question: "What is the salary of Jane Roe?", kbIds: [hrId] },
      })) as TextResult;
      expect(JSON.stringify(r)).toContain(MCP_SECRETS.privateKb);
      adminRun = (r.structuredContent as { runId: string }).runId;
      const s = (await admin.callTool({
        name: "search_knowledge_base",
        arguments: { kbId: hrId, query: "salary of Jane Roe" },
      })) as TextResult;
      expect(text(s)).toContain(MCP_SECRETS.privateKb);
    }, 120_000);

    const fill = (v: unknown): unknown =>
      JSON.parse(JSON.stringify(v).replaceAll("{privateKb}", hrId).replaceAll("{analystKb}", plansId).replaceAll("{adminRun}", adminRun));

    it.each(MCP_ATTACKS.map((a) => [a.name, a] as const))("%s", async (_, attack: McpAttack) => {
      // A key of its own per case: the corpus must not run into the per-key request allowance.
      const client = await connect(await keyFor(people[attack.as], ["ask", "kbs:read", "runs:read"], attack.name.slice(0, 80)));
      // As a real client does: list the tools first, so the client checks results against their output schemas.
      await client.listTools();
      let outcome: unknown;
      let refused = false;
      try {
        if ("tool" in attack.call) {
          const r = (await client.callTool({
            name: attack.call.tool,
            arguments: fill(attack.call.arguments) as Record<string, unknown>,
          })) as TextResult;
          refused = r.isError === true;
          outcome = r;
        } else {
          outcome = await client.readResource({ uri: fill(attack.call.resource) as string });
        }
      } catch (e) {
        expect(e, String(e)).toBeInstanceOf(McpError);
        refused = true;
        outcome = { error: (e as Error).message };
      }
      const seen = JSON.stringify(outcome);
      expect(seen).not.toContain(MCP_SECRETS.privateKb);
      if (attack.as === "USER") expect(seen).not.toContain(MCP_SECRETS.analystKb);
      if (attack.mustNotName) {
        expect(seen).not.toContain("HR salaries");
        if (attack.as === "USER") expect(seen).not.toContain("Analyst plans");
      }
      if (attack.refused) expect(refused, seen.slice(0, 300)).toBe(true);
      // The server keeps serving the same client after a refusal.
      expect(((await client.callTool({ name: "list_knowledge_bases", arguments: {} })) as TextResult).isError).toBeFalsy();
    });
  });
});
