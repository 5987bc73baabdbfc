import Database from "better-sqlite3";
import { existsSync } from "node:fs";
import { asStringLiteral, unresolvedDoubleQuoted } from "../../backends/sql/sqlite/double-quoted-strings";
import { toJsonSafe } from "../../backends/sql/values";
import type { ResultTable } from "../types";

/**
 * Gold SQL on a benchmark's own SQLite file (Spider), independent of the knowledge base the pipeline
 * reads: the file is opened read-only, SQLite itself confirms the statement only reads, and the legacy
 * "double-quoted string" reading Spider's gold SQL relies on is applied exactly where SQLite reports an
 * unresolved name (as the SQL backend does for generated queries).
 */

const MAX_REWRITES = 20;

export class GoldSqliteFiles {
  private readonly open = new Map<string, Database.Database>();

  constructor(private readonly maxRows = 10_000) {}

  private connection(file: string): Database.Database {
    let db = this.open.get(file);
    if (!db) {
      if (!existsSync(file)) throw new Error(`The gold database ${file} does not exist (is DATASETS_DIR right?).`);
      db = new Database(file, { readonly: true, fileMustExist: true });
      this.open.set(file, db);
    }
    return db;
  }

  run(file: string, sql: string): ResultTable {
    const db = this.connection(file);
    let text = sql;
    let stmt: Database.Statement | null = null;
    for (let i = 0; i <= MAX_REWRITES && !stmt; i++) {
      try {
        stmt = db.prepare(text);
      } catch (e) {
        const name = unresolvedDoubleQuoted((e as Error).message);
        const rewritten = name === null ? null : asStringLiteral(text, name);
        if (rewritten === null) throw e;
        text = rewritten;
      }
    }
    if (!stmt) throw new Error("the gold query has too many double-quoted strings");
    if (!stmt.readonly || !stmt.reader) throw new Error("the gold query is not a read-only SELECT");
    stmt.raw(true);
    const columns = stmt.columns().map((c) => c.name);
    const rows: unknown[][] = [];
    let truncated = false;
    for (const row of stmt.iterate() as Iterable<unknown[]>) {
      if (rows.length >= this.maxRows) {
        truncated = true;
        break;
      }
      rows.push(row.map((v) => toJsonSafe(v)));
    }
    return { columns, rows, truncated };
  }

  close(): void {
    for (const db of this.open.values()) db.close();
    this.open.clear();
  }
}
