import type { IndexDb } from "./index-db";
import { readMeta } from "./index-db";

/**
 * The collection's vectors: one per search row (a passage or a table row), in the sqlite-vec table
 * `search_vectors` whose rowid is the search row's. `meta.embedding_model` names the model that wrote
 * them (name@precision:checksum); vectors of another model are never compared with a query, and a new
 * model starts the table over.
 */

export interface VectorState {
  /** The model id the vectors belong to; "" when none were written. */
  model: string;
  dimensions: number;
  /** Search rows (passages and table rows). */
  rows: number;
  /** Rows that have a vector of `model`. */
  embedded: number;
}

function tableExists(db: IndexDb, name: string): boolean {
  return !!db.prepare("SELECT 1 FROM sqlite_master WHERE name = ?").get(name);
}

export function vectorState(db: IndexDb): VectorState {
  const rows = db.prepare("SELECT count(*) FROM search_rows").pluck().get() as number;
  if (!tableExists(db, "search_vectors")) return { model: "", dimensions: 0, rows, embedded: 0 };
  return {
    model: readMeta(db, "embedding_model") ?? "",
    dimensions: Number(readMeta(db, "embedding_dimensions") ?? 0),
    rows,
    embedded: db.prepare("SELECT count(*) FROM search_vectors").pluck().get() as number,
  };
}

/** Vectors as sqlite-vec reads them: the float32 bytes. */
export function vectorBlob(v: Float32Array): Buffer {
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
}

/**
 * Makes the table hold `model`'s vectors: a collection embedded with another model (or width) is
 * emptied and starts over, in one transaction, so searches never mix two models' vectors.
 * Returns true when it started over.
 */
export function prepareVectorTable(db: IndexDb, model: string, dimensions: number): boolean {
  return db
    .transaction(() => {
      const current = readMeta(db, "embedding_model") ?? "";
      const width = Number(readMeta(db, "embedding_dimensions") ?? 0);
      if (current === model && width === dimensions && tableExists(db, "search_vectors")) return false;
      db.exec("DROP TABLE IF EXISTS search_vectors");
      db.exec(`CREATE VIRTUAL TABLE search_vectors USING vec0 (embedding float[${Math.floor(dimensions)}] distance_metric=cosine)`);
      const set = db.prepare("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value");
      set.run("embedding_model", model);
      set.run("embedding_dimensions", String(dimensions));
      return true;
    })
    .immediate();
}

export interface RowToEmbed {
  rowid: number;
  text: string;
}

/**
 * The next search rows without a vector, oldest first, with the text the search index holds for them
 * ("heading: body", the way verbalize shows a passage: "Title / Section: text").
 */
export function rowsWithoutVectors(db: IndexDb, limit: number): RowToEmbed[] {
  return db
    .prepare(
      `SELECT r.rowid AS rowid, s.heading AS heading, s.body AS body
       FROM search_rows r JOIN search_index s ON s.rowid = r.rowid
       WHERE r.rowid NOT IN (SELECT rowid FROM search_vectors)
       ORDER BY r.rowid LIMIT ?`,
    )
    .all(limit)
    .map((r) => {
      const row = r as { rowid: number; heading: string; body: string };
      return { rowid: row.rowid, text: row.heading ? `${row.heading}: ${row.body}` : row.body };
    });
}

/**
 * Stores vectors for rows that still exist and still lack one (a document replaced meanwhile has new
 * rows; its old ones are gone), in one transaction, only while the table still belongs to `model`.
 * Returns how many were stored.
 */
export function storeVectors(db: IndexDb, model: string, vectors: { rowid: number; vector: Float32Array }[]): number {
  const exists = db.prepare("SELECT 1 FROM search_rows WHERE rowid = ?");
  const has = db.prepare("SELECT 1 FROM search_vectors WHERE rowid = ?");
  const insert = db.prepare("INSERT INTO search_vectors (rowid, embedding) VALUES (?, ?)");
  return db
    .transaction(() => {
      if ((readMeta(db, "embedding_model") ?? "") !== model) return 0;
      let stored = 0;
      for (const { rowid, vector } of vectors) {
        if (!exists.get(rowid) || has.get(BigInt(rowid))) continue;
        // sqlite-vec takes integer rowids only; better-sqlite3 binds a JS number as a float unless it is a BigInt.
        insert.run(BigInt(rowid), vectorBlob(vector));
        stored++;
      }
      return stored;
    })
    .immediate();
}

export interface VectorHit {
  rowid: number;
  /** Cosine similarity to the query vector. */
  similarity: number;
}

/**
 * Nearest rows to `vector`. Unrestricted: sqlite-vec's k-nearest search. Restricted to a subset
 * (`rowFilter`: SQL over search_rows `r` and its parameters): the subset's vectors are compared
 * directly, which is exact and cheap for one document or table.
 */
export function nearestRows(db: IndexDb, vector: Float32Array, k: number, rowFilter?: { sql: string[]; params: unknown[] }): VectorHit[] {
  const blob = vectorBlob(vector);
  if (!rowFilter?.sql.length) {
    const hits = db.prepare("SELECT rowid, distance FROM search_vectors WHERE embedding MATCH ? AND k = ?").all(blob, k) as {
      rowid: number;
      distance: number;
    }[];
    return hits.map((h) => ({ rowid: Number(h.rowid), similarity: 1 - h.distance }));
  }
  const hits = db
    .prepare(
      `SELECT r.rowid AS rowid, vec_distance_cosine(v.embedding, ?) AS distance
       FROM search_rows r JOIN search_vectors v ON v.rowid = r.rowid
       WHERE ${rowFilter.sql.join(" AND ")}
       ORDER BY distance LIMIT ?`,
    )
    .all(blob, ...rowFilter.params, k) as { rowid: number; distance: number }[];
  return hits.map((h) => ({ rowid: Number(h.rowid), similarity: 1 - h.distance }));
}
