import OpenAI from "openai";
import type { z } from "zod";
import type { LlmConfig, StructuredOutputMode } from "./config";
import { LlmError, formatSeconds, toLlmError } from "./errors";
import { describeIssues, extractJsonObject, jsonSchemaFor } from "./json";
import { estimateCost } from "./pricing";
import { approxTokens } from "./quote";
import { MAX_RETRY_AFTER_MS, backoffDelayMs, sleep } from "./retry";
import type { LlmCallRecord } from "./usage";

/**
 * One provider over the `openai` SDK pointed at any OpenAI-compatible endpoint (OpenAI, vLLM, Ollama,
 * llama.cpp server). It asks for JSON validated by a zod schema: structured outputs (json_schema) where
 * the endpoint supports them, else JSON mode, else JSON described in the prompt; an endpoint that
 * refuses a mode is remembered so later calls go straight to what works. The SDK's own retries are off:
 * retries here honour Retry-After and the run's deadline, which the SDK cannot see.
 */

export interface CompletionRequest<T> {
  /** Prompt kind, for the trace and the test server: "understand", "formulate.sql", ... */
  task: string;
  model: string;
  system: string;
  user: string;
  schema: z.ZodType<T>;
  maxTokens?: number;
  signal?: AbortSignal;
  /** Epoch ms: no request is started that could not finish before it; waits between retries stop at it too. */
  deadline?: number;
}

export type CallUsage = Omit<LlmCallRecord, "stage" | "task" | "ok" | "error">;

export type CompletionOutcome<T> =
  { ok: true; value: T; content: string; usage: CallUsage } | { ok: false; error: LlmError; content: string | null; usage: CallUsage };

/** Below this much time left, a request is not started: it could not finish, and the fallback needs the time. */
export const MIN_REQUEST_MS = 400;
const MAX_ADAPTATIONS = 3;

interface EndpointQuirks {
  mode: Exclude<StructuredOutputMode, "auto">;
  omitTemperature: boolean;
  tokenParam: "max_tokens" | "max_completion_tokens";
}

/** What each endpoint+model accepted, learned from its refusals; lives as long as the process. */
const quirksByEndpoint = new Map<string, EndpointQuirks>();

export function forgetEndpointQuirks(): void {
  quirksByEndpoint.clear();
}

export function endpointMode(baseUrl: string, model: string): EndpointQuirks["mode"] | null {
  return quirksByEndpoint.get(`${baseUrl}|${model}`)?.mode ?? null;
}

const clients = new Map<string, OpenAI>();

/** Local servers need no key; the SDK insists on one, and they ignore it. */
export const NO_KEY_PLACEHOLDER = "no-key";

export function sdkClient(baseUrl: string, apiKey: string): OpenAI {
  const key = `${baseUrl}\u0000${apiKey}`;
  let client = clients.get(key);
  if (!client) {
    if (clients.size > 16) clients.clear();
    client = new OpenAI({ baseURL: baseUrl, apiKey: apiKey || NO_KEY_PLACEHOLDER, maxRetries: 0, dangerouslyAllowBrowser: false });
    clients.set(key, client);
  }
  return client;
}

function formatInstructions(mode: EndpointQuirks["mode"], schema: Record<string, unknown>): string {
  if (mode === "json_schema") return "Reply with the JSON object only.";
  return `Reply with one JSON object and nothing else (no prose, no code fence). It must match this JSON Schema:\n${JSON.stringify(schema)}`;
}

/** Adjusts the quirks after a 400/422 that names what the endpoint did not accept; false when nothing applies. */
function adapt(quirks: EndpointQuirks, error: LlmError, forced: boolean): boolean {
  const text = error.message;
  if (/max_tokens/i.test(text) && /max_completion_tokens/i.test(text) && quirks.tokenParam === "max_tokens") {
    quirks.tokenParam = "max_completion_tokens";
    return true;
  }
  if (/temperature/i.test(text) && !quirks.omitTemperature) {
    quirks.omitTemperature = true;
    return true;
  }
  if (forced) return false;
  if (quirks.mode === "json_schema" && /response_format|json_schema|structured|schema|guided|grammar/i.test(text)) {
    quirks.mode = "json_object";
    return true;
  }
  if (quirks.mode === "json_object" && /response_format|json_object|json mode|json/i.test(text)) {
    quirks.mode = "prompt";
    return true;
  }
  return false;
}

export class LlmClient {
  constructor(
    private readonly config: Pick<
      LlmConfig,
      "baseUrl" | "apiKey" | "timeoutMs" | "maxRetries" | "maxOutputTokens" | "structuredOutputs" | "prices"
    >,
  ) {}

  private quirksFor(model: string): EndpointQuirks {
    const key = `${this.config.baseUrl}|${model}`;
    let q = quirksByEndpoint.get(key);
    if (!q) {
      const forced = this.config.structuredOutputs;
      q = { mode: forced === "auto" ? "json_schema" : forced, omitTemperature: false, tokenParam: "max_tokens" };
      quirksByEndpoint.set(key, q);
    } else if (this.config.structuredOutputs !== "auto") {
      q.mode = this.config.structuredOutputs;
    }
    return q;
  }

