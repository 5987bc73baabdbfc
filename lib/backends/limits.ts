import { parseQueryLimitsEnv } from "../env";

/**
 * The bounds every knowledge base works under (issue 16), from QUERY_* and RESULT_* settings
 * (lib/env.ts, .env.example). Read once per process; tests pass their own values where they need others.
 */
export interface QueryLimits {
  /** A query text longer than this is refused before anything parses it. */
  maxChars: number;
  /** Deepest nesting of parentheses (SQL) or groups (SPARQL) a query may have. */
  maxNesting: number;
  /** How long parsing one query off the main thread may take. */
  checkTimeoutMs: number;
  /** Bytes one value may hold in a result; a longer one is cut and marked. */
  maxValueBytes: number;
  /** Bytes one result may hold; past this the engine is stopped and the query fails with a message. */
  maxResultBytes: number;
  /** Memory (MB) each engine process may use (SQLite query processes, the embedded RDF store). */
  engineMemoryMb: number;
}

let cached: QueryLimits | null = null;

export function queryLimits(): QueryLimits {
  if (cached) return cached;
  const env = parseQueryLimitsEnv(process.env);
  cached = {
    maxChars: env.QUERY_MAX_CHARS,
    maxNesting: env.QUERY_MAX_NESTING,
    checkTimeoutMs: env.QUERY_CHECK_TIMEOUT_MS,
    maxValueBytes: env.RESULT_MAX_VALUE_BYTES,
    maxResultBytes: env.RESULT_MAX_BYTES,
    engineMemoryMb: env.QUERY_ENGINE_MEMORY_MB,
  };
  return cached;
}
