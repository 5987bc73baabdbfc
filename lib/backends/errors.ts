/**
 * Errors every backend throws, so the pipeline and the UI can tell a refused query from a slow one
 * from an unreachable source. Messages are written for the person who sees them.
 */
export class QueryRejectedError extends Error {
  readonly code = "UNSAFE_QUERY" as const;
  constructor(
    /** Short reason, e.g. "only a single SELECT statement may run". */
    public readonly reason: string,
    public readonly query: string,
  ) {
    super(`Query refused: ${reason}.`);
    this.name = "QueryRejectedError";
  }
}

export class QuerySyntaxError extends Error {
  readonly code = "QUERY_SYNTAX" as const;
  constructor(
    message: string,
    public readonly query: string,
  ) {
    super(`The query could not be parsed: ${message}`);
    this.name = "QuerySyntaxError";
  }
}

export class QueryTimeoutError extends Error {
  readonly code = "QUERY_TIMEOUT" as const;
  constructor(
    public readonly timeoutMs: number,
    public readonly query: string,
  ) {
    super(`The query ran longer than ${timeoutMs} ms and was stopped.`);
    this.name = "QueryTimeoutError";
  }
}

export class QueryExecutionError extends Error {
  readonly code = "QUERY_FAILED" as const;
  constructor(
    message: string,
    public readonly query: string,
  ) {
    super(message);
    this.name = "QueryExecutionError";
  }
}

/** "16 MB", "64 KB": byte budgets as people read them in messages. */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${+(bytes / (1024 * 1024)).toFixed(1)} MB`;
  if (bytes >= 1024) return `${+(bytes / 1024).toFixed(1)} KB`;
  return `${bytes} bytes`;
}

/** A result past its byte budget (RESULT_MAX_BYTES): the engine was stopped while the rows streamed. */
export class ResultTooLargeError extends QueryExecutionError {
  constructor(
    public readonly limitBytes: number,
    query: string,
  ) {
    super(
      `The result is larger than ${formatBytes(limitBytes)}, the most one query may return, so it was stopped. Select fewer columns or rows, or aggregate.`,
      query,
    );
    this.name = "ResultTooLargeError";
  }
}

/** A query whose engine process went past its memory limit (QUERY_ENGINE_MEMORY_MB) and was stopped. */
export class QueryMemoryError extends QueryExecutionError {
  constructor(
    public readonly limitMb: number,
    query: string,
  ) {
    super(
      `The query needed more than the ${limitMb} MB of memory one query may use, so it was stopped. Select fewer or shorter values, or aggregate.`,
      query,
    );
    this.name = "QueryMemoryError";
  }
}

export class BackendUnavailableError extends Error {
  readonly code = "KB_UNAVAILABLE" as const;
  constructor(message: string) {
    super(message);
    this.name = "BackendUnavailableError";
  }
}

export class BackendConfigError extends Error {
  readonly code = "KB_CONFIG" as const;
  constructor(message: string) {
    super(message);
    this.name = "BackendConfigError";
  }
}

export type BackendError =
  QueryRejectedError | QuerySyntaxError | QueryTimeoutError | QueryExecutionError | BackendUnavailableError | BackendConfigError;

const BACKEND_CODES = new Set(["UNSAFE_QUERY", "QUERY_SYNTAX", "QUERY_TIMEOUT", "QUERY_FAILED", "KB_UNAVAILABLE", "KB_CONFIG"]);

/** By class, or by its code when a bundle holds another copy of this module (instanceof fails across copies). */
export function isBackendError(e: unknown): e is BackendError {
  return (
    (e instanceof Error && BACKEND_CODES.has(String((e as { code?: unknown }).code)) && /Error$/.test(e.name)) ||
    e instanceof QueryRejectedError ||
    e instanceof QuerySyntaxError ||
    e instanceof QueryTimeoutError ||
    e instanceof QueryExecutionError ||
    e instanceof BackendUnavailableError ||
    e instanceof BackendConfigError
  );
}
