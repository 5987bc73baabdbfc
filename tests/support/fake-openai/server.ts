import { type IncomingMessage, type Server, type ServerResponse, createServer } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/**
 * An OpenAI-compatible HTTP server for tests (the one test double Mosaic's LLM tests use: no model
 * runs here). It answers GET /v1/models and POST /v1/chat/completions with replies scripted per prompt
 * kind, the "(task: …)" Mosaic's system prompts start with, and records every request so a test can
 * check what Mosaic sent: the descriptor and guides in a prompt, quoted data, the retry's error text.
 * It can also behave like endpoints that do not support structured outputs, that check the key, or
 * that are slow, rate-limited or failing.
 */

export interface FakeRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown> | null;
  /** The prompt kind from the system message: "understand", "formulate.sql", "critique.validator"... */
  task: string | null;
  system: string;
  user: string;
  /** json_schema, json_object, or null (prompted JSON). */
  responseFormat: string | null;
  model: string | null;
  at: number;
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
}

/** `usage: null` leaves usage out of the reply, as some local servers do. */
export type FakeReply =
  | { json: unknown; usage?: Usage | null; delayMs?: number; model?: string; finishReason?: string }
  | { content: string; usage?: Usage | null; delayMs?: number; model?: string; finishReason?: string }
  | { status: number; body?: unknown; headers?: Record<string, string>; delayMs?: number }
  | { hang: true };

export type Script = FakeReply | ((req: FakeRequest) => FakeReply);

export interface FakeOpenAiOptions {
  /** Require "Authorization: Bearer <apiKey>"; anything else gets OpenAI's 401. */
  apiKey?: string;
  /** Models listed by /models; a chat request for another model gets 404 model_not_found. */
  models?: string[];
  /** Answer response_format json_schema with a 400, as servers without structured outputs do. */
  rejectJsonSchema?: boolean;
  /** Answer response_format json_object with a 400 too. */
  rejectJsonObject?: boolean;
}

export interface FakeOpenAi {
  /** Base URL to configure, ending in /v1. */
  readonly url: string;
  readonly requests: FakeRequest[];
  /** Chat requests of one task (prefix match: "formulate" matches "formulate.sql"). */
  calls(task: string): FakeRequest[];
  /** The reply for every request of `task` (prefix match on the dot-separated kind) with no one-shot reply queued. */
  on(task: string, script: Script): void;
  /** Replies used once each, in order, before the `on` reply. */
  once(task: string, ...scripts: Script[]): void;
  /** Used when no script matches; default: a 500 naming the unscripted task. */
  otherwise(script: Script): void;
  reset(): void;
  setOptions(options: FakeOpenAiOptions): void;
  close(): Promise<void>;
}

/** The data blocks of a Mosaic prompt, parsed: name → JSON value. */
export function dataBlocks(text: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const m of text.matchAll(/<data name="([^"]+)" id="([0-9a-f]+)">\n([\s\S]*?)\n<\/data id="\2">/g)) {
    out[m[1]] = JSON.parse(m[3]);
  }
  return out;
}

function taskOf(system: string): string | null {
  return /\(task: ([a-z.-]+)\)/.exec(system)?.[1] ?? null;
}

