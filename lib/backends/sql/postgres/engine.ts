import pg from "pg";
import type { FieldDef, PoolClient, QueryConfig } from "pg";
import { BackendUnavailableError, isBackendError, QueryRejectedError, QueryTimeoutError, ResultTooLargeError } from "../../errors";
import { queryLimits, type QueryLimits } from "../../limits";
import { cutMark } from "../../value-budget";
import type { ExecuteOptions } from "../../types";
import type { PostgresConfig } from "../config";
import { quoteIdent } from "../dialect";
import type { RowCount, RowsResult, SqlEngine } from "../engine";
import type { TableInfo } from "../schema";
import { connectionFailure, queryFailure, type ServerAddress } from "./errors";
import { inspectPostgresPlan, type PlanCalls, shadowedName } from "./plan-check";
import { describeRisks, inspectPrivileges, type PrivilegeReport } from "./privileges";
import { pgTypes } from "./type-parsers";
import { log } from "../../../log";

const POOL_SIZE = 3;
const CONNECT_TIMEOUT_MS = 5_000;
/** Sessions of our own that outlive any single limit below are a bug somewhere: the server ends them. */
const SESSION_STATEMENT_TIMEOUT_MS = 120_000;
/** After the server should have answered, the client waits this much longer before giving up on the socket. */
const CLIENT_GRACE_MS = 5_000;
const CATALOG_TIMEOUT_MS = 15_000;
/** The catalog is re-read at most this often: the schema of a live database can change behind our back. */
const CATALOG_TTL_MS = 10 * 60_000;
const CURSOR = "mosaic_rows";
const PROBE = "mosaic_probe";
/** A role's privileges are looked at again after this long (grants can change behind our back). */
const PRIVILEGES_TTL_MS = 10 * 60_000;
/**
 * Per-transaction bounds set with SET LOCAL (set_config(…, true)), whatever the role's or database's own
 * defaults say: memory for each sort or hash before it spills, and how long to wait for a lock.
 */
const WORK_MEM = "32MB";
const LOCK_TIMEOUT_MS = 5_000;

/**
 * Names the plan printed without a schema, looked up where the search path finds them: each must be
 * pg_catalog's, and the knowledge base's schema (the only other schema on the path for functions and
 * operators) must not define one of the same name. Types outside the plan's value types must be the
 * knowledge base's own (an enum a column uses).
 */
const PLAN_CATALOG_SQL = `
SELECT 'shadowed-function' AS kind, p.proname::text AS name FROM pg_catalog.pg_proc p
  WHERE p.pronamespace = (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = $1) AND p.proname = ANY($2::text[])
UNION ALL
SELECT 'unknown-function', f FROM unnest($2::text[]) f
  WHERE NOT EXISTS (SELECT 1 FROM pg_catalog.pg_proc p WHERE p.pronamespace = 'pg_catalog'::regnamespace AND p.proname = f)
UNION ALL
SELECT 'shadowed-operator', o.oprname::text FROM pg_catalog.pg_operator o
  WHERE o.oprnamespace = (SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = $1) AND o.oprname = ANY($3::text[])
UNION ALL
SELECT 'foreign-type', t FROM unnest($4::text[]) t
  WHERE NOT EXISTS (SELECT 1 FROM pg_catalog.pg_type y JOIN pg_catalog.pg_namespace n ON n.oid = y.typnamespace
                    WHERE n.nspname = $1 AND y.typname = t)`;

/**
 * Types whose values have a small fixed size on the wire; every other column (text, bytea, numeric,
 * json, arrays…) is measured by the server before it is sent (see fetchThroughCursor).
 */
const FIXED_SIZE_TYPES = new Set([16, 18, 20, 21, 23, 26, 700, 701, 790, 1082, 1083, 1114, 1184, 1186, 1266, 2950]);
const FIXED_VALUE_BYTES = 64;
/** Rows per FETCH at most, however small they are. */
const MAX_BATCH_ROWS = 1_000;