  async complete<T>(req: CompletionRequest<T>): Promise<CompletionOutcome<T>> {
    const { baseUrl, apiKey } = this.config;
    const sdk = sdkClient(baseUrl, apiKey);
    const quirks = this.quirksFor(req.model);
    const forced = this.config.structuredOutputs !== "auto";
    const schema = jsonSchemaFor(req.schema);
    const deadline = req.deadline ?? Date.now() + this.config.timeoutMs * (this.config.maxRetries + 1) + 60_000;
    const started = performance.now();
    let attempts = 0;
    let retries = 0;
    let adaptations = 0;

    const usage = (model: string, promptTokens: number, completionTokens: number, estimated: boolean): CallUsage => {
      const cost = estimateCost(model, promptTokens, completionTokens, this.config.prices);
      return {
        model,
        promptTokens,
        completionTokens,
        tokensEstimated: estimated,
        latencyMs: Math.round(performance.now() - started),
        attempts,
        costUsd: cost.costUsd,
        priceKnown: cost.priceKnown,
        mode: quirks.mode,
      };
    };
    const failed = (error: LlmError, content: string | null = null, counted?: CallUsage): CompletionOutcome<T> => ({
      ok: false,
      error,
      content,
      usage: counted ?? usage(req.model, 0, 0, false),
    });

    for (;;) {
      const remaining = deadline - Date.now();
      if (remaining < MIN_REQUEST_MS) {
        return failed(
          new LlmError(
            "budget",
            attempts ? "the run's time budget ran out between retries" : "not enough of the run's time budget was left for a model call",
          ),
        );
      }
      const timeoutMs = Math.min(this.config.timeoutMs, remaining);
      const system = `${req.system}\n\n${formatInstructions(quirks.mode, schema)}`;
      const body: OpenAI.Chat.ChatCompletionCreateParamsNonStreaming = {
        model: req.model,
        messages: [
          { role: "system", content: system },
          { role: "user", content: req.user },
        ],
        ...(quirks.omitTemperature ? {} : { temperature: 0 }),
        ...(quirks.tokenParam === "max_tokens"
          ? { max_tokens: req.maxTokens ?? this.config.maxOutputTokens }
          : { max_completion_tokens: req.maxTokens ?? this.config.maxOutputTokens }),
        ...(quirks.mode === "json_schema"
          ? {
              response_format: {
                type: "json_schema" as const,
                json_schema: { name: `mosaic_${req.task.replace(/[^a-zA-Z0-9_-]/g, "_")}`, schema, strict: true },
              },
            }
          : quirks.mode === "json_object"
            ? { response_format: { type: "json_object" as const } }
            : {}),
      };
      attempts++;
      let completion: OpenAI.Chat.ChatCompletion;
      try {
        completion = await sdk.chat.completions.create(body, { timeout: timeoutMs, signal: req.signal, maxRetries: 0 });
      } catch (raw) {
        // Cancellation and the run's budget are the run's business: they propagate unchanged.
        if (req.signal?.aborted) throw req.signal.reason ?? raw;
        const error = toLlmError(raw, { baseUrl, model: req.model, timeoutMs });
        if ((error.detail.status === 400 || error.detail.status === 422) && adaptations < MAX_ADAPTATIONS && adapt(quirks, error, forced)) {
          adaptations++;
          continue;
        }
        if (error.retryable && retries < this.config.maxRetries) {
          const asked = error.detail.retryAfterMs ?? null;
          if (asked !== null && asked > MAX_RETRY_AFTER_MS)
            return failed(new LlmError(error.kind, `${error.message} (the endpoint asks to wait ${formatSeconds(asked)})`, error.detail));
          const wait = backoffDelayMs(retries, asked);
          if (Date.now() + wait + MIN_REQUEST_MS > deadline)
            return failed(new LlmError(error.kind, `${error.message}; no time left in the run for a retry`, error.detail));
          retries++;
          await sleep(wait, req.signal);
          continue;
        }
        const suffix = retries > 0 ? ` (after ${retries} ${retries === 1 ? "retry" : "retries"})` : "";
        return failed(suffix ? new LlmError(error.kind, `${error.message}${suffix}`, error.detail) : error);
      }

      const choice = completion.choices?.[0];
      const content = choice?.message?.content ?? "";
      const model = completion.model || req.model;
      const reported = completion.usage;
      const counted = reported
        ? usage(model, reported.prompt_tokens ?? 0, reported.completion_tokens ?? 0, false)
        : usage(model, approxTokens(system) + approxTokens(req.user), approxTokens(content), true);
      const refusal = choice?.message?.refusal;
      if (refusal) return failed(new LlmError("refused", `the model declined: ${refusal.slice(0, 200)}`), content, counted);
      const json = extractJsonObject(content);
      if (json === null) {
        const why =
          choice?.finish_reason === "length"
            ? "the reply was cut at the output token limit before its JSON ended"
            : `the reply is not JSON (${JSON.stringify(content.slice(0, 80))})`;
        return failed(new LlmError("invalid_output", why), content, counted);
      }
      const parsed = req.schema.safeParse(json);
      if (!parsed.success)
        return failed(
          new LlmError("invalid_output", `the reply does not match the expected schema (${describeIssues(parsed.error)})`),
          content,
          counted,
        );
      return { ok: true, value: parsed.data, content, usage: counted };
    }
  }
}
