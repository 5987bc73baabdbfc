import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import OpenAI from "openai";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEMO_USERS } from "@/lib/db/seed";
import { SignInPage } from "./pages/sign-in-page";
import { baseUrl, launchBrowser, newPage, screenshot } from "./support/browser";

/**
 * Issue 29 against the running app: a knowledge base registered with nothing chosen stays private to
 * admins (browser and API), the demo-accounts banner, an API key made on the profile page and used by
 * scripts (plain fetch, Server-Sent Events), by the `openai` package and by the MCP SDK's own client as clients.
 */
let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
});

async function signedIn(role: "ADMIN" | "ANALYST" | "USER"): Promise<{ page: Page; close: () => Promise<void> }> {
  const demo = DEMO_USERS.find((u) => u.role === role)!;
  const { context, page } = await newPage(browser);
  await new SignInPage(page).open();
  await new SignInPage(page).signIn(demo.email, demo.password);
  await page.waitForURL(/\/ask$/);
  return { page, close: () => context.close() };
}

/** Creates a key on the profile page and reads the token shown once. */
async function createKey(page: Page, name: string, scopes: string[]): Promise<string> {
  await page.goto("/profile");
  const form = page.getByRole("form", { name: "Create an API key" });
  await form.getByLabel("Name").fill(name);
  for (const box of await form.getByRole("checkbox").all()) await box.uncheck();
  for (const s of scopes) await form.getByRole("checkbox", { name: new RegExp(`^${s} —`) }).check();
  await form.getByRole("button", { name: "Create key" }).click();
  const token = (await page.getByTestId("new-api-key").innerText()).trim();
  expect(token).toMatch(/^mosaic_[a-z0-9]{8}_/);
  return token;
}

