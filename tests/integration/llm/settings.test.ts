import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { openAndBootstrap } from "@/lib/db/bootstrap";
import type { DatabaseHandle } from "@/lib/db/connect";
import { parseLlmEnv } from "@/lib/env";
import { LLM_STAGES } from "@/lib/llm/config";
import { getLlmSettingsView, keyForTest, saveLlmSettings } from "@/lib/settings/llm-settings";
import { LLM_SETTING_KEY, loadLlmSettings } from "@/lib/llm/settings";
import type { LlmSettingsInput } from "@/lib/settings/llm-settings.validation";
import { testLlmConnection } from "@/lib/settings/test-connection";
import { type FakeOpenAi, startFakeOpenAi } from "../../support/fake-openai/server";
import { TARGET_ENGINE, createTestDatabase, type TestDatabase } from "../support/test-database";

/** Settings stored in the database (real PGlite), and "Test connection" against the fake endpoint. */

const KEY = Buffer.alloc(32, 3);
const env = parseLlmEnv({ LLM_BASE_URL: "http://localhost:11434/v1", LLM_MODEL: "llama3.1:8b" });

let db: TestDatabase;
let handle: DatabaseHandle;
let fake: FakeOpenAi;

beforeAll(async () => {
  db = await createTestDatabase({ seed: false });
  handle = (await openAndBootstrap(db.env)).handle;
  fake = await startFakeOpenAi();
}, 120_000);
afterAll(async () => {
  await fake.close();
  await handle.close();
  await db.cleanup();
});
beforeEach(() => fake.reset());

function input(over: Partial<LlmSettingsInput> = {}): LlmSettingsInput {
  return {
    enabled: true,
    baseUrl: "https://api.openai.com/v1",
    model: "gpt-4o-mini",
    apiKey: { action: "keep" },
    stages: LLM_STAGES.map((stage) => ({ stage, enabled: true, model: "" })),
    timeoutMs: null,
    maxRetries: null,
    structuredOutputs: "auto",
    prices: [],
    ...over,
  };
}

describe(`LLM settings in the database (${TARGET_ENGINE})`, () => {
  it("stores the API key encrypted, never shows it, and replaces or clears it", async () => {
    const prisma = handle.prisma;
    await saveLlmSettings(
      prisma,
      KEY,
      input({
        apiKey: { action: "replace", value: "sk-live-1234567890" },
        stages: LLM_STAGES.map((stage) => ({ stage, enabled: stage !== "critique", model: stage === "answer" ? "gpt-4o" : "" })),
      }),
    );
    const row = await prisma.setting.findUniqueOrThrow({ where: { key: LLM_SETTING_KEY } });
    expect(row.secretCiphertext).toMatch(/^v1\./);
    expect(JSON.stringify(row)).not.toContain("sk-live-1234567890");

    const view = await getLlmSettingsView(prisma, KEY, env);
    expect(JSON.stringify(view)).not.toContain("sk-live");
    expect(view.apiKey).toEqual({ set: true, source: "settings" });
    expect(view).toMatchObject({
      baseUrl: "https://api.openai.com/v1",
      model: "gpt-4o-mini",
      defaults: { baseUrl: "http://localhost:11434/v1", model: "llama3.1:8b" },
      effective: { status: "ready", problems: [] },
    });
    expect(view.stages.find((s) => s.stage === "critique")).toMatchObject({ enabled: false });
    expect(view.stages.find((s) => s.stage === "answer")).toMatchObject({ model: "gpt-4o" });

    const resolved = await loadLlmSettings(prisma, KEY, env);
    expect(resolved.config).toMatchObject({
      apiKey: "sk-live-1234567890",
      baseUrl: "https://api.openai.com/v1",
      stages: { answer: { enabled: true, model: "gpt-4o" }, critique: { enabled: false } },
    });

    // Saving other fields keeps the key; "clear" removes it and the hosted endpoint becomes a configuration error.
    await saveLlmSettings(prisma, KEY, input({ model: "gpt-4.1-mini" }));
    expect((await loadLlmSettings(prisma, KEY, env)).config?.apiKey).toBe("sk-live-1234567890");
    await saveLlmSettings(prisma, KEY, input({ apiKey: { action: "clear" } }));
    const cleared = await getLlmSettingsView(prisma, KEY, env);
    expect(cleared.apiKey).toEqual({ set: false, source: null });
    expect(cleared.effective.status).toBe("misconfigured");
    expect(cleared.effective.problems[0]).toMatch(/^No API key: api\.openai\.com/);
  });

  it("reports a key stored under another encryption key instead of failing", async () => {
    await saveLlmSettings(handle.prisma, KEY, input({ apiKey: { action: "replace", value: "sk-other" } }));
    const r = await loadLlmSettings(handle.prisma, Buffer.alloc(32, 4), env);
    expect(r.status).toBe("misconfigured");
    expect(r.problems[0]).toMatch(/could not be decrypted .* enter the key again/);
  });

  it("falls back to the environment when the admin's fields are empty, and switches off", async () => {
    await saveLlmSettings(handle.prisma, KEY, input({ baseUrl: "", model: "", apiKey: { action: "clear" } }));
    expect((await loadLlmSettings(handle.prisma, KEY, env)).config).toMatchObject({
      baseUrl: "http://localhost:11434/v1",
      model: "llama3.1:8b",
      apiKey: "",
    });
    await saveLlmSettings(handle.prisma, KEY, input({ enabled: false }));
    expect(await loadLlmSettings(handle.prisma, KEY, env)).toMatchObject({ config: null, status: "off" });
  });

  it("tests with the key typed in the form, else the stored one", async () => {
    await saveLlmSettings(handle.prisma, KEY, input({ apiKey: { action: "replace", value: "sk-stored" } }));
    expect(await keyForTest(handle.prisma, KEY, env, { action: "keep" })).toBe("sk-stored");
    expect(await keyForTest(handle.prisma, KEY, env, { action: "replace", value: "sk-typed" })).toBe("sk-typed");
    expect(await keyForTest(handle.prisma, KEY, parseLlmEnv({ LLM_API_KEY: "sk-env" }), { action: "clear" })).toBe("sk-env");
  });
});

