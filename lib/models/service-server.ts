import { type IncomingMessage, type Server, type ServerResponse, createServer } from "node:http";
import type { z } from "zod";
import { ModelBusyError, ModelCancelledError, ModelTimeoutError } from "./batcher";
import { ModelUnavailableError } from "./files";
import { ModelLoadError } from "./local-runtime";
import { embedRequestSchema, encodeVectors, scoreRequestSchema, type ServiceErrorKind } from "./service-protocol";
import type { ModelRuntime } from "./types";

/**
 * The inference service: the in-process runtime (worker threads, dynamic batching across every
 * caller) behind a small HTTP API. GET /health (200 while serving, 503 while draining or when the
 * embedder cannot run), GET /v1/models, POST /v1/embed, POST /v1/score. Shutdown drains: new requests
 * get 503 "draining" (a load balancer moves on), requests in flight finish, then the workers stop.
 */

const MAX_BODY_BYTES = 32 * 1024 * 1024;

class BadRequest extends Error {}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new BadRequest(`The request body is over ${MAX_BODY_BYTES / 1024 / 1024} MB.`);
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    throw new BadRequest("The request body is not JSON.");
  }
}

function parse<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw new BadRequest(parsed.error.issues.map((i) => `${i.path.join(".") || "body"}: ${i.message}`).join("; "));
  return parsed.data;
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

function failure(res: ServerResponse, e: unknown): void {
  const [status, kind]: [number, ServiceErrorKind] =
    e instanceof BadRequest
      ? [400, "invalid"]
      : e instanceof ModelBusyError
        ? [503, "busy"]
        : e instanceof ModelTimeoutError
          ? [504, "timeout"]
          : e instanceof ModelCancelledError
            ? [499, "failed"]
            : e instanceof ModelUnavailableError || e instanceof ModelLoadError
              ? [503, "unavailable"]
              : [500, "failed"];
  send(res, status, { error: { kind, message: (e as Error).message } });
}

export interface InferenceService {
  server: Server;
  /** Stops accepting work, lets requests in flight finish (at most `graceMs`), then stops the runtime. */
  shutdown(graceMs?: number): Promise<void>;
}

export function createInferenceService(runtime: ModelRuntime): InferenceService {
  let draining = false;
  let inFlight = 0;
  let idle: (() => void) | null = null;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://service");
    if (req.method === "GET" && url.pathname === "/health") {
      const status = await runtime.status();
      const ok = !draining && status.embedder.state !== "unavailable";
      send(res, ok ? 200 : 503, { status: draining ? "draining" : ok ? "ok" : "degraded", runtime: status });
      return;
    }
    if (draining) {
      send(res, 503, {
        error: { kind: "draining", message: "The inference service is shutting down; send the request to another instance." },
      });
      return;
    }
    if (req.method === "GET" && url.pathname === "/v1/models") {
      // Loading on this call makes the first caller's models ready (or report why they are not).
      await Promise.allSettled([runtime.embedder(), runtime.crossEncoder()]);
      const status = await runtime.status();
      send(res, 200, { embedder: status.embedder, crossEncoder: status.crossEncoder });
      return;
    }
    if (req.method === "POST" && url.pathname === "/v1/embed") {
      const body = parse(embedRequestSchema, await readJson(req));
      const embedder = await runtime.embedder();
      const vectors = await embedder.embed(body.texts, body.kind, { timeoutMs: body.timeoutMs });
      send(res, 200, { model: embedder.info, dimensions: embedder.info.dimensions, vectors: encodeVectors(vectors) });
      return;
    }
    if (req.method === "POST" && url.pathname === "/v1/score") {
      const body = parse(scoreRequestSchema, await readJson(req));
      const cross = await runtime.crossEncoder();
      if (!cross) throw new ModelUnavailableError("This inference service has no re-ranking model configured (CROSS_ENCODER_MODEL).");
      const scores = await cross.score(body.pairs, { timeoutMs: body.timeoutMs });
      send(res, 200, { model: cross.info, scores });
      return;
    }
    send(res, 404, { error: { kind: "invalid", message: `No such endpoint: ${req.method} ${url.pathname}.` } });
  }

  const server = createServer((req, res) => {
    inFlight++;
    handle(req, res)
      .catch((e) => failure(res, e))
      .finally(() => {
        inFlight--;
        if (inFlight === 0) idle?.();
      });
  });

  return {
    server,
    async shutdown(graceMs = 30_000) {
      draining = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Keep-alive connections would hold close() open; idle ones are dropped now, busy ones after their reply.
      server.closeIdleConnections();
      if (inFlight > 0) {
        await Promise.race([
          new Promise<void>((resolve) => (idle = resolve)),
          new Promise<void>((resolve) => setTimeout(resolve, graceMs).unref()),
        ]);
      }
      server.closeAllConnections();
      await closed;
      await runtime.close();
    },
  };
}
