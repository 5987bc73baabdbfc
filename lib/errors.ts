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
  INTERNAL: 500,
};

export class AppError extends Error {
  constructor(
    public readonly code: AppErrorCode,
    message: string,
    /** Field-level messages for forms, keyed by input field name. */
    public readonly fields?: Record<string, string>,
  ) {
    super(message);
    this.name = "AppError";
  }
}

export interface ClientError {
  code: AppErrorCode | "INTERNAL";
  message: string;
  fields?: Record<string, string>;
  /** Present for unexpected errors: the id under which the server logged the details. */
  ref?: string;
}

export function toClientError(error: unknown, context: Record<string, unknown> = {}): ClientError {
  if (error instanceof AppError) {
    return { code: error.code, message: error.message, ...(error.fields ? { fields: error.fields } : {}) };
  }
  const ref = randomUUID().slice(0, 8);
  log.error({ err: error, ref, ...context }, "unexpected error");
  return { code: "INTERNAL", message: `Something went wrong on our side. Reference: ${ref}.`, ref };
}

export function httpStatusFor(error: ClientError): number {
  return HTTP_STATUS[error.code];
}
