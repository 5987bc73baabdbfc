import neo4j, { type Driver, type Record as Neo4jRecord, type ResultSummary, type Session } from "neo4j-driver";
import { QueryTimeoutError } from "../errors";
import { chargeValue, type ResultBudget } from "../value-budget";
import { mapNeo4jError, type ErrorContext } from "./driver-errors";
import { checkCypherSafety, type SafetyReport } from "./safety";
import { toJsonValue, type JsonValue } from "./values";

/**
 * Every query, generated or our own, runs here: a session in READ access mode, one explicit transaction
 * with a server-side timeout, records pulled in batches of at most maxRows + 1 so a huge result is never
 * materialized, and a rollback at the end (a read never needs a commit, so nothing can persist even if
 * every other check failed).
 */

export interface ReadTarget {
  driver: Driver;
  /** Undefined = the user's home database. */
  database?: string;
  errorContext: ErrorContext;
}

export interface ReadRequest {
  query: string;
  params?: Record<string, unknown>;
  timeoutMs: number;
  maxRows: number;
  signal?: AbortSignal;
  /** EXPLAIN first and refuse anything but a plain read (generated queries); our own introspection skips it. */
  checkSafety: boolean;
  /** Byte budgets for the converted records (generated queries): long strings are cut, a result past the total is stopped. */
  budget?: ResultBudget;
}

export interface ReadResult<R> {
  columns: string[];
  records: R[];
  truncated: boolean;
  elapsedMs: number;
  summary: ResultSummary | null;
  safety: SafetyReport | null;
}

/**
 * Neo4j checks transaction timeouts periodically (every 2 s by default), so a stopped query can answer a
 * little late. Past this grace the server is presumed stuck and we give up on our side.
 */
const CLIENT_GRACE_MS = 5_000;
/** Records per PULL: never more than we keep, never so many that one batch is heavy. */
const MAX_FETCH_SIZE = 10_000;

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("The query was cancelled.", "AbortError");
}

async function runInReadTransaction<R>(
  session: Session,
  req: ReadRequest,
  convert: (record: Neo4jRecord) => R,
): Promise<Omit<ReadResult<R>, "elapsedMs">> {
  const tx = session.beginTransaction({ timeout: req.timeoutMs, metadata: { app: "mosaic" } });
  try {
    const safety = req.checkSafety ? await checkCypherSafety(tx, req.query, req.params ?? {}) : null;
    const result = tx.run(req.query, req.params ?? {});
    const columns = [...(await result.keys())].map(String);
    const records: R[] = [];
    let truncated = false;
    // Breaking out of the iteration makes the driver discard the rest on the server: only maxRows + 1 are pulled.
    for await (const record of result) {
      if (records.length >= req.maxRows) {
        truncated = true;
        break;
      }
      const converted = convert(record);
      records.push(req.budget ? chargeValue(converted, req.budget, req.query) : converted);
    }
    const summary = truncated ? null : await result.summary();
    return { columns, records, truncated, summary, safety };
  } finally {
    await tx.rollback().catch(() => undefined);
  }
}

/** Runs one read query under the rules above and maps every failure to a typed backend error. */
export async function readCypher<R>(target: ReadTarget, req: ReadRequest, convert: (record: Neo4jRecord) => R): Promise<ReadResult<R>> {
  const started = performance.now();
  const errorContext: ErrorContext = { ...target.errorContext, query: req.query, timeoutMs: req.timeoutMs };
  if (req.signal?.aborted) throw abortReason(req.signal);
  const session = target.driver.session({
    defaultAccessMode: neo4j.session.READ,
    database: target.database,
    fetchSize: Math.max(1, Math.min(req.maxRows + 1, MAX_FETCH_SIZE)),
  });
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  let cancelled: { reason: unknown } | undefined;
  const guards = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new QueryTimeoutError(req.timeoutMs, req.query)), req.timeoutMs + CLIENT_GRACE_MS);
    const signal = req.signal;
    if (signal) {
      onAbort = () => {
        cancelled = { reason: abortReason(signal) };
        reject(cancelled.reason);
      };
      signal.addEventListener("abort", onAbort, { once: true });
    }
  });
  try {
    const outcome = await Promise.race([runInReadTransaction(session, req, convert), guards]);
    return { ...outcome, elapsedMs: Math.round(performance.now() - started) };
  } catch (error) {
    if (cancelled && error === cancelled.reason) throw error;
    throw mapNeo4jError(error, errorContext);
  } finally {
    clearTimeout(timer);
    if (onAbort) req.signal?.removeEventListener("abort", onAbort);
    // Closing also ends a transaction left running by a timeout or an abort.
    await session.close().catch(() => undefined);
  }
}

/** Converts a driver record to JSON-safe values keyed by column: the shape of RawResult.records. */
export function recordToJson(record: Neo4jRecord): Record<string, JsonValue> {
  const out: Record<string, JsonValue> = {};
  for (const key of record.keys) out[String(key)] = toJsonValue(record.get(key));
  return out;
}

/** Our own introspection queries: trusted text with escaped names, small results, raw driver values kept. */
export async function readInternal(
  target: ReadTarget,
  query: string,
  params: Record<string, unknown> = {},
  options: { timeoutMs?: number; maxRows?: number } = {},
): Promise<ReadResult<Neo4jRecord>> {
  return readCypher(
    target,
    { query, params, timeoutMs: options.timeoutMs ?? 30_000, maxRows: options.maxRows ?? 10_000, checkSafety: false },
    (r) => r,
  );
}
