import { QueryExecutionError } from "../errors";
import type { Scalar } from "../types";
import type { IndexDb } from "./index-db";
import { scalarEntries } from "./records";

export interface StoredTable {
  key: string;
  documentId: string;
  documentTitle: string;
  tableIndex: number;
  caption: string;
  section: string | null;
  position: number;
  header: string[];
  rows: Scalar[][];
  metadata: Record<string, Scalar>;
}

export interface StoredDocument {
  id: string;
  title: string;
  sourceName: string;
  mediaType: string;
}

interface TableRowSql {
  key: string;
  document_id: string;
  title: string;
  table_index: number;
  caption: string;
  section: string | null;
  position: number;
  header: string;
  rows: string;
  metadata: string;
}

export function loadTable(db: IndexDb, key: string): StoredTable | null {
  const t = db
    .prepare(
      `SELECT t.key, t.document_id, d.title, t.table_index, t.caption, t.section, t.position, t.header, t.rows, t.metadata
       FROM doc_tables t JOIN documents d ON d.id = t.document_id WHERE t.key = ?`,
    )
    .get(key) as TableRowSql | undefined;
  if (!t) return null;
  return {
    key: t.key,
    documentId: t.document_id,
    documentTitle: t.title,
    tableIndex: t.table_index,
    caption: t.caption,
    section: t.section,
    position: t.position,
    header: JSON.parse(t.header) as string[],
    rows: JSON.parse(t.rows) as Scalar[][],
    metadata: scalarEntries(JSON.parse(t.metadata)),
  };
}

export function requireTable(db: IndexDb, key: string): StoredTable {
  const table = loadTable(db, key);
  if (!table) throw new QueryExecutionError(`This collection has no table "${key}". Table keys look like "<document id>#table-1".`, key);
  return table;
}

export function loadDocument(db: IndexDb, id: string): StoredDocument | null {
  const d = db.prepare("SELECT id, title, source_name, media_type FROM documents WHERE id = ? AND status = 'ready'").get(id) as
    { id: string; title: string; source_name: string; media_type: string } | undefined;
  return d ? { id: d.id, title: d.title, sourceName: d.source_name, mediaType: d.media_type } : null;
}

export function requireDocument(db: IndexDb, id: string): StoredDocument {
  const doc = loadDocument(db, id);
  if (!doc) throw new QueryExecutionError(`This collection has no document "${id}".`, id);
  return doc;
}

/**
 * The document's sentences in order, rebuilt from its passages (which hold every sentence exactly
 * once), so sentence i here is the sentence i of PassageData.firstSentenceIndex.
 */
export function documentSentences(db: IndexDb, documentId: string): string[] {
  const rows = db.prepare("SELECT sentences FROM chunks WHERE document_id = ? ORDER BY chunk_index").pluck().all(documentId) as string[];
  return rows.flatMap((json) => JSON.parse(json) as string[]);
}
