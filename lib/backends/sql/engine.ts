import type { ExecuteOptions } from "../types";
import type { PrivilegeReport } from "./postgres/privileges";
import type { SqlDialect } from "./dialect";
import type { TableInfo } from "./schema";

/** Rows as arrays, in column order, values as the driver gave them (made JSON-safe by the backend). */
export interface RowsResult {
  columns: string[];
  rows: unknown[][];
  truncated: boolean;
}

export interface RowCount {
  rows: number | null;
  approximate: boolean;
}

/**
 * What SqlBackend needs from an engine: the dialect-specific connection, catalog and execution. All
 * of it is read-only: SQLite files are opened read-only, PostgreSQL work runs in READ ONLY
 * transactions. Errors are the typed backend errors (errors.ts).
 */
export interface SqlEngine {
  readonly dialect: SqlDialect;
  /** Where the data is, for messages and the descriptor header: "file concert_singer.sqlite". */
  readonly location: string;
  /** "SQLite 3.53.2": also proves the database can be opened or reached (else BackendUnavailableError). */
  version(): Promise<string>;
  /** Tables and views with columns, primary keys and foreign keys, in the catalog's order. */
  loadTables(): Promise<TableInfo[]>;
  countRows(table: TableInfo): Promise<RowCount>;
  /** Quoted (and for PostgreSQL schema-qualified) name to put in SQL we write ourselves. */
  tableRef(table: TableInfo): string;
  /** SQL we write ourselves (identifiers quoted, no user text), bounded by time and rows; `table` is what it reads. */
  readInternal(sql: string, options: { timeoutMs: number; maxRows: number; table?: TableInfo }): Promise<RowsResult>;
  /** A query that passed checkSqlSafety, under the engine-level walls, timeout and row cap. */
  runQuery(sql: string, options: ExecuteOptions): Promise<RowsResult>;
  /**
   * What the connecting role may do beyond reading (PostgreSQL); absent where the engine opens files
   * read-only itself (SQLite).
   */
  privileges?(): Promise<PrivilegeReport>;
  /** Whether an admin accepted those risks for this knowledge base. */
  readonly privilegeRiskAccepted?: boolean;
  /** Changes when the data may have changed, so cached summaries are recomputed. */
  dataStamp(): string;
  close(): Promise<void>;
}
