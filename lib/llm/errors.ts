import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "openai";

/**
 * Why an LLM call did not give a usable result. The stage strategies turn any of these into a
 * classical fallback with the reason in the trace; Settings shows the same messages for "Test
 * connection", so a wrong key reads the same in both places.
 */
export const LLM_ERROR_KINDS = [
  "config",
  "auth",
  "not_found",
  "rate_limited",
  "timeout",
  "server",
  "connection",
  "bad_request",
  "invalid_output",
  "refused",
  "budget",
  "unavailable",
] as const;
export type LlmErrorKind = (typeof LLM_ERROR_KINDS)[number];

export class LlmError extends Error {
  constructor(
    public readonly kind: LlmErrorKind,
    message: string,
    public readonly detail: { status?: number; retryAfterMs?: number | null; cause?: unknown } = {},
  ) {
    super(message);
    this.name = "LlmError";
  }

  /** Worth another attempt after a pause (the request itself was fine). */
  get retryable(): boolean {
    return this.kind === "rate_limited" || this.kind === "timeout" || this.kind === "server" || this.kind === "connection";
  }
}

/** The API's own error text, without the SDK's status prefix, cut to a readable length. */
function serverText(e: APIError): string {
  const body = e.error as { message?: unknown } | undefined;
  const text = typeof body?.message === "string" ? body.message : e.message.replace(/^\d{3}\s*/, "");
  // Without its final period: the text is wrapped in parentheses or followed by advice.
  return text
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, 300)
    .replace(/[.\s]+$/, "");
}

function causeCode(e: unknown): string | null {
  let c: unknown = e;
  for (let depth = 0; depth < 4 && c; depth++) {
    const code = (c as { code?: unknown }).code;
    if (typeof code === "string" && /^E[A-Z]+/.test(code)) return code;
    c = (c as { cause?: unknown }).cause;
  }
  return null;
}

const CONNECTION_CODES: Record<string, string> = {
  ECONNREFUSED: "nothing is listening there (connection refused)",
  ENOTFOUND: "the host name does not resolve",
  EAI_AGAIN: "the host name could not be resolved right now",
  ECONNRESET: "the connection was reset",
  ETIMEDOUT: "the connection timed out",
  EHOSTUNREACH: "the host is unreachable",
  CERT_HAS_EXPIRED: "its TLS certificate has expired",
};

/** Maps anything the SDK or fetch throws to an LlmError with a message a person can act on. */
export function toLlmError(e: unknown, context: { baseUrl: string; model: string; timeoutMs: number }): LlmError {
  if (e instanceof LlmError) return e;
  if (e instanceof APIUserAbortError) return new LlmError("budget", "the run was cancelled or ran out of time", { cause: e });
  if (e instanceof APIConnectionTimeoutError) {
    return new LlmError("timeout", `no reply within ${formatSeconds(context.timeoutMs)}`, { cause: e });
  }
  if (e instanceof APIConnectionError) {
    const code = causeCode(e);
    const why = code ? (CONNECTION_CODES[code] ?? code) : "the connection failed";
    return new LlmError("connection", `could not reach ${context.baseUrl}: ${why}`, { cause: e });
  }
  if (e instanceof APIError) {
    const status = e.status ?? 0;
    const text = serverText(e);
    const detail = { status, cause: e };
    if (status === 401)
      return new LlmError("auth", `401 unauthorized: the endpoint rejected the API key${text ? ` (${text})` : ""}`, detail);
    if (status === 403)
      return new LlmError("auth", `403 forbidden: the API key may not use this model or endpoint${text ? ` (${text})` : ""}`, detail);
    if (status === 404) {
      const aboutModel = /model/i.test(text);
      return new LlmError(
        "not_found",
        aboutModel
          ? `404: model "${context.model}" not found at ${context.baseUrl}${text ? ` (${text})` : ""}`
          : `404: ${context.baseUrl} has no OpenAI-compatible chat endpoint (check the base URL, usually ending in /v1)`,
        detail,
      );
    }
    if (status === 429)
      return new LlmError("rate_limited", `429 rate limited${text ? `: ${text}` : ""}`, {
        ...detail,
        retryAfterMs: retryAfterMs(e.headers),
      });
    if (status === 408) return new LlmError("timeout", `408: the endpoint timed out${text ? ` (${text})` : ""}`, detail);
    if (status >= 500)
      return new LlmError("server", `${status} server error${text ? `: ${text}` : ""}`, {
        ...detail,
        retryAfterMs: retryAfterMs(e.headers),
      });
    return new LlmError("bad_request", `${status || "error"}: ${text || "the endpoint refused the request"}`, detail);
  }
  const code = causeCode(e);
  if (code && CONNECTION_CODES[code])
    return new LlmError("connection", `could not reach ${context.baseUrl}: ${CONNECTION_CODES[code]}`, { cause: e });
  return new LlmError("unavailable", e instanceof Error ? e.message : String(e), { cause: e });
}

/** Retry-After as seconds or an HTTP date, or OpenAI's retry-after-ms; null when absent or unreadable. */
export function retryAfterMs(headers: Headers | undefined | null, now = Date.now()): number | null {
  if (!headers) return null;
  const ms = Number(headers.get("retry-after-ms"));
  if (headers.get("retry-after-ms") !== null && Number.isFinite(ms) && ms >= 0) return ms;
  const raw = headers.get("retry-after");
  if (raw === null || raw.trim() === "") return null;
  const seconds = Number(raw);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(raw);
  return Number.isFinite(date) ? Math.max(0, date - now) : null;
}

export function formatSeconds(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Number((ms / 1000).toFixed(1))} s`;
}