/** node-postgres reads these two query options at run time; its type declarations lack them. */
interface PgQueryConfig extends QueryConfig {
  queryMode?: "extended";
  query_timeout?: number;
  rowMode?: "array";
}

/** Planner estimates below this are replaced by a real count (a fresh or never-analyzed table says -1 or 0). */
const ESTIMATE_TRUST_ROWS = 10_000;

const TABLES_SQL = `
SELECT c.relname AS table_name, c.relkind::text AS kind, c.reltuples::float8 AS estimate,
       a.attname AS column_name, format_type(a.atttypid, a.atttypmod) AS column_type, a.attnotnull AS not_null
FROM pg_catalog.pg_class c
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
WHERE n.nspname = $1 AND c.relkind IN ('r', 'p', 'v', 'm', 'f')
  AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_inherits i WHERE i.inhrelid = c.oid)
ORDER BY c.relname, a.attnum`;

const CONSTRAINTS_SQL = `
SELECT c.relname AS table_name, con.contype::text AS type, con.conname AS name,
       ARRAY(SELECT a.attname::text FROM unnest(con.conkey) WITH ORDINALITY k(num, ord)
             JOIN pg_catalog.pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.num ORDER BY k.ord) AS columns,
       ref.relname AS ref_table, refns.nspname AS ref_schema,
       ARRAY(SELECT a.attname::text FROM unnest(con.confkey) WITH ORDINALITY k(num, ord)
             JOIN pg_catalog.pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.num ORDER BY k.ord) AS ref_columns
FROM pg_catalog.pg_constraint con
JOIN pg_catalog.pg_class c ON c.oid = con.conrelid
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
LEFT JOIN pg_catalog.pg_class ref ON ref.oid = con.confrelid
LEFT JOIN pg_catalog.pg_namespace refns ON refns.oid = ref.relnamespace
WHERE n.nspname = $1 AND con.contype IN ('p', 'f')
ORDER BY c.relname, con.conname`;

interface TableRow {
  table_name: string;
  kind: string;
  estimate: number;
  column_name: string;
  column_type: string;
  not_null: boolean;
}

interface ConstraintRow {
  table_name: string;
  type: "p" | "f";
  columns: string[];
  ref_table: string | null;
  ref_schema: string | null;
  ref_columns: string[];
}

/**
 * A PostgreSQL schema reached through a small pool. Every piece of work, ours or a user's, runs in
 * `BEGIN READ ONLY` with `SET LOCAL statement_timeout` and `idle_in_transaction_session_timeout`, and
 * ends in ROLLBACK; sessions also default to read-only transactions. User queries run through a
 * server-side cursor, so at most maxRows + 1 rows ever leave the server.
 */
export class PostgresEngine implements SqlEngine {
  readonly dialect = "postgres" as const;
  readonly location: string;
  private pool: pg.Pool | null = null;
  private readonly address: ServerAddress;
  private readonly estimates = new Map<string, number>();
  private privilegeCache: { at: number; promise: Promise<PrivilegeReport> } | null = null;

  constructor(
    private readonly config: PostgresConfig,
    private readonly password: string | undefined,
    private readonly options: { privilegeRiskAccepted?: boolean; limits?: () => QueryLimits } = {},
  ) {
    this.address = { host: config.host, port: config.port, database: config.database, user: config.user };
    this.location = `database ${config.database} on ${config.host}:${config.port}, schema ${config.schema}`;
  }

  dataStamp(): string {
    return String(Math.floor(Date.now() / CATALOG_TTL_MS));
  }

  async version(): Promise<string> {
    const res = await this.readInternal("SELECT current_setting('server_version') AS v", { timeoutMs: CATALOG_TIMEOUT_MS, maxRows: 1 });
    const v = String(res.rows[0]?.[0] ?? "").split(" ")[0];
    return `PostgreSQL ${v}`;
  }

