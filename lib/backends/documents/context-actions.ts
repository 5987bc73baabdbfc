import { QueryExecutionError } from "../errors";
import { linearizeRow } from "../evidence";
import type { BackendContext, Scalar } from "../types";
import { documentSentences, requireDocument, requireTable, type StoredDocument, type StoredTable } from "./content-access";
import { type IndexDb, openIndexForRead } from "./index-db";

/**
 * AU-RAG's retrieval actions over a document collection: SelectSentenceIdxs picks sentences of a
 * document, SelectCoordinates picks cells of a table. Each returns the context text it produces (what
 * an extraction guide records as "retrieved context") alongside the structured selection.
 */

export interface SentenceSelection {
  documentId: string;
  title: string;
  sentences: { index: number; text: string }[];
  /** "Title: sentence sentence …" in document order. */
  text: string;
}

export interface CoordinateSelection {
  tableKey: string;
  caption: string;
  columns: string[];
  rows: { rowIndex: number; values: Scalar[] }[];
  /** One linearized row per selected row: "Caption / section / Col: v, Col: v". */
  text: string;
}

function withIndex<T>(ctx: BackendContext, fn: (db: IndexDb) => T): T {
  const db = openIndexForRead(ctx);
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

export function readSentencesFrom(db: IndexDb, documentId: string): string[] {
  requireDocument(db, documentId);
  return documentSentences(db, documentId);
}

export function selectSentencesFrom(db: IndexDb, documentId: string, idxs: number[]): SentenceSelection {
  return sentenceSelection(requireDocument(db, documentId), documentSentences(db, documentId), idxs);
}

/** SelectSentenceIdxs over a document's sentences, whichever engine read them (pure). */
export function sentenceSelection(doc: StoredDocument, all: string[], idxs: number[]): SentenceSelection {
  const documentId = doc.id;
  const wanted = [...new Set(idxs)].sort((a, b) => a - b);
  const bad = wanted.filter((i) => !Number.isInteger(i) || i < 0 || i >= all.length);
  if (bad.length > 0) {
    throw new QueryExecutionError(
      `Sentence ${bad.join(", ")} does not exist in "${doc.title}": it has sentences 0 to ${all.length - 1}.`,
      `SelectSentenceIdxs(${documentId}, [${idxs.join(", ")}])`,
    );
  }
  const sentences = wanted.map((index) => ({ index, text: all[index] }));
  return { documentId, title: doc.title, sentences, text: `${doc.title}: ${sentences.map((s) => s.text).join(" ")}` };
}

/**
 * `rows` are 0-based data-row indexes; `cols` are 0-based column indexes or header names. An empty list
 * selects all rows (or all columns).
 */
export function selectCoordinatesFrom(db: IndexDb, tableKey: string, rows: number[], cols: (number | string)[]): CoordinateSelection {
  return coordinateSelection(requireTable(db, tableKey), rows, cols);
}

/** SelectCoordinates over a stored table, whichever engine read it (pure). */
export function coordinateSelection(table: StoredTable, rows: number[], cols: (number | string)[]): CoordinateSelection {
  const tableKey = table.key;
  const action = `SelectCoordinates(${tableKey}, [${rows.join(", ")}], [${cols.map((c) => JSON.stringify(c)).join(", ")}])`;
  const colIdx = cols.length === 0 ? table.header.map((_, j) => j) : cols.map((c) => (typeof c === "number" ? c : table.header.indexOf(c)));
  const badCols = cols.filter((c, k) => !Number.isInteger(colIdx[k]) || colIdx[k] < 0 || colIdx[k] >= table.header.length);
  if (badCols.length > 0) {
    throw new QueryExecutionError(
      `Table "${table.caption}" has no column ${badCols.map((c) => JSON.stringify(c)).join(", ")}; its columns are ${table.header.map((h, j) => `${j} "${h}"`).join(", ")}.`,
      action,
    );
  }
  const rowIdx = rows.length === 0 ? table.rows.map((_, i) => i) : [...new Set(rows)];
  const badRows = rowIdx.filter((i) => !Number.isInteger(i) || i < 0 || i >= table.rows.length);
  if (badRows.length > 0) {
    throw new QueryExecutionError(
      `Table "${table.caption}" has no row ${badRows.join(", ")}: it has rows 0 to ${table.rows.length - 1}.`,
      action,
    );
  }
  const columns = colIdx.map((j) => table.header[j]);
  const selected = rowIdx.map((i) => ({ rowIndex: i, values: colIdx.map((j) => table.rows[i][j] ?? null) }));
  const text = selected.map((r) => linearizeRow(table.caption, table.section ?? undefined, columns, r.values)).join("\n");
  return { tableKey, caption: table.caption, columns, rows: selected, text };
}

/** All sentences of a document, in order (index i = sentence i). */
export function readSentences(ctx: BackendContext, documentId: string): string[] {
  return withIndex(ctx, (db) => readSentencesFrom(db, documentId));
}

/** SelectSentenceIdxs: the given sentences of a document and the context text they make. */
export function selectSentences(ctx: BackendContext, documentId: string, idxs: number[]): SentenceSelection {
  return withIndex(ctx, (db) => selectSentencesFrom(db, documentId, idxs));
}

/** SelectCoordinates: the given cells of a document table and the linearized rows they make. */
export function selectCoordinates(ctx: BackendContext, tableKey: string, rows: number[], cols: (number | string)[]): CoordinateSelection {
  return withIndex(ctx, (db) => selectCoordinatesFrom(db, tableKey, rows, cols));
}
