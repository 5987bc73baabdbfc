import type { ClientError } from "../errors";

/**
 * The typed error set (lib/errors.ts) as RFC 9457 problem details, for the versioned API (/api/v1):
 * `type` names the error class by a stable URI, `title` is its fixed summary, `detail` the plain message,
 * plus Mosaic's extension members `code`, `fields` (which input field is wrong and why, or the missing
 * scope), `retryAfterSeconds` and `ref` (the log id of an unexpected error).
 */
const TITLES: Record<ClientError["code"], string> = {
  UNAUTHENTICATED: "Authentication required",
  FORBIDDEN: "Not allowed",
  NOT_FOUND: "Not found",
  VALIDATION: "Invalid request",
  CONFLICT: "Conflict",
  UNAVAILABLE: "Source unavailable",
  RATE_LIMITED: "Too many requests",
  PAYLOAD_TOO_LARGE: "Request too large",
  UNSUPPORTED_MEDIA_TYPE: "Unsupported media type",
  INTERNAL: "Internal error",
};

export const PROBLEM_TYPE_BASE = "https://mosaic.local/problems/";

export interface ProblemDetails {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance?: string;
  code: ClientError["code"];
  fields?: Record<string, string>;
  retryAfterSeconds?: number;
  ref?: string;
}

export function problemDetails(error: ClientError, status: number, instance?: string): ProblemDetails {
  return {
    type: `${PROBLEM_TYPE_BASE}${error.code.toLowerCase().replace(/_/g, "-")}`,
    title: TITLES[error.code],
    status,
    detail: error.message,
    ...(instance ? { instance } : {}),
    code: error.code,
    ...(error.fields ? { fields: error.fields } : {}),
    ...(error.retryAfterSeconds !== undefined ? { retryAfterSeconds: error.retryAfterSeconds } : {}),
    ...(error.ref ? { ref: error.ref } : {}),
  };
}