  async loadTables(): Promise<TableInfo[]> {
    return this.inReadOnlyTransaction(CATALOG_TIMEOUT_MS, TABLES_SQL, async (client) => {
      const schemaFound = await client.query("SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = $1", [this.config.schema]);
      if (schemaFound.rowCount === 0) {
        throw new BackendUnavailableError(
          `The schema "${this.config.schema}" does not exist in the database "${this.config.database}" on ${this.config.host}:${this.config.port}.`,
        );
      }
      const columns = (await client.query<TableRow>(TABLES_SQL, [this.config.schema])).rows;
      const constraints = (await client.query<ConstraintRow>(CONSTRAINTS_SQL, [this.config.schema])).rows;
      const tables = new Map<string, TableInfo>();
      this.estimates.clear();
      for (const r of columns) {
        let t = tables.get(r.table_name);
        if (!t) {
          t = {
            name: r.table_name,
            kind: r.kind === "v" || r.kind === "m" ? "view" : "table",
            columns: [],
            primaryKey: [],
            foreignKeys: [],
          };
          tables.set(r.table_name, t);
          this.estimates.set(r.table_name, r.estimate);
        }
        t.columns.push({ name: r.column_name, type: r.column_type, notNull: r.not_null });
      }
      for (const c of constraints) {
        const t = tables.get(c.table_name);
        if (!t) continue;
        if (c.type === "p") t.primaryKey = c.columns;
        else if (c.ref_table) {
          // A key into another schema is named with it, since unqualified names here mean this schema.
          const refTable = c.ref_schema && c.ref_schema !== this.config.schema ? `${c.ref_schema}.${c.ref_table}` : c.ref_table;
          t.foreignKeys.push({ columns: c.columns, refTable, refColumns: c.ref_columns });
        }
      }
      return [...tables.values()];
    });
  }

  async countRows(table: TableInfo): Promise<RowCount> {
    const estimate = this.estimates.get(table.name) ?? -1;
    if (estimate >= ESTIMATE_TRUST_ROWS) return { rows: Math.round(estimate), approximate: true };
    try {
      const res = await this.readInternal(`SELECT count(*) FROM ${this.tableRef(table)}`, { timeoutMs: CATALOG_TIMEOUT_MS, maxRows: 1 });
      return { rows: Number(res.rows[0]?.[0] ?? 0), approximate: false };
    } catch (e) {
      if (e instanceof BackendUnavailableError) throw e;
      return { rows: estimate >= 0 ? Math.round(estimate) : null, approximate: true };
    }
  }

  tableRef(table: TableInfo): string {
    return `${quoteIdent(this.config.schema)}.${quoteIdent(table.name)}`;
  }

  async readInternal(sql: string, { timeoutMs, maxRows }: { timeoutMs: number; maxRows: number }): Promise<RowsResult> {
    return this.inReadOnlyTransaction(timeoutMs, sql, (client) => this.fetchThroughCursor(client, sql, timeoutMs, maxRows));
  }

  async runQuery(sql: string, { timeoutMs, maxRows, signal }: ExecuteOptions): Promise<RowsResult> {
    const { role, risks } = await this.privileges();
    if (risks.length > 0 && !this.options.privilegeRiskAccepted) {
      throw new BackendUnavailableError(
        `${describeRisks(role, risks)} Queries are refused until an admin accepts this risk on the knowledge base's page, or the knowledge base connects with a role that may only read.`,
      );
    }
    return this.inReadOnlyTransaction(
      timeoutMs,
      sql,
      async (client) => {
        // Every run, not only when a query is first saved: a stored query (guide, dynamic source object) comes here too.
        await this.checkPlan(client, sql, timeoutMs);
        return this.fetchThroughCursor(client, sql, timeoutMs, maxRows);
      },
      signal,
    );
  }

