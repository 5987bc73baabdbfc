import { statSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { BackendUnavailableError, QueryExecutionError } from "../../errors";
import type { ExecuteOptions } from "../../types";
import { quoteIdent } from "../dialect";
import type { RowCount, RowsResult, SqlEngine } from "../engine";
import type { ForeignKeyInfo, TableInfo } from "../schema";
import { asStringLiteral, unresolvedDoubleQuoted } from "./double-quoted-strings";
import { SqliteQueryProcess } from "./query-process";
import { log } from "../../../log";

/** Counting a view's rows runs the view; past this it is described without a count. */
const COMPUTED_COUNT_TIMEOUT_MS = 5_000;
/** Each round turns one unresolved "name" into a string (see double-quoted-strings.ts). */
const MAX_STRING_REWRITES = 20;

/**
 * Virtual-table modules whose tables hold their own data in the file: full-text and R*Tree indexes.
 * Their columns are read through the query process like views (an FTS table with external content runs
 * its content view). Any other module (dbstat, fts5vocab, csv, one this SQLite lacks) reads the file's
 * pages, other tables' internals or files outside it, or fails to load: such a table is not described,
 * so neither summaries nor generated queries name it.
 */
const PLAIN_MODULES = new Set(["fts3", "fts4", "fts5", "rtree", "rtree_i32"]);

/** The module of a `CREATE VIRTUAL TABLE … USING module(…)`, lower-cased; null for other objects. */
export function virtualModule(sql: string | null): string | null {
  const m = sql ? /^\s*CREATE\s+VIRTUAL\s+TABLE\s+[\s\S]*?\bUSING\s+["'`\[]?([A-Za-z_][A-Za-z0-9_]*)/i.exec(sql) : null;
  return m ? m[1]!.toLowerCase() : null;
}

interface SqliteError {
  code?: string;
  message: string;
}

/**
 * A SQLite file opened read-only. The catalog (names and columns from sqlite_schema and pragmas) is read
 * with a read-only connection in this process; every read of rows (counts, previews, samples, user
 * queries) runs in a child process that can be killed at the deadline (query-process.ts).
 */
export class SqliteEngine implements SqlEngine {
  readonly dialect = "sqlite" as const;
  readonly location: string;
  private db: Database.Database | null = null;
  private openedStamp = "";
  private readonly queries: SqliteQueryProcess;

  constructor(private readonly file: string) {
    this.location = `file ${path.basename(file)}`;
    this.queries = new SqliteQueryProcess(file);
  }

  dataStamp(): string {
    try {
      const s = statSync(this.file);
      return `${s.mtimeMs}:${s.size}`;
    } catch {
      return "missing";
    }
  }

  async version(): Promise<string> {
    const row = this.connection().prepare("SELECT sqlite_version() AS v").get() as { v: string };
    return `SQLite ${row.v}`;
  }

  async loadTables(): Promise<TableInfo[]> {
    const db = this.connection();
    const listed = db
      .prepare(
        "SELECT name, type, sql FROM sqlite_schema WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY rowid",
      )
      .all() as { name: string; type: "table" | "view"; sql: string | null }[];
    const objects = listed.filter((o) => {
      const vmodule = virtualModule(o.sql);
      if (vmodule === null || PLAIN_MODULES.has(vmodule)) return true;
      log.info(
        { table: o.name, module: vmodule },
        "a virtual table of a module that reads outside the file or the schema is not described",
      );
      return false;
    });
    // table_xinfo also lists generated columns (hidden 2 or 3), whose expressions run on every read.
    const columnsOf = db.prepare(
      'SELECT name, type, "notnull" AS not_null, pk, hidden FROM pragma_table_xinfo(?) WHERE hidden <> 1 ORDER BY cid',
    );
    const keysOf = db.prepare(
      'SELECT id, seq, "table" AS refTable, "from" AS col, "to" AS refCol FROM pragma_foreign_key_list(?) ORDER BY id, seq',
    );
    const tables = objects.flatMap((o): TableInfo[] => {
      let cols: { name: string; type: string | null; not_null: number; pk: number; hidden: number }[];
      try {
        cols = columnsOf.all(o.name) as typeof cols;
      } catch (e) {
        // A view of a table that is gone, a virtual table whose module fails: nothing to describe or ask.
        log.info(
          { table: o.name, detail: e instanceof Error ? e.message : String(e) },
          "a SQLite object that cannot be read is not described",
        );
        return [];
      }
      const fks = new Map<number, ForeignKeyInfo & { partialRefs: (string | null)[] }>();
      for (const k of keysOf.all(o.name) as { id: number; refTable: string; col: string; refCol: string | null }[]) {
        const fk = fks.get(k.id) ?? { columns: [], refTable: k.refTable, refColumns: [], partialRefs: [] };
        fk.columns.push(k.col);
        fk.partialRefs.push(k.refCol);
        fks.set(k.id, fk);
      }
      return [
        {
          name: o.name,
          kind: o.type,
          computed: o.type === "view" || virtualModule(o.sql) !== null || cols.some((c) => c.hidden === 2 || c.hidden === 3),
          columns: cols.map((c) => ({ name: c.name, type: c.type ?? "", notNull: c.not_null === 1 })),
          primaryKey: cols
            .filter((c) => c.pk > 0)
            .sort((a, b) => a.pk - b.pk)
            .map((c) => c.name),
          foreignKeys: [...fks.values()].map(({ partialRefs, ...fk }) => ({
            ...fk,
            refColumns: partialRefs.every((r): r is string => typeof r === "string") ? partialRefs : [],
          })),
        },
      ];
    });
    // `REFERENCES parent` without columns means the parent's primary key.
    for (const t of tables) {
      for (const fk of t.foreignKeys) {
        if (fk.refColumns.length > 0) continue;
        const parent = tables.find((p) => p.name.toLowerCase() === fk.refTable.toLowerCase());
        if (parent && parent.primaryKey.length === fk.columns.length) fk.refColumns = [...parent.primaryKey];
      }
    }
    return tables;
  }

  async countRows(table: TableInfo): Promise<RowCount> {
    // Counting runs whatever the table is made of (a view, an FTS table over a view): always in the
    // killable query process, and a count that does not finish in time is shown as unknown.
    const sql = `SELECT count(*) AS n FROM ${this.tableRef(table)}`;
    const res = await this.readInternal(sql, { timeoutMs: COMPUTED_COUNT_TIMEOUT_MS, maxRows: 1, table }).catch(() => null);
    return res ? { rows: Number(res.rows[0]?.[0] ?? 0), approximate: false } : { rows: null, approximate: true };
  }

  tableRef(table: TableInfo): string {
    return quoteIdent(table.name);
  }

  /**
   * Our own SQL (previews, samples, counts). It runs in the killable query process with its time, memory
   * and byte limits like any query, whatever it reads: a plain table is cheap there too, while a view, a
   * generated column or a virtual table runs code from the uploaded file (issue 31, case 11: an FTS5
   * table whose content is an endless recursive view froze the server when counted in this process).
   */
  async readInternal(sql: string, { timeoutMs, maxRows }: { timeoutMs: number; maxRows: number; table?: TableInfo }): Promise<RowsResult> {
    return this.queries.run(sql, { timeoutMs, maxRows });
  }

  async runQuery(sql: string, options: ExecuteOptions): Promise<RowsResult> {
    this.connection();
    let text = sql;
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.queries.run(text, options);
      } catch (e) {
        const name = e instanceof QueryExecutionError && attempt < MAX_STRING_REWRITES ? unresolvedDoubleQuoted(e.message) : null;
        const rewritten = name === null ? null : asStringLiteral(text, name);
        if (rewritten === null) throw e;
        text = rewritten;
      }
    }
  }

  async close(): Promise<void> {
    await this.queries.close();
    this.db?.close();
    this.db = null;
  }

  /** The in-process read-only connection, reopened when the file was replaced (a new upload). */
  private connection(): Database.Database {
    const stamp = this.dataStamp();
    if (this.db && stamp === this.openedStamp) return this.db;
    this.db?.close();
    this.db = null;
    if (stamp === "missing")
      throw new BackendUnavailableError(
        `The database file of this knowledge base (${path.basename(this.file)}) is missing. Upload the database again.`,
      );
    let db: Database.Database | null = null;
    try {
      db = new Database(this.file, { readonly: true, fileMustExist: true });
      db.pragma("query_only = ON");
      // Opening is lazy in SQLite: reading the schema proves the file really is a database.
      db.prepare("SELECT count(*) FROM sqlite_schema").get();
    } catch (e) {
      db?.close();
      const err = e as SqliteError;
      log.warn({ code: err.code, detail: err.message, file: this.file }, "SQLite could not open a knowledge base file");
      if (err.code === "SQLITE_NOTADB" || err.code === "SQLITE_CORRUPT") {
        throw new BackendUnavailableError(
          `${path.basename(this.file)} is not a SQLite database, or it is damaged. Upload a SQLite database file.`,
        );
      }
      if (err.code === "SQLITE_CANTOPEN")
        throw new BackendUnavailableError(`${path.basename(this.file)} cannot be opened. Check that the file is readable.`);
      throw new QueryExecutionError(
        `${path.basename(this.file)} cannot be read right now. Try again; if it persists, upload the database again.`,
        "",
      );
    }
    this.db = db;
    this.openedStamp = stamp;
    return db;
  }
}
