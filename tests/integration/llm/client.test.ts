import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { LlmClient, endpointMode, forgetEndpointQuirks } from "@/lib/llm/client";
import { llmConfig } from "@/lib/llm/config";
import { type FakeOpenAi, startFakeOpenAi } from "../../support/fake-openai/server";

/** The provider over the openai SDK, against the fake endpoint: adaptation to what an endpoint accepts, validation, usage. */

let fake: FakeOpenAi;
beforeAll(async () => {
  fake = await startFakeOpenAi();
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => {
  fake.reset();
  forgetEndpointQuirks();
});

const schema = z.object({ answer: z.string() });
const SYSTEM = "You answer. (task: answer)";
const client = (over: Parameters<typeof llmConfig>[0] extends infer T ? Partial<T> : never = {}) =>
  new LlmClient(llmConfig({ baseUrl: fake.url, model: "gpt-4o-mini", apiKey: "sk-test", timeoutMs: 2_000, maxRetries: 1, ...over }));
const ask = (c: LlmClient, model = "gpt-4o-mini") => c.complete({ task: "answer", model, system: SYSTEM, user: "Q", schema });

describe("LlmClient", () => {
  it("returns validated JSON with usage and cost", async () => {
    fake.on("answer", { json: { answer: "7" }, usage: { prompt_tokens: 2_000, completion_tokens: 50 }, model: "gpt-4o-mini-2024-07-18" });
    const r = await ask(client());
    expect(r).toMatchObject({
      ok: true,
      value: { answer: "7" },
      usage: {
        model: "gpt-4o-mini-2024-07-18",
        promptTokens: 2_000,
        completionTokens: 50,
        priceKnown: true,
        attempts: 1,
        mode: "json_schema",
      },
    });
    expect(r.usage.costUsd).toBeCloseTo((2_000 * 0.15 + 50 * 0.6) / 1e6, 12);
    const body = fake.requests[0].body!;
    expect(body).toMatchObject({ model: "gpt-4o-mini", temperature: 0, max_tokens: 2_048 });
    expect(fake.requests[0].headers.authorization).toBe("Bearer sk-test");
  });

  it("steps down from structured outputs to JSON mode to prompted JSON, once per endpoint and model", async () => {
    fake.setOptions({ rejectJsonSchema: true, rejectJsonObject: true });
    fake.on("answer", { content: 'Here: ```json\n{"answer": "7"}\n```' });
    const c = client();
    expect(await ask(c)).toMatchObject({ ok: true, value: { answer: "7" }, usage: { mode: "prompt", attempts: 3 } });
    expect(endpointMode(fake.url, "gpt-4o-mini")).toBe("prompt");
    expect(await ask(c)).toMatchObject({ ok: true, usage: { mode: "prompt", attempts: 1 } });
    expect(fake.requests.map((r) => r.responseFormat)).toEqual(["json_schema", "json_object", null, null]);
    expect(fake.requests[2].system).toMatch(/It must match this JSON Schema:\n\{"type":"object"/);
    // Another model on the same endpoint is asked for structured outputs again.
    fake.setOptions({ rejectJsonSchema: false, rejectJsonObject: false });
    await ask(c, "gpt-4o");
    expect(fake.requests.at(-1)?.responseFormat).toBe("json_schema");
  });

  it("adapts to models that refuse max_tokens or a temperature", async () => {
    let n = 0;
    fake.on("answer", (req) => {
      n++;
      if (req.body?.max_tokens !== undefined)
        return {
          status: 400,
          body: {
            error: {
              message: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
              type: "invalid_request_error",
            },
          },
        };
      if (req.body?.temperature !== undefined)
        return {
          status: 400,
          body: {
            error: { message: "Unsupported value: 'temperature' does not support 0 with this model.", type: "invalid_request_error" },
          },
        };
      return { json: { answer: "ok" } };
    });
    const r = await ask(client());
    expect(r).toMatchObject({ ok: true, usage: { attempts: 3 } });
    expect(n).toBe(3);
    expect(fake.requests.at(-1)?.body).toMatchObject({ max_completion_tokens: 2_048 });
    expect(fake.requests.at(-1)?.body?.temperature).toBeUndefined();
  });

  it("says why output is unusable, and still counts its tokens", async () => {
    fake.once("answer", {
      content: '{"answer": "7", "extra',
      finishReason: "length",
      usage: { prompt_tokens: 10, completion_tokens: 2_048 },
    });
    const cut = await ask(client());
    expect(cut).toMatchObject({
      ok: false,
      error: { kind: "invalid_output", message: "the reply was cut at the output token limit before its JSON ended" },
      usage: { completionTokens: 2_048 },
    });
    fake.once("answer", { json: { answer: ["7"] } });
    expect(await ask(client())).toMatchObject({
      ok: false,
      error: { message: expect.stringMatching(/^the reply does not match the expected schema \(answer: /) },
    });
  });

  it("estimates tokens when the endpoint reports no usage, and prices an unknown model at 0", async () => {
    fake.on("answer", { json: { answer: "x" }, usage: null });
    const r = await ask(client(), "local-model");
    expect(r).toMatchObject({ ok: true, usage: { model: "local-model", tokensEstimated: true, priceKnown: false, costUsd: 0 } });
    expect(r.usage.promptTokens).toBeGreaterThan(10);
    expect(r.usage.completionTokens).toBe(Math.ceil('{"answer":"x"}'.length / 4));
  });

  it("gives up at once when Retry-After asks for longer than a run can wait", async () => {
    fake.on("answer", {
      status: 429,
      headers: { "retry-after": "120" },
      body: { error: { message: "Rate limit reached", type: "requests" } },
    });
    const r = await ask(client());
    expect(r).toMatchObject({
      ok: false,
      error: { kind: "rate_limited", message: "429 rate limited: Rate limit reached (the endpoint asks to wait 120 s)" },
    });
    expect(fake.requests).toHaveLength(1);
  });

  it("does not start a request past the deadline", async () => {
    fake.on("answer", { json: { answer: "x" } });
    const r = await client().complete({
      task: "answer",
      model: "gpt-4o-mini",
      system: SYSTEM,
      user: "Q",
      schema,
      deadline: Date.now() + 100,
    });
    expect(r).toMatchObject({ ok: false, error: { kind: "budget" } });
    expect(fake.requests).toHaveLength(0);
  });
});