  /**
   * The server's plan of the query, in the transaction that will run it, walked by plan-check.ts, then the
   * names it printed without a schema confirmed in the catalog. Planning runs no volatile function (those
   * are the dangerous ones); the statement timeout set before it bounds what planning evaluates.
   */
  private async checkPlan(client: PoolClient, sql: string, timeoutMs: number): Promise<PlanCalls> {
    const explained = await client.query<{ "QUERY PLAN": unknown }>({
      text: `EXPLAIN (VERBOSE, FORMAT JSON) ${sql}`,
      queryMode: "extended",
      query_timeout: timeoutMs + CLIENT_GRACE_MS,
    } as PgQueryConfig);
    const calls = inspectPostgresPlan(explained.rows[0]?.["QUERY PLAN"], sql, this.config.schema);
    if (calls.functions.length + calls.operators.length + calls.types.length === 0) return calls;
    const found = await client.query<{ kind: string; name: string }>(PLAN_CATALOG_SQL, [
      this.config.schema,
      calls.functions,
      calls.operators,
      calls.types,
    ]);
    const first = found.rows[0];
    if (first) {
      const reason =
        first.kind === "shadowed-function"
          ? shadowedName("function", first.name, this.config.schema)
          : first.kind === "shadowed-operator"
            ? shadowedName("operator", first.name, this.config.schema)
            : first.kind === "unknown-function"
              ? `the function ${first.name}() is not a built-in function of this server, so it may not be called`
              : `casting to ${first.name} is not allowed; only built-in value types and the knowledge base's own types may be used`;
      throw new QueryRejectedError(reason, sql);
    }
    return calls;
  }

  /** What the role may do beyond reading (cached for a few minutes); an empty list for a read-only role. */
  privileges(): Promise<PrivilegeReport> {
    if (!this.privilegeCache || Date.now() - this.privilegeCache.at > PRIVILEGES_TTL_MS) {
      const promise = this.inReadOnlyTransaction(CATALOG_TIMEOUT_MS, "-- privileges", (client) =>
        inspectPrivileges(client, this.config.schema),
      );
      this.privilegeCache = { at: Date.now(), promise };
      promise.catch(() => {
        if (this.privilegeCache?.promise === promise) this.privilegeCache = null;
      });
    }
    return this.privilegeCache.promise;
  }

  get privilegeRiskAccepted(): boolean {
    return this.options.privilegeRiskAccepted === true;
  }

  async close(): Promise<void> {
    const pool = this.pool;
    this.pool = null;
    await pool?.end().catch(() => undefined);
  }

