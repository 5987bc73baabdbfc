import type { Scalar } from "../types";
import type { SqlDialect } from "./dialect";

/** The structure of a relational KB as read from the engine's catalog (no data). */
export interface ColumnInfo {
  name: string;
  /** Declared type as the engine reports it ("int", "varchar(20)"); "" when SQLite has none. */
  type: string;
  notNull: boolean;
}

export interface ForeignKeyInfo {
  columns: string[];
  refTable: string;
  /** Empty when the engine does not name them (SQLite: the referenced table's primary key). */
  refColumns: string[];
}

export interface TableInfo {
  name: string;
  kind: "table" | "view";
  columns: ColumnInfo[];
  primaryKey: string[];
  foreignKeys: ForeignKeyInfo[];
  /**
   * Reading it runs code the database defines (a view, or generated columns), which an uploaded file
   * can make as slow or as large as it likes: such reads go through the killable query process.
   */
  computed?: boolean;
}

/** What describe(), sourceUnits() and the entity index read about each table's content. */
export interface TableStats {
  rows: number | null;
  /** PostgreSQL's planner estimate rather than a count. */
  approximate: boolean;
  /** A few distinct values per column, from the first rows of the table. */
  examples: Record<string, Scalar[]>;
}

export interface SchemaSummary {
  tables: TableInfo[];
  stats: Map<string, TableStats>;
  /** "SQLite 3.53.2", "PostgreSQL 16.4". */
  engineVersion: string;
}

/** Finds a table by the name a query used: exact first, then ignoring case (both engines fold unquoted names). */
export function findTable(tables: TableInfo[], name: string): TableInfo | undefined {
  return tables.find((t) => t.name === name) ?? tables.find((t) => t.name.toLowerCase() === name.toLowerCase());
}

/** Tables whose foreign keys point at `table`. */
export function referencedBy(tables: TableInfo[], table: TableInfo): string[] {
  const name = table.name.toLowerCase();
  return tables.filter((t) => t !== table && t.foreignKeys.some((fk) => fk.refTable.toLowerCase() === name)).map((t) => t.name);
}

/**
 * Whether a column holds text a question could name (so its values go into the entity index).
 * SQLite follows its type-affinity rules (CHAR, CLOB, TEXT, or no declared type).
 */
export function isTextColumn(column: ColumnInfo, dialect: SqlDialect): boolean {
  const type = column.type.toLowerCase();
  if (dialect === "sqlite") return type === "" || /char|clob|text/.test(type);
  return /^(text|character|char|varchar|citext|name)\b/.test(type) || type.startsWith("character varying");
}
