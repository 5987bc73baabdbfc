import OpenAI from "openai";
import { NO_KEY_PLACEHOLDER } from "../llm/client";
import { count } from "../format/count";
import { LlmError, formatSeconds, toLlmError } from "../llm/errors";

/**
 * "Test connection" on the Settings page: lists the endpoint's models (GET /models), checks the model
 * is among them, then asks for a two-token completion, so a wrong key, a wrong URL, an unknown model
 * and a server that does not answer each get their own message with what to do about it.
 */

export interface ConnectionTest {
  ok: boolean;
  /** One or two sentences a person can act on. */
  message: string;
  latencyMs: number;
  /** Some of the models the endpoint offers, when it lists them. */
  models: string[];
}

const TEST_TIMEOUT_MS = 10_000;

const ADVICE: Partial<Record<LlmError["kind"], string>> = {
  auth: "Check the API key: replace it with a valid one.",
  not_found: "Check the base URL (OpenAI-compatible servers usually end in /v1) and the model name.",
  connection: "Check the base URL, and that the server is running and reachable from the Mosaic server.",
  timeout: "The server did not answer in time: check that it is running and not overloaded.",
  rate_limited: "The endpoint is rate-limiting this key; try again in a minute.",
  server: "The endpoint failed on its side; try again, or check the server's logs.",
  bad_request: "The endpoint refused a minimal chat request; check that it speaks the OpenAI chat completions API.",
};

function failure(error: LlmError, started: number, models: string[] = []): ConnectionTest {
  const advice = ADVICE[error.kind];
  return {
    ok: false,
    message: `Connection failed: ${error.message}.${advice ? ` ${advice}` : ""}`,
    latencyMs: Math.round(performance.now() - started),
    models,
  };
}

export async function testLlmConnection(input: {
  baseUrl: string;
  apiKey: string;
  model: string;
  timeoutMs?: number;
}): Promise<ConnectionTest> {
  const started = performance.now();
  const timeoutMs = Math.min(input.timeoutMs ?? TEST_TIMEOUT_MS, TEST_TIMEOUT_MS);
  if (!input.baseUrl) return { ok: false, message: "Enter the base URL of the endpoint first.", latencyMs: 0, models: [] };
  if (!input.model) return { ok: false, message: "Enter the model to test first.", latencyMs: 0, models: [] };
  const context = { baseUrl: input.baseUrl, model: input.model, timeoutMs };
  const client = new OpenAI({ baseURL: input.baseUrl, apiKey: input.apiKey || NO_KEY_PLACEHOLDER, maxRetries: 0, timeout: timeoutMs });

  let models: string[] = [];
  try {
    const page = await client.models.list({ timeout: timeoutMs, maxRetries: 0 });
    models = page.data.map((m) => m.id).sort();
  } catch (e) {
    const error = toLlmError(e, context);
    // Some servers have no /models; the completion below still tells whether the endpoint works.
    if (error.kind !== "not_found" && error.kind !== "bad_request") return failure(error, started);
  }
  if (models.length > 0 && !models.includes(input.model)) {
    const shown = models.slice(0, 8).join(", ");
    return {
      ok: false,
      message: `Connection works, but model "${input.model}" is not offered by this endpoint. It offers: ${shown}${models.length > 8 ? `, and ${models.length - 8} more` : ""}.`,
      latencyMs: Math.round(performance.now() - started),
      models: models.slice(0, 50),
    };
  }

  let tokenParam: "max_tokens" | "max_completion_tokens" = "max_tokens";
  let temperature: number | undefined = 0;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const t = performance.now();
      await client.chat.completions.create(
        {
          model: input.model,
          messages: [{ role: "user", content: "Reply with the word OK." }],
          ...(temperature === undefined ? {} : { temperature }),
          [tokenParam]: 16,
        },
        { timeout: timeoutMs, maxRetries: 0 },
      );
      return {
        ok: true,
        message: `Connected: ${input.model} answered in ${formatSeconds(Math.round(performance.now() - t))}${models.length ? ` (the endpoint offers ${count(models.length, "model")})` : ""}.`,
        latencyMs: Math.round(performance.now() - started),
        models: models.slice(0, 50),
      };
    } catch (e) {
      const error = toLlmError(e, context);
      // Newer OpenAI models refuse max_tokens or a temperature; the pipeline adapts the same way.
      if (error.kind === "bad_request" && /max_tokens/i.test(error.message) && tokenParam === "max_tokens")
        tokenParam = "max_completion_tokens";
      else if (error.kind === "bad_request" && /temperature/i.test(error.message) && temperature !== undefined) temperature = undefined;
      else return failure(error, started, models.slice(0, 50));
    }
  }
  return failure(new LlmError("bad_request", "the endpoint refused every form of a minimal request"), started, models);
}