  /**
   * DECLARE accepts only a SELECT or VALUES (a third wall behind the parser and the read-only
   * transaction), and the extended protocol refuses a text with more than one statement.
   *
   * Results are bounded in bytes by the server, before anything is sent: a first cursor only describes
   * the columns (FETCH 0 runs nothing); the query then runs wrapped so that every value of a
   * variable-size type longer than the per-value budget comes back as its length and a short head
   * instead of itself. Rows are fetched in batches no larger than the result budget allows even at
   * the worst, and counted as they arrive; past the result budget the query stops.
   */
  private async fetchThroughCursor(client: PoolClient, sql: string, timeoutMs: number, maxRows: number): Promise<RowsResult> {
    const limits = (this.options.limits ?? queryLimits)();
    const deadline = Date.now() + timeoutMs;
    const clientTimeout = () => Math.max(1, deadline - Date.now()) + CLIENT_GRACE_MS;
    const probe: PgQueryConfig = {
      text: `DECLARE ${PROBE} NO SCROLL CURSOR FOR ${sql}`,
      queryMode: "extended",
      query_timeout: clientTimeout(),
    };
    await client.query(probe);
    const described = await client.query({
      text: `FETCH FORWARD 0 FROM ${PROBE}`,
      rowMode: "array",
      query_timeout: clientTimeout(),
    } as PgQueryConfig);
    await client.query(`CLOSE ${PROBE}`);
    const fields = described.fields;
    const wrapped = boundedQuery(sql, fields, limits.maxValueBytes);
    await client.query({
      text: `DECLARE ${CURSOR} NO SCROLL CURSOR FOR ${wrapped.text}`,
      queryMode: "extended",
      query_timeout: clientTimeout(),
    } as PgQueryConfig);

    const rowWorstBytes = fields.reduce((n, f, i) => n + (wrapped.guarded[i] ? limits.maxValueBytes + 16 : FIXED_VALUE_BYTES), 16);
    const batch = Math.max(1, Math.min(MAX_BATCH_ROWS, Math.floor(limits.maxResultBytes / 2 / rowWorstBytes)));
    const rows: unknown[][] = [];
    let bytes = 0;
    let first = true;
    while (rows.length <= maxRows) {
      if (!first) {
        const left = deadline - Date.now();
        if (left <= 0) throw new QueryTimeoutError(timeoutMs, sql);
        await client.query("SELECT set_config('statement_timeout', $1, true)", [`${left}ms`]);
      }
      first = false;
      const want = Math.min(batch, maxRows + 1 - rows.length);
      const res = await client.query({
        text: `FETCH FORWARD ${want} FROM ${CURSOR}`,
        rowMode: "array",
        types: pgTypes,
        query_timeout: clientTimeout(),
      } as PgQueryConfig);
      for (const raw of res.rows as unknown as unknown[][]) {
        const row = wrapped.unwrap(raw);
        for (const v of row) bytes += typeof v === "string" ? v.length : FIXED_VALUE_BYTES / 8;
        if (bytes > limits.maxResultBytes) throw new ResultTooLargeError(limits.maxResultBytes, sql);
        rows.push(row);
      }
      if (res.rows.length < want) break;
    }
    return { columns: fields.map((f) => f.name), rows: rows.slice(0, maxRows), truncated: rows.length > maxRows };
  }

  private getPool(): pg.Pool {
    if (this.pool) return this.pool;
    const pool = new pg.Pool({
      host: this.config.host,
      port: this.config.port,
      database: this.config.database,
      user: this.config.user,
      password: this.password,
      ssl: this.config.ssl ? true : undefined,
      max: POOL_SIZE,
      idleTimeoutMillis: 30_000,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      allowExitOnIdle: true,
      application_name: "mosaic",
      statement_timeout: SESSION_STATEMENT_TIMEOUT_MS,
      // Every transaction of these sessions is read-only unless it says otherwise, and ours never does.
      options: "-c default_transaction_read_only=on",
    });
    // An idle connection the server dropped must not crash the process; the next checkout reconnects.
    pool.on("error", () => undefined);
    this.pool = pool;
    return pool;
  }

  private async connect(): Promise<PoolClient> {
    try {
      return await this.getPool().connect();
    } catch (e) {
      const known = connectionFailure(e, this.address);
      if (known) throw known;
      log.warn(
        { detail: e instanceof Error ? e.message : String(e), host: this.config.host, port: this.config.port },
        "could not connect to PostgreSQL",
      );
      throw new BackendUnavailableError(
        `Cannot connect to ${this.config.host}:${this.config.port}. Check the host, the port and the credentials.`,
      );
    }
  }

