import { describe, expect, it } from "vitest";
import { EnvError, parseLlmEnv } from "@/lib/env";
import { endpointNeedsKey, envPrices, envStages, resolveLlmSettings } from "@/lib/llm/settings";

const stored = (over: Record<string, unknown> = {}) => ({
  enabled: true,
  baseUrl: null,
  model: null,
  stages: {},
  timeoutMs: null,
  maxRetries: null,
  structuredOutputs: null,
  prices: {},
  ...over,
});
const noKey = { value: null, error: null };

describe("LLM settings: environment defaults, Settings overrides", () => {
  it("is off when nothing is configured", () => {
    expect(resolveLlmSettings(stored(), noKey, parseLlmEnv({}))).toMatchObject({ config: null, status: "off", problems: [] });
  });

  it("takes the endpoint, model, per-stage models and stages from the environment", () => {
    const env = parseLlmEnv({
      LLM_BASE_URL: "http://localhost:11434/v1",
      LLM_MODEL: "llama3.1:8b",
      LLM_MODEL_ANSWER: "qwen2.5:14b",
      LLM_STAGES: "understand, answer",
      LLM_TIMEOUT_MS: "5000",
    });
    const r = resolveLlmSettings(stored(), noKey, env);
    expect(r.status).toBe("ready");
    expect(r.config).toMatchObject({
      baseUrl: "http://localhost:11434/v1",
      apiKey: "",
      model: "llama3.1:8b",
      timeoutMs: 5000,
      maxRetries: 2,
      structuredOutputs: "auto",
    });
    expect(r.config!.stages.answer).toEqual({ enabled: true, model: "qwen2.5:14b" });
    expect(r.config!.stages.understand).toEqual({ enabled: true, model: "llama3.1:8b" });
    expect(r.config!.stages.critique.enabled).toBe(false);
  });

  it("lets the admin's values win, per field and per stage, and switch the LLM off", () => {
    const env = parseLlmEnv({ LLM_BASE_URL: "http://localhost:11434/v1", LLM_MODEL: "llama3.1:8b", LLM_API_KEY: "env-key" });
    const r = resolveLlmSettings(
      stored({
        baseUrl: "https://api.openai.com/v1",
        model: "gpt-4o-mini",
        stages: { critique: { enabled: false, model: null }, answer: { enabled: null, model: "gpt-4o" } },
        timeoutMs: 9000,
      }),
      { value: "sk-admin", error: null },
      env,
    );
    expect(r.config).toMatchObject({ baseUrl: "https://api.openai.com/v1", apiKey: "sk-admin", model: "gpt-4o-mini", timeoutMs: 9000 });
    expect(r.config!.stages.answer).toEqual({ enabled: true, model: "gpt-4o" });
    expect(r.config!.stages.critique.enabled).toBe(false);
    expect(r.apiKeySource).toBe("settings");
    expect(resolveLlmSettings(stored({ enabled: false }), noKey, env)).toMatchObject({ config: null, status: "off" });
  });

  it("calls a hosted endpoint without a key a configuration error; a local one needs none", () => {
    const hosted = resolveLlmSettings(stored({ baseUrl: "https://api.openai.com/v1", model: "gpt-4o-mini" }), noKey, parseLlmEnv({}));
    expect(hosted).toMatchObject({ config: null, status: "misconfigured" });
    expect(hosted.problems[0]).toMatch(/^No API key: api\.openai\.com is a hosted endpoint/);
    expect(endpointNeedsKey("http://localhost:8000/v1")).toBe(false);
    expect(endpointNeedsKey("http://192.168.1.20:11434/v1")).toBe(false);
    expect(endpointNeedsKey("http://vllm:8000/v1")).toBe(false);
    expect(endpointNeedsKey("https://openrouter.ai/api/v1")).toBe(true);
  });

  it("names a missing model, an undecryptable key and unknown stage names", () => {
    const r = resolveLlmSettings(
      stored({ baseUrl: "http://localhost:8080/v1" }),
      { value: null, error: "The stored API key could not be decrypted (the encryption key changed); enter the key again." },
      parseLlmEnv({ LLM_STAGES: "understand,summarize" }),
    );
    expect(r.status).toBe("misconfigured");
    expect(r.problems).toEqual([
      "The stored API key could not be decrypted (the encryption key changed); enter the key again.",
      "LLM_STAGES names unknown stages (summarize); known: understand, select, formulate, select-evidence, answer, critique.",
      "No model: name the default model (e.g. gpt-4o-mini or llama3.1:8b).",
    ]);
  });

  it("reads prices from LLM_PRICES under the admin's", () => {
    const env = parseLlmEnv({
      LLM_BASE_URL: "http://localhost:8080/v1",
      LLM_MODEL: "local",
      LLM_PRICES: '{"local": [0.1, 0.2], "other": {"input": 1, "output": 2}}',
    });
    expect(envPrices(env)).toEqual({ local: { input: 0.1, output: 0.2 }, other: { input: 1, output: 2 } });
    expect(resolveLlmSettings(stored({ prices: { local: { input: 0.3, output: 0.4 } } }), noKey, env).config!.prices.local).toEqual({
      input: 0.3,
      output: 0.4,
    });
  });

  it("validates the LLM variables with messages that name them", () => {
    expect(() => parseLlmEnv({ LLM_BASE_URL: "localhost:11434" })).toThrow(EnvError);
    expect(() => parseLlmEnv({ LLM_PRICES: "[1,2]" })).toThrow(/LLM_PRICES/);
    expect(() => parseLlmEnv({ LLM_STRUCTURED_OUTPUTS: "xml" })).toThrow(/LLM_STRUCTURED_OUTPUTS/);
    expect(envStages(parseLlmEnv({ LLM_STAGES: "none" })).enabled.size).toBe(0);
  });
});
