import { existsSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import * as sqliteVec from "sqlite-vec";
import { BackendUnavailableError } from "../errors";
import type { BackendContext } from "../types";

export type IndexDb = Database.Database;

export const INDEX_FILE = "collection.sqlite";
export const SCHEMA_VERSION = "1";
/** Width of the vector table a new collection starts with (all-MiniLM-L6-v2); an embedder of another width recreates it (vectors.ts). */
export const EMBEDDING_DIMENSIONS = 384;

export function indexPath(ctx: BackendContext): string {
  return path.join(ctx.storageDir, INDEX_FILE);
}

/**
 * One SQLite file per collection. `search_index` (FTS5) holds passages and linearized table rows so
 * both are ranked by the same BM25 statistics; `search_rows` says what each FTS row points at (kept
 * out of the FTS table so filters and deletes use ordinary B-tree indexes).
 */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

CREATE TABLE IF NOT EXISTS documents (
  id TEXT PRIMARY KEY,
  title TEXT NOT NULL,
  source_name TEXT NOT NULL UNIQUE,
  media_type TEXT NOT NULL,
  content_hash TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('ready', 'failed')),
  error TEXT,
  text TEXT NOT NULL DEFAULT '',
  ingested_at TEXT NOT NULL,
  metadata TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX IF NOT EXISTS documents_content_hash ON documents (content_hash);

CREATE TABLE IF NOT EXISTS chunks (
  id INTEGER PRIMARY KEY,
  document_id TEXT NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
  chunk_index INTEGER NOT NULL,
  section TEXT,
  text TEXT NOT NULL,
  start_offset INTEGER NOT NULL,
  end_offset INTEGER NOT NULL,
  first_sentence_index INTEGER NOT NULL,
  sentences TEXT NOT NULL,
  location TEXT NOT NULL DEFAULT '{}',
  UNIQUE (document_id, chunk_index)
);

CREATE TABLE IF NOT EXISTS doc_tables (
  id INTEGER PRIMARY KEY,
  key TEXT NOT NULL UNIQUE,
  document_id TEXT NOT NULL REFERENCES documents (id) ON DELETE CASCADE,
  table_index INTEGER NOT NULL,
  caption TEXT NOT NULL,
  section TEXT,
  position INTEGER NOT NULL,
  header TEXT NOT NULL,
  rows TEXT NOT NULL,
  row_count INTEGER NOT NULL,
  metadata TEXT NOT NULL DEFAULT '{}',
  UNIQUE (document_id, table_index)
);

CREATE VIRTUAL TABLE IF NOT EXISTS search_index USING fts5 (heading, body, tokenize = 'porter unicode61');

CREATE TABLE IF NOT EXISTS search_rows (
  rowid INTEGER PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind IN ('chunk', 'row')),
  document_id TEXT NOT NULL,
  chunk_id INTEGER,
  table_id INTEGER,
  row_index INTEGER
);
CREATE INDEX IF NOT EXISTS search_rows_document ON search_rows (document_id);
CREATE INDEX IF NOT EXISTS search_rows_table ON search_rows (table_id);

-- One vector per search row (passage or table row), rowid = search_rows.rowid, written by the embedding job.
CREATE VIRTUAL TABLE IF NOT EXISTS search_vectors USING vec0 (embedding float[${EMBEDDING_DIMENSIONS}] distance_metric=cosine);
-- Earlier layouts had an (always empty) per-chunk table; vectors now cover table rows too.
DROP TABLE IF EXISTS chunk_vectors;
`;

function loadExtensions(db: IndexDb): void {
  sqliteVec.load(db);
}

/** Creates the index file (and its schema) when missing; returns a writable connection. */
export function openIndexForWrite(ctx: BackendContext, settings: { language: string; chunkMaxChars: number }): IndexDb {
  const file = indexPath(ctx);
  let db: IndexDb;
  try {
    db = new Database(file);
    db.pragma("journal_mode = WAL");
    // WAL + NORMAL is durable at transaction boundaries across process crashes (only an OS crash can lose the tail).
    db.pragma("synchronous = NORMAL");
    db.pragma("busy_timeout = 10000");
    db.pragma("foreign_keys = ON");
    loadExtensions(db);
    db.exec(SCHEMA);
  } catch (e) {
    throw new BackendUnavailableError(describeOpenFailure(file, e));
  }
  const seed = db.prepare("INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)");
  db.transaction(() => {
    seed.run("schema_version", SCHEMA_VERSION);
    seed.run("language", settings.language);
    seed.run("chunk_max_chars", String(settings.chunkMaxChars));
    seed.run("content_version", "0");
    // Which model wrote search_vectors (its id: name@precision:sha256 prefix). Empty means no vectors yet.
    seed.run("embedding_model", "");
    seed.run("embedding_dimensions", String(EMBEDDING_DIMENSIONS));
  })();
  return db;
}

/** Read-only connection for queries: nothing a search does can change the collection. */
export function openIndexForRead(ctx: BackendContext): IndexDb {
  const file = indexPath(ctx);
  if (!existsSync(file)) throw new BackendUnavailableError(missingIndexMessage(file));
  let db: IndexDb | undefined;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
    db.pragma("busy_timeout = 10000");
    loadExtensions(db);
    const version = db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").pluck().get() as string | undefined;
    if (version !== SCHEMA_VERSION) {
      throw new Error(`unknown index layout ${version ?? "(none)"}, expected ${SCHEMA_VERSION}`);
    }
    return db;
  } catch (e) {
    db?.close();
    throw new BackendUnavailableError(describeOpenFailure(file, e));
  }
}

export function missingIndexMessage(file: string): string {
  return `Cannot open ${file}: file not found. No documents have been ingested into this collection yet, or the index was removed; upload the documents again to rebuild it.`;
}

function describeOpenFailure(file: string, e: unknown): string {
  const reason = e instanceof Error ? e.message : String(e);
  return `Cannot open ${file}: ${reason}. The collection index is unreadable or not a Mosaic collection; remove it and upload the documents again to rebuild it.`;
}

export function readMeta(db: IndexDb, key: string): string | undefined {
  return db.prepare("SELECT value FROM meta WHERE key = ?").pluck().get(key) as string | undefined;
}
