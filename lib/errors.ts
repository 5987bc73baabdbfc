import { randomUUID } from "node:crypto";
import { log } from "./log";

/**
 * The allow-listed errors a browser may see. Anything else is logged with an id and shown as
 * a generic message carrying that id (DESIGN.md, safety rules).
 */
export const APP_ERROR_CODES = [
  "UNAUTHENTICATED",
  "FORBIDDEN",
  "NOT_FOUND",
  "VALIDATION",
  "CONFLICT",
  "UNAVAILABLE",
  "RATE_LIMITED",
  "PAYLOAD_TOO_LARGE",
  "UNSUPPORTED_MEDIA_TYPE",
] as const;
export type AppErrorCode = (typeof APP_ERROR_CODES)[number];

const HTTP_STATUS: Record<AppErrorCode | "INTERNAL", number> = {
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  VALIDATION: 400,
  CONFLICT: 409,
  UNAVAILABLE: 503,
  RATE_LIMITED: 429,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  INTERNAL: 500,
};

/**
 * Marks AppErrors by a registry symbol as well as by class: a production bundle may hold two copies of
 * this module (server actions and route chunks), and `instanceof` fails across copies, which would turn
 * an actionable message into "something went wrong".
 */
const APP_ERROR = Symbol.for("mosaic.AppError");

export class AppError extends Error {
  static is(e: unknown): e is AppError {
    return e instanceof AppError || (e instanceof Error && (e as unknown as Record<symbol, unknown>)[APP_ERROR] === true);
  }

  constructor(
    public readonly code: AppErrorCode,
    message: string,
    /** Field-level messages for forms, keyed by input field name. */
    public readonly fields?: Record<string, string>,
    /** RATE_LIMITED: when to try again (sent as Retry-After by route handlers). */
    public readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = "AppError";
    (this as unknown as Record<symbol, unknown>)[APP_ERROR] = true;
  }
}

export interface ClientError {
  code: AppErrorCode | "INTERNAL";
  message: string;
  fields?: Record<string, string>;
  /** Present for unexpected errors: the id under which the server logged the details. */
  ref?: string;
  /** RATE_LIMITED: seconds to wait before trying again. */
  retryAfterSeconds?: number;
}

export function toClientError(error: unknown, context: Record<string, unknown> = {}): ClientError {
  if (AppError.is(error)) {
    return {
      code: error.code,
      message: error.message,
      ...(error.fields ? { fields: error.fields } : {}),
      ...(error.retryAfterSeconds !== undefined ? { retryAfterSeconds: error.retryAfterSeconds } : {}),
    };
  }
  const ref = randomUUID().slice(0, 8);
  log.error({ err: error, ref, ...context }, "unexpected error");
  return { code: "INTERNAL", message: `Something went wrong on our side. Reference: ${ref}.`, ref };
}

export function httpStatusFor(error: ClientError): number {
  return HTTP_STATUS[error.code];
}
