import { isBackendError } from "../backends/errors";
import { AppError, type AppErrorCode } from "../errors";

const CODE: Record<string, AppErrorCode> = {
  UNSAFE_QUERY: "VALIDATION",
  QUERY_SYNTAX: "VALIDATION",
  QUERY_FAILED: "VALIDATION",
  QUERY_TIMEOUT: "UNAVAILABLE",
  KB_UNAVAILABLE: "UNAVAILABLE",
  KB_CONFIG: "VALIDATION",
};

/** Backend errors are written for people, so they may reach the browser as allow-listed AppErrors. */
export function asAppError(e: unknown): unknown {
  if (isBackendError(e)) return new AppError(CODE[e.code] ?? "VALIDATION", e.message);
  return e;
}

export async function withBackendErrors<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw asAppError(e);
  }
}