  private async inReadOnlyTransaction<T>(
    timeoutMs: number,
    sql: string,
    work: (client: PoolClient) => Promise<T>,
    signal?: AbortSignal,
  ): Promise<T> {
    signal?.throwIfAborted();
    const client = await this.connect();
    let discard = false;
    const onAbort = () => {
      // Ask the server to stop the running statement; the pending query then fails and is reported as aborted.
      discard = true;
      void this.getPool()
        .query("SELECT pg_cancel_backend($1)", [(client as unknown as { processID: number }).processID])
        .catch(() => undefined);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      await client.query("BEGIN TRANSACTION READ ONLY");
      await client.query(
        "SELECT set_config('statement_timeout', $1, true), set_config('idle_in_transaction_session_timeout', $2, true), " +
          "set_config('search_path', $3, true), set_config('lock_timeout', $4, true), set_config('work_mem', $5, true)",
        [
          `${timeoutMs}ms`,
          `${Math.max(2 * timeoutMs, 10_000)}ms`,
          quoteIdent(this.config.schema),
          `${Math.min(timeoutMs, LOCK_TIMEOUT_MS)}ms`,
          WORK_MEM,
        ],
      );
      return await work(client);
    } catch (e) {
      if (signal?.aborted) throw signal.reason;
      // Our own typed errors (result too large, the deadline between batches) pass through unchanged.
      if (isBackendError(e)) throw e;
      const failure = queryFailure(e, sql, timeoutMs, this.address);
      if (failure instanceof BackendUnavailableError || /read timeout/i.test(String(e))) discard = true;
      throw failure;
    } finally {
      signal?.removeEventListener("abort", onAbort);
      if (!discard) {
        try {
          await client.query("ROLLBACK");
          // Nothing of this session outlives the work: session-level advisory locks, settings changed without
          // LOCAL, temporary tables, prepared statements, LISTENs. The settings return to the connection's own.
          await client.query("DISCARD ALL");
        } catch {
          discard = true;
        }
      }
      // A connection in an unknown state is closed rather than handed to the next query.
      client.release(discard ? true : undefined);
    }
  }
}

/**
 * The query wrapped so the server cuts long values before sending them: each variable-size column i
 * becomes three, the value when it fits (else NULL), its length in bytes when it does not, and the
 * first characters (a quarter of the budget, so at most the budget in UTF-8 bytes). Positional column
 * names (`AS mosaic_q(c0, c1, …)`) make duplicate or unnamed columns addressable.
 */
function boundedQuery(
  sql: string,
  fields: FieldDef[],
  maxValueBytes: number,
): { text: string; guarded: boolean[]; unwrap: (raw: unknown[]) => unknown[] } {
  const guarded = fields.map((f) => !FIXED_SIZE_TYPES.has(f.dataTypeID));
  if (fields.length === 0 || !guarded.some(Boolean)) return { text: sql, guarded, unwrap: (raw) => raw };
  const headChars = Math.max(1, Math.floor(maxValueBytes / 4));
  const names = fields.map((_, i) => `c${i}`);
  const select: string[] = [];
  const texts: string[] = [];
  fields.forEach((_, i) => {
    if (!guarded[i]) {
      select.push(`mosaic_q.c${i}`);
      return;
    }
    texts.push(`mosaic_q.c${i}::text AS t${i}`);
    const over = `octet_length(mosaic_t.t${i}) > ${maxValueBytes}`;
    select.push(
      `CASE WHEN ${over} THEN NULL ELSE mosaic_q.c${i} END`,
      `CASE WHEN ${over} THEN octet_length(mosaic_t.t${i}) END`,
      `CASE WHEN ${over} THEN left(mosaic_t.t${i}, ${headChars}) END`,
    );
  });
  const text = `SELECT ${select.join(", ")} FROM (${sql}) AS mosaic_q(${names.join(", ")}) CROSS JOIN LATERAL (SELECT ${texts.join(", ")}) AS mosaic_t`;
  const unwrap = (raw: unknown[]): unknown[] => {
    const out: unknown[] = [];
    let k = 0;
    for (let i = 0; i < fields.length; i++) {
      if (!guarded[i]) {
        out.push(raw[k++]);
        continue;
      }
      const [value, length, head] = [raw[k], raw[k + 1], raw[k + 2]];
      k += 3;
      out.push(length === null || length === undefined ? value : cutMark(String(head), Number(length), maxValueBytes));
    }
    return out;
  };
  return { text, guarded, unwrap };
}
