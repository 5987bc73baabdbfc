import { rememberVector } from "../../models/known-vectors";
import { QueryExecutionError, QueryRejectedError, QuerySyntaxError, QueryTimeoutError } from "../errors";
import { type ExecuteOptions, type NativeQuery, type RawResult, type Scalar, searchFiltersSchema } from "../types";
import { buildFtsQuery } from "./fts-query";
import { DEFAULT_FUSION, type FusionSettings, type RankedRow, describeHybrid, fuseRankings } from "./fusion";
import type { IndexDb } from "./index-db";
import { COLLECTION_UNIT, SEARCH_RESULT_COLUMNS, type SearchRecord, scalarEntries } from "./records";
import { nearestRows } from "./vectors";

/** Column weights for bm25(): a title/heading match counts as much as a body match. */
const BM25_WEIGHTS = "1.0, 1.0";

/** Each ranking of a hybrid search contributes this many candidates at least (more when more rows are asked for). */
const MIN_HYBRID_CANDIDATES = 100;
const MAX_HYBRID_CANDIDATES = 1000;

interface Hit {
  rowid: number;
  kind: "chunk" | "row";
  document_id: string;
  chunk_id: number | null;
  table_id: number | null;
  row_index: number | null;
  /** Higher is better: -bm25() for a lexical search, the fused score for a hybrid one. */
  score: number;
}

/** What a search's vector half embeds: the query's plain-words form when formulation gave one, else its text. */
export function denseText(query: NativeQuery): string {
  return query.semantic?.trim() || query.text;
}

/**
 * The panel shows the search text; when the vector half embedded other words, this note says which.
 * Brackets are left out of the quoted text: the panel reads the note as the trailing "[…]".
 */
export function vectorTextNote(query: NativeQuery): string {
  const embedded = denseText(query);
  return embedded === query.text ? "" : `; vector similarity to "${embedded.replace(/[[\]]/g, "")}"`;
}

/** The query's vector and the model it came from, for a hybrid search. */
export interface DenseQuery {
  /** The model id the collection's vectors must belong to. */
  model: string;
  name: string;
  precision: string;
  vector: Float32Array;
}

interface Restriction {
  sql: string[];
  params: unknown[];
}

/** Turns the filters into SQL over `search_rows`; an unknown source object is an error, not an empty result. */
function restrictionFor(db: IndexDb, query: NativeQuery): Restriction {
  const parsed = searchFiltersSchema.safeParse(query.filters ?? {});
  if (!parsed.success) {
    throw new QuerySyntaxError(
      `invalid search filters (${parsed.error.issues.map((i) => `${i.path.join(".") || "filters"}: ${i.message}`).join("; ")})`,
      query.text,
    );
  }
  const filters = parsed.data;
  const out: Restriction = { sql: [], params: [] };
  if (filters.contentType) {
    out.sql.push("r.kind = ?");
    out.params.push(filters.contentType === "table" ? "row" : "chunk");
  }
  if (filters.documentIds) {
    out.sql.push("r.document_id IN (SELECT value FROM json_each(?))");
    out.params.push(JSON.stringify(filters.documentIds));
  }
  const unit = filters.sourceObject;
  if (unit !== undefined) {
    if (unit === COLLECTION_UNIT) {
      out.sql.push("r.kind = 'chunk'");
    } else {
      const table = db.prepare("SELECT id FROM doc_tables WHERE key = ?").pluck().get(unit) as number | undefined;
      const document =
        table === undefined ? db.prepare("SELECT id FROM documents WHERE id = ? AND status = 'ready'").pluck().get(unit) : undefined;
      if (table !== undefined) {
        out.sql.push("r.table_id = ?");
        out.params.push(table);
      } else if (document !== undefined) {
        out.sql.push("r.document_id = ?");
        out.params.push(unit);
      } else {
        throw new QueryExecutionError(
          `This collection has no source object "${unit}" (expected "${COLLECTION_UNIT}", a document id or a table key such as "<document>#table-1").`,
          query.text,
        );
      }
    }
  }
  return out;
}

/**
 * BM25 search over passages and table rows, fused with vector similarity when `dense` is given (the
 * collection holds vectors of the query's model). better-sqlite3 runs synchronously, so a statement
 * cannot be interrupted from this thread; the bound on work comes from the query instead (at most
 * MAX_QUERY_TERMS quoted terms, no prefix or NEAR operators, bounded LIMITs; the vector search is one
 * k-nearest scan over the collection's vectors), which keeps a query to milliseconds on collections
 * of this size. The elapsed time is still checked, so a caller never receives a result later than its timeout.
 */