const api = (token: string, path: string, init: RequestInit = {}) =>
  fetch(`${baseUrl()}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, ...(init.headers ?? {}) } });

describe("private by default, API keys and the API (issue 29)", () => {
  const kbName = `Salaries ${Date.now()}`;
  let adminKey: string;
  let userKey: string;

  it("registers a knowledge base that only admins see until shared; admins see the demo-accounts banner", async () => {
    const admin = await signedIn("ADMIN");
    try {
      expect(await admin.page.getByTestId("demo-accounts-banner").innerText()).toContain("user@mosaic.local");
      await admin.page.goto("/knowledge-bases/new");
      const form = admin.page.getByRole("form", { name: "Register a knowledge base" });
      await form.getByText("Documents", { exact: true }).click();
      await form.getByLabel("Name").fill(kbName);
      const access = form.getByRole("group", { name: "Who may use it" });
      expect(await access.innerText()).toContain("Only admins may use it until you choose groups or every signed-in user.");
      expect(await access.getByLabel("Every signed-in user").isChecked()).toBe(false);
      await form
        .getByLabel(/^Files?$/)
        .setInputFiles([
          { name: "salaries.md", mimeType: "text/markdown", buffer: Buffer.from("# Salaries\n\nThe salary of Jane Roe is 98,000 EUR.\n") },
        ]);
      await screenshot(admin.page, "kb-register-private-by-default");
      await form.getByRole("button", { name: "Register" }).click();
      await admin.page.waitForURL(/\/knowledge-bases\/(?!new$)[^/]+$/, { timeout: 60_000 });
      expect(await admin.page.getByTestId("kb-access").innerText()).toMatch(/^Admins only/);
      adminKey = await createKey(admin.page, "e2e admin", ["ask", "kbs:read", "runs:read"]);
      await screenshot(admin.page, "profile-api-key-created");
    } finally {
      await admin.close();
    }
    const user = await signedIn("USER");
    try {
      expect(await user.page.getByTestId("demo-accounts-banner").count()).toBe(0);
      await user.page.goto("/ask");
      expect(await user.page.locator("main").innerText()).not.toContain(kbName);
      userKey = await createKey(user.page, "e2e user", ["ask", "kbs:read"]);
      // Shown once: after a reload only the prefix is listed.
      await user.page.reload();
      expect(await user.page.locator("main").innerText()).not.toContain(userKey);
      expect(await user.page.getByTestId("api-key-row").first().innerText()).toContain(userKey.slice(0, "mosaic_".length + 8)); // mosaic_ and the 8-character prefix
    } finally {
      await user.close();
    }
  });

  it("the API answers each key as its user: the private knowledge base is the admin's only", async () => {
    const names = async (token: string) =>
      ((await (await api(token, "/api/v1/knowledge-bases")).json()) as { knowledgeBases: { name: string }[] }).knowledgeBases.map(
        (k) => k.name,
      );
    expect(await names(adminKey)).toContain(kbName);
    expect(await names(userKey)).not.toContain(kbName);
    const refused = await api(userKey, "/api/v1/runs/x");
    expect(refused.status).toBe(403);
    expect(refused.headers.get("content-type")).toContain("application/problem+json");
    expect((await refused.json()).fields).toEqual({ scope: "Missing scope: runs:read" });
    const doc = await (await fetch(`${baseUrl()}/api/v1/openapi.json`)).json();
    expect(doc.openapi).toBe("3.1.0");
  });

  it("streams an answer as Server-Sent Events to a script on another origin", async () => {
    const res = await api(userKey, "/api/v1/ask", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream", origin: "https://scripts.example" },
      body: JSON.stringify({ question: "How many orders were returned?" }),
    });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain("event: stage");
    const answer = /event: answer\ndata: (.+)\n/.exec(text);
    expect(JSON.parse(answer![1]!).answer).toMatch(/\b7\b/);
  });

  it("works with the openai package as the client, whole and streamed, and refuses what the key's user may not use", async () => {
    const client = new OpenAI({ apiKey: userKey, baseURL: `${baseUrl()}/api/v1`, maxRetries: 0 });
    const models = await client.models.list();
    const ids = models.data.map((m) => m.id);
    expect(ids).toContain("mosaic");
    expect(ids.filter((id) => id.startsWith("mosaic/")).length).toBeGreaterThanOrEqual(3); // the demo knowledge bases
    const completion = await client.chat.completions.create({
      model: "mosaic",
      messages: [{ role: "user", content: "How many orders were returned?" }],
    });
    expect(completion.choices[0]!.message.content).toMatch(/\b7\b[\s\S]*\[1\][\s\S]*Sources:/);
    const stream = await client.chat.completions.create({
      model: "mosaic",
      stream: true,
      messages: [{ role: "user", content: "How many orders were returned?" }],
    });
    let text = "";
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? "";
    expect(text).toMatch(/\b7\b[\s\S]*Sources:/);
    // The client resends the history with a follow-up: it is completed from the conversation that history names.
    const first = "Who is the chief executive of Aurora Outfitters AB?";
    const answer = (await client.chat.completions.create({ model: "mosaic", messages: [{ role: "user", content: first }] })).choices[0]!
      .message.content!;
    expect(answer).toContain("Maria Lindqvist");
    const followUp = await client.chat.completions.create({
      model: "mosaic",
      messages: [
        { role: "user", content: first },
        { role: "assistant", content: answer },
        { role: "user", content: "Where is it located?" },
      ],
    });
    expect(followUp.choices[0]!.message.content).toContain("Stockholm");

    const adminClient = new OpenAI({ apiKey: adminKey, baseURL: `${baseUrl()}/api/v1`, maxRetries: 0 });
    const privateModel = (await adminClient.models.list()).data.map((m) => m.id).find((id) => !ids.includes(id));
    expect(privateModel).toMatch(/^mosaic\//);
    await expect(
      client.chat.completions.create({ model: privateModel!, messages: [{ role: "user", content: "What is the salary of Jane Roe?" }] }),
    ).rejects.toMatchObject({ status: 404 });
    await expect(
      new OpenAI({ apiKey: "mosaic_wrongkey_x", baseURL: `${baseUrl()}/api/v1`, maxRetries: 0 }).models.list(),
    ).rejects.toMatchObject({
      status: 401,
    });
  });

  it("serves the MCP SDK's own client over Streamable HTTP: tools as the key's user, the private knowledge base the admin's only", async () => {
    const connect = async (token: string) => {
      const client = new Client({ name: "mosaic-e2e", version: "1.0.0" });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${baseUrl()}/api/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      );
      return client;
    };
    const user = await connect(userKey);
    const admin = await connect(adminKey);
    try {
      // The user's key has ask and kbs:read: run evidence is not offered.
      expect((await user.listTools()).tools.map((t) => t.name).sort()).toEqual(["ask", "list_knowledge_bases", "search_knowledge_base"]);
      type Listed = { structuredContent?: { knowledgeBases: { id: string; name: string }[] } };
      const kbs = async (c: Client) =>
        ((await c.callTool({ name: "list_knowledge_bases", arguments: {} })) as Listed).structuredContent!.knowledgeBases;
      expect((await kbs(user)).map((k) => k.name)).not.toContain(kbName);
      const privateKb = (await kbs(admin)).find((k) => k.name === kbName)!;
      expect(privateKb).toBeDefined();

      const answer = (await user.callTool({ name: "ask", arguments: { question: "How many orders were returned?" } })) as {
        content: { text: string }[];
      };
      expect(answer.content[0]!.text).toMatch(/\b7\b[\s\S]*\[1\][\s\S]*Sources:/);
      const refused = (await user.callTool({
        name: "search_knowledge_base",
        arguments: { kbId: privateKb.id, query: "salary of Jane Roe" },
      })) as { isError?: boolean; content: { text: string }[] };
      expect(refused.isError).toBe(true);
      expect(JSON.stringify(refused)).not.toContain("98,000");
      const found = (await admin.callTool({
        name: "search_knowledge_base",
        arguments: { kbId: privateKb.id, query: "salary of Jane Roe" },
      })) as { content: { text: string }[] };
      expect(found.content[0]!.text).toContain("98,000");

      const unknown = await user.callTool({ name: "no_such_tool", arguments: {} }).catch((e: unknown) => e);
      expect(unknown).toBeInstanceOf(McpError);
      expect((unknown as McpError).code).toBe(-32602);
      expect(((await user.callTool({ name: "list_knowledge_bases", arguments: {} })) as { isError?: boolean }).isError).toBeFalsy();
    } finally {
      await user.close();
      await admin.close();
    }
  });
});
