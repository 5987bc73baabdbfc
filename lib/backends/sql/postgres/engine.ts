import pg from "pg";
import type { PoolClient, QueryConfig } from "pg";
import { BackendUnavailableError } from "../../errors";
import type { ExecuteOptions } from "../../types";
import type { PostgresConfig } from "../config";
import { quoteIdent } from "../dialect";
import type { RowCount, RowsResult, SqlEngine } from "../engine";
import type { TableInfo } from "../schema";
import { connectionFailure, queryFailure, type ServerAddress } from "./errors";
import { pgTypes } from "./type-parsers";

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

  constructor(
    private readonly config: PostgresConfig,
    private readonly password: string | undefined,
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
        throw new BackendUnavailableError(`The schema "${this.config.schema}" does not exist in the database "${this.config.database}" on ${this.config.host}:${this.config.port}.`);
      }
      const columns = (await client.query<TableRow>(TABLES_SQL, [this.config.schema])).rows;
      const constraints = (await client.query<ConstraintRow>(CONSTRAINTS_SQL, [this.config.schema])).rows;
      const tables = new Map<string, TableInfo>();
      this.estimates.clear();
      for (const r of columns) {
        let t = tables.get(r.table_name);
        if (!t) {
          t = { name: r.table_name, kind: r.kind === "v" || r.kind === "m" ? "view" : "table", columns: [], primaryKey: [], foreignKeys: [] };
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
    return this.inReadOnlyTransaction(timeoutMs, sql, (client) => this.fetchThroughCursor(client, sql, timeoutMs, maxRows), signal);
  }

  async close(): Promise<void> {
    const pool = this.pool;
    this.pool = null;
    await pool?.end().catch(() => undefined);
  }

  /**
   * DECLARE accepts only a SELECT or VALUES (a third wall behind the parser and the read-only
   * transaction), and the extended protocol refuses a text with more than one statement.
   */
  private async fetchThroughCursor(client: PoolClient, sql: string, timeoutMs: number, maxRows: number): Promise<RowsResult> {
    const declare: PgQueryConfig = { text: `DECLARE ${CURSOR} NO SCROLL CURSOR FOR ${sql}`, queryMode: "extended", query_timeout: timeoutMs + CLIENT_GRACE_MS };
    await client.query(declare);
    const fetch: PgQueryConfig = { text: `FETCH FORWARD ${maxRows + 1} FROM ${CURSOR}`, rowMode: "array", types: pgTypes, query_timeout: timeoutMs + CLIENT_GRACE_MS };
    const res = await client.query(fetch);
    const rows = res.rows as unknown as unknown[][];
    return { columns: res.fields.map((f) => f.name), rows: rows.slice(0, maxRows), truncated: rows.length > maxRows };
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
      throw connectionFailure(e, this.address) ?? new BackendUnavailableError(`Cannot connect to ${this.config.host}:${this.config.port}: ${e instanceof Error ? e.message : String(e)}.`);
    }
  }

  private async inReadOnlyTransaction<T>(timeoutMs: number, sql: string, work: (client: PoolClient) => Promise<T>, signal?: AbortSignal): Promise<T> {
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
      await client.query("SELECT set_config('statement_timeout', $1, true), set_config('idle_in_transaction_session_timeout', $2, true), set_config('search_path', $3, true)", [
        `${timeoutMs}ms`,
        `${Math.max(2 * timeoutMs, 10_000)}ms`,
        quoteIdent(this.config.schema),
      ]);
      return await work(client);
    } catch (e) {
      if (signal?.aborted) throw signal.reason;
      if (e instanceof BackendUnavailableError) throw e;
      const failure = queryFailure(e, sql, timeoutMs, this.address);
      if (failure instanceof BackendUnavailableError || /read timeout/i.test(String(e))) discard = true;
      throw failure;
    } finally {
      signal?.removeEventListener("abort", onAbort);
      if (!discard) {
        try {
          await client.query("ROLLBACK");
        } catch {
          discard = true;
        }
      }
      // A connection in an unknown state is closed rather than handed to the next query.
      client.release(discard ? true : undefined);
    }
  }
}