export function searchCollection(
  db: IndexDb,
  language: string,
  query: NativeQuery,
  options: ExecuteOptions,
  dense: DenseQuery | null = null,
  fusion: FusionSettings = DEFAULT_FUSION,
): RawResult {
  const started = performance.now();
  if (query.language !== "search") {
    throw new QueryRejectedError(
      `a document collection answers "search" queries (free text), not ${query.language.toUpperCase()}`,
      query.text,
    );
  }
  if (options.signal?.aborted) throw new QueryExecutionError("The search was cancelled before it started.", query.text);
  const restriction = restrictionFor(db, query);
  const match = buildFtsQuery(query.text, language);
  const maxRows = Math.max(1, Math.floor(options.maxRows));
  if (match === null && !dense)
    return { query, columns: SEARCH_RESULT_COLUMNS, records: [], truncated: false, elapsedMs: performance.now() - started };

  const candidates = dense ? Math.min(MAX_HYBRID_CANDIDATES, Math.max(maxRows + 1, MIN_HYBRID_CANDIDATES)) : maxRows + 1;
  const lexical: RankedRow[] =
    match === null
      ? []
      : (
          db
            .prepare(
              `SELECT r.rowid AS rowid, bm25(search_index, ${BM25_WEIGHTS}) AS score
               FROM search_index JOIN search_rows r ON r.rowid = search_index.rowid
               WHERE ${["search_index MATCH ?", ...restriction.sql].join(" AND ")}
               ORDER BY score LIMIT ?`,
            )
            .all(match, ...restriction.params, candidates) as { rowid: number; score: number }[]
        ).map((h) => ({ rowid: h.rowid, score: -h.score }));

  let ranked: { rowid: number; score: number }[] = lexical;
  let retrieval: string | undefined;
  if (dense) {
    const vector = nearestRows(db, dense.vector, candidates, restriction).map((h) => ({ rowid: h.rowid, score: h.similarity }));
    ranked = fuseRankings(lexical, vector, fusion);
    retrieval = describeHybrid(fusion, dense) + vectorTextNote(query);
  }
  const truncated = ranked.length > maxRows;
  const hits = rowsOf(db, ranked.slice(0, maxRows));
  const records = hydrate(db, hits, retrieval, dense?.model ?? null);
  const elapsedMs = performance.now() - started;
  if (elapsedMs > options.timeoutMs) throw new QueryTimeoutError(options.timeoutMs, query.text);
  return { query, columns: SEARCH_RESULT_COLUMNS, records: records as unknown as Record<string, unknown>[], truncated, elapsedMs };
}

/** What each ranked row points at, in ranking order. */
function rowsOf(db: IndexDb, ranked: { rowid: number; score: number }[]): Hit[] {
  const stmt = db.prepare("SELECT rowid, kind, document_id, chunk_id, table_id, row_index FROM search_rows WHERE rowid = ?");
  const out: Hit[] = [];
  for (const r of ranked) {
    const row = stmt.get(r.rowid) as Omit<Hit, "score"> | undefined;
    if (row) out.push({ ...row, score: r.score });
  }
  return out;
}

interface ChunkRow {
  document_id: string;
  title: string;
  chunk_index: number;
  section: string | null;
  text: string;
  start_offset: number;
  end_offset: number;
  first_sentence_index: number;
  sentences: string;
  location: string;
}

interface TableRow {
  key: string;
  document_id: string;
  title: string;
  caption: string;
  section: string | null;
  header: string;
  rows: string;
  metadata: string;
}

/**
 * Loads what each hit points at, keeping the ranking order. With `vectorModel`, each record's stored
 * vector is remembered beside it (known-vectors.ts), so scorers compare the question with it without
 * embedding the passage again.
 */
function hydrate(db: IndexDb, hits: Hit[], retrieval: string | undefined, vectorModel: string | null): SearchRecord[] {
  const vectorStmt = vectorModel ? db.prepare("SELECT embedding FROM search_vectors WHERE rowid = ?").pluck() : null;
  const remember = (record: SearchRecord, rowid: number) => {
    const blob = vectorStmt?.get(BigInt(rowid)) as Buffer | undefined;
    if (!blob || !vectorModel) return;
    const vector = new Float32Array(blob.byteLength / 4);
    new Uint8Array(vector.buffer).set(blob);
    rememberVector(record, { model: vectorModel, vector });
  };
  const chunkStmt = db.prepare(
    `SELECT c.document_id, d.title, c.chunk_index, c.section, c.text, c.start_offset, c.end_offset, c.first_sentence_index, c.sentences, c.location
     FROM chunks c JOIN documents d ON d.id = c.document_id WHERE c.id = ?`,
  );
  const tableStmt = db.prepare(
    `SELECT t.key, t.document_id, d.title, t.caption, t.section, t.header, t.rows, t.metadata
     FROM doc_tables t JOIN documents d ON d.id = t.document_id WHERE t.id = ?`,
  );
  const tables = new Map<number, { row: TableRow; header: string[]; rows: Scalar[][]; metadata: Record<string, Scalar> }>();
  const out: SearchRecord[] = [];
  for (const hit of hits) {
    if (hit.kind === "chunk" && hit.chunk_id !== null) {
      const c = chunkStmt.get(hit.chunk_id) as ChunkRow | undefined;
      if (!c) continue;
      const record: SearchRecord = {
        kind: "passage",
        score: hit.score,
        sourceObject: COLLECTION_UNIT,
        documentId: c.document_id,
        documentTitle: c.title,
        section: c.section,
        chunkIndex: c.chunk_index,
        text: c.text,
        start: c.start_offset,
        end: c.end_offset,
        sentences: JSON.parse(c.sentences) as string[],
        firstSentenceIndex: c.first_sentence_index,
        location: scalarEntries(JSON.parse(c.location)),
        ...(retrieval ? { retrieval } : {}),
      };
      remember(record, hit.rowid);
      out.push(record);
    } else if (hit.kind === "row" && hit.table_id !== null && hit.row_index !== null) {
      let table = tables.get(hit.table_id);
      if (!table) {
        const row = tableStmt.get(hit.table_id) as TableRow | undefined;
        if (!row) continue;
        table = { row, header: JSON.parse(row.header), rows: JSON.parse(row.rows), metadata: scalarEntries(JSON.parse(row.metadata)) };
        tables.set(hit.table_id, table);
      }
      const record: SearchRecord = {
        kind: "row",
        score: hit.score,
        sourceObject: table.row.key,
        documentId: table.row.document_id,
        documentTitle: table.row.title,
        tableKey: table.row.key,
        caption: table.row.caption,
        section: table.row.section,
        columns: table.header,
        values: table.rows[hit.row_index] ?? [],
        rowIndex: hit.row_index,
        tableMetadata: table.metadata,
        ...(retrieval ? { retrieval } : {}),
      };
      remember(record, hit.rowid);
      out.push(record);
    }
  }
  return out;
}