describe("Test connection", () => {
  it("connects and names the model", async () => {
    fake.setOptions({ apiKey: "sk-right", models: ["gpt-4o-mini", "gpt-4o"] });
    fake.otherwise({ content: "OK" });
    const r = await testLlmConnection({ baseUrl: fake.url, apiKey: "sk-right", model: "gpt-4o-mini" });
    expect(r).toMatchObject({ ok: true, models: ["gpt-4o", "gpt-4o-mini"] });
    expect(r.message).toMatch(/^Connected: gpt-4o-mini answered in \d+ ms \(the endpoint offers 2 models\)\.$/);
    expect(fake.requests.map((q) => q.path)).toEqual(["/v1/models", "/v1/chat/completions"]);
  });

  it("says the key is wrong (401)", async () => {
    fake.setOptions({ apiKey: "sk-right" });
    const r = await testLlmConnection({ baseUrl: fake.url, apiKey: "sk-wrong", model: "gpt-4o-mini" });
    expect(r.ok).toBe(false);
    expect(r.message).toMatch(
      /^Connection failed: 401 unauthorized: the endpoint rejected the API key \(Incorrect API key provided.*\)\. Check the API key: replace it with a valid one\.$/,
    );
  });

  it("says the model is not offered, listing what is", async () => {
    fake.setOptions({ models: ["llama3.1:8b", "qwen2.5:7b"] });
    const r = await testLlmConnection({ baseUrl: fake.url, apiKey: "", model: "gpt-4o-mini" });
    expect(r).toMatchObject({
      ok: false,
      message: 'Connection works, but model "gpt-4o-mini" is not offered by this endpoint. It offers: llama3.1:8b, qwen2.5:7b.',
    });
  });

  it("says the base URL is wrong when it is not an OpenAI-compatible API", async () => {
    const r = await testLlmConnection({ baseUrl: fake.url.replace(/\/v1$/, "/api"), apiKey: "", model: "gpt-4o-mini" });
    expect(r.ok).toBe(false);
    expect(r.message).toMatch(/has no OpenAI-compatible chat endpoint \(check the base URL, usually ending in \/v1\)/);
  });

  it("says nothing is listening, and says a silent server timed out", async () => {
    const gone = await startFakeOpenAi();
    const url = gone.url;
    await gone.close();
    const refused = await testLlmConnection({ baseUrl: url, apiKey: "", model: "m" });
    expect(refused.message).toMatch(
      /could not reach http:\/\/127\.0\.0\.1:\d+\/v1: nothing is listening there \(connection refused\)\. Check the base URL, and that the server is running/,
    );
    fake.otherwise({ hang: true });
    fake.setOptions({ models: ["m"] });
    const slow = await testLlmConnection({ baseUrl: fake.url, apiKey: "", model: "m", timeoutMs: 300 });
    expect(slow.message).toBe(
      "Connection failed: no reply within 300 ms. The server did not answer in time: check that it is running and not overloaded.",
    );
  });

  it("asks for the base URL and the model before testing", async () => {
    expect((await testLlmConnection({ baseUrl: "", apiKey: "", model: "m" })).message).toBe("Enter the base URL of the endpoint first.");
    expect((await testLlmConnection({ baseUrl: fake.url, apiKey: "", model: "" })).message).toBe("Enter the model to test first.");
  });
});