function approx(text: string): number {
  return Math.ceil(text.length / 4);
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  if (res.destroyed) return;
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

const apiError = (message: string, type: string, code: string | null = null) => ({ error: { message, type, param: null, code } });

function matches(pattern: string, task: string | null): boolean {
  if (!task) return false;
  return task === pattern || task.startsWith(`${pattern}.`);
}

export async function startFakeOpenAi(initial: FakeOpenAiOptions = {}): Promise<FakeOpenAi> {
  let options = { ...initial };
  const requests: FakeRequest[] = [];
  let onScripts: [string, Script][] = [];
  let onceScripts: [string, Script][] = [];
  let otherwise: Script | null = null;
  const sockets = new Set<Socket>();

  const pick = (req: FakeRequest): FakeReply => {
    const i = onceScripts.findIndex(([t]) => matches(t, req.task));
    let script: Script | null = null;
    if (i >= 0) {
      script = onceScripts[i][1];
      onceScripts.splice(i, 1);
    } else {
      // The most specific pattern wins: "formulate.sql" over "formulate".
      const candidates = onScripts.filter(([t]) => matches(t, req.task)).sort((a, b) => b[0].length - a[0].length);
      script = candidates[0]?.[1] ?? otherwise;
    }
    if (!script) return { status: 500, body: apiError(`fake server: no reply scripted for task ${req.task ?? "(none)"}`, "server_error") };
    return typeof script === "function" ? script(req) : script;
  };

  const server: Server = createServer(async (req, res) => {
    const raw = await readBody(req);
    let body: Record<string, unknown> | null = null;
    try {
      body = raw ? (JSON.parse(raw) as Record<string, unknown>) : null;
    } catch {
      body = null;
    }
    const messages = (body?.messages as { role: string; content: string }[] | undefined) ?? [];
    const system = messages.find((m) => m.role === "system")?.content ?? "";
    const user = messages
      .filter((m) => m.role === "user")
      .map((m) => m.content)
      .join("\n");
    const path = (req.url ?? "").replace(/\?.*$/, "");
    const record: FakeRequest = {
      method: req.method ?? "GET",
      path,
      headers: req.headers,
      body,
      task: taskOf(system),
      system,
      user,
      responseFormat: ((body?.response_format as { type?: string } | undefined)?.type as string) ?? null,
      model: (body?.model as string) ?? null,
      at: Date.now(),
    };
    requests.push(record);

    if (options.apiKey !== undefined && req.headers.authorization !== `Bearer ${options.apiKey}`) {
      return send(
        res,
        401,
        apiError(
          "Incorrect API key provided: sk-w***. You can find your API key at https://platform.openai.com/account/api-keys.",
          "invalid_request_error",
          "invalid_api_key",
        ),
      );
    }
    if (req.method === "GET" && path === "/v1/models") {
      const ids = options.models ?? ["fake-model"];
      return send(res, 200, { object: "list", data: ids.map((id) => ({ id, object: "model", created: 0, owned_by: "fake" })) });
    }
    if (req.method !== "POST" || path !== "/v1/chat/completions")
      return send(res, 404, apiError(`Unknown request URL: ${req.method} ${path}`, "invalid_request_error"));
    if (options.models && !options.models.includes(record.model ?? "")) {
      return send(
        res,
        404,
        apiError(
          `The model \`${record.model}\` does not exist or you do not have access to it.`,
          "invalid_request_error",
          "model_not_found",
        ),
      );
    }
    if (options.rejectJsonSchema && record.responseFormat === "json_schema") {
      return send(res, 400, apiError("response_format of type json_schema is not supported by this server", "invalid_request_error"));
    }
    if (options.rejectJsonObject && record.responseFormat === "json_object") {
      return send(res, 400, apiError("response_format json_object is not supported", "invalid_request_error"));
    }

    const reply = pick(record);
    if ("hang" in reply) return; // the client's timeout or abort ends it
    if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
    if ("status" in reply) return send(res, reply.status, reply.body ?? apiError(`status ${reply.status}`, "server_error"), reply.headers);
    const content = "json" in reply ? JSON.stringify(reply.json) : reply.content;
    const usage =
      reply.usage === null ? null : (reply.usage ?? { prompt_tokens: approx(system + user), completion_tokens: approx(content) });
    send(res, 200, {
      id: `chatcmpl-${requests.length}`,
      object: "chat.completion",
      created: Math.floor(Date.now() / 1000),
      model: reply.model ?? record.model ?? "fake-model",
      choices: [
        { index: 0, message: { role: "assistant", content, refusal: null }, finish_reason: reply.finishReason ?? "stop", logprobs: null },
      ],
      ...(usage ? { usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } } : {}),
    });
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    calls: (task) => requests.filter((r) => matches(task, r.task)),
    on(task, script) {
      onScripts = onScripts.filter(([t]) => t !== task);
      onScripts.push([task, script]);
    },
    once(task, ...scripts) {
      for (const s of scripts) onceScripts.push([task, s]);
    },
    otherwise(script) {
      otherwise = script;
    },
    reset() {
      requests.length = 0;
      onScripts = [];
      onceScripts = [];
      otherwise = null;
      options = { ...initial };
    },
    setOptions(next) {
      options = { ...options, ...next };
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
