import type { Preview } from "../types";
import { documentSentences, loadDocument, loadTable, type StoredDocument, type StoredTable } from "./content-access";
import { QueryExecutionError } from "../errors";
import type { IndexDb } from "./index-db";
import { COLLECTION_UNIT } from "./records";

const DEFAULT_SENTENCES = 20;
const DEFAULT_ROWS = 50;
const DOCUMENTS_IN_COLLECTION_PREVIEW = 5;

/** What a preview reads, whichever engine holds the collection. */
export interface PreviewSource {
  /** The first `n` ready documents in ingestion order. */
  firstDocuments(n: number): Promise<{ id: string; title: string }[]>;
  /** The sentences of a document's first passage ([] for a table-only document). */
  openingSentences(documentId: string): Promise<string[]>;
  loadTable(key: string): Promise<StoredTable | null>;
  loadDocument(id: string): Promise<StoredDocument | null>;
  documentSentences(documentId: string): Promise<string[]>;
}

/** The SQLite collection as a preview source. */
export function sqlitePreviewSource(db: IndexDb): PreviewSource {
  const firstChunk = db.prepare("SELECT sentences FROM chunks WHERE document_id = ? ORDER BY chunk_index LIMIT 1").pluck();
  return {
    firstDocuments: async (n) =>
      db.prepare("SELECT id, title FROM documents WHERE status = 'ready' ORDER BY rowid LIMIT ?").all(n) as { id: string; title: string }[],
    openingSentences: async (id) => {
      const json = firstChunk.get(id) as string | undefined;
      return json ? (JSON.parse(json) as string[]) : [];
    },
    loadTable: async (key) => loadTable(db, key),
    loadDocument: async (id) => loadDocument(db, id),
    documentSentences: async (id) => documentSentences(db, id),
  };
}

/**
 * A look at a source unit: the collection shows the opening sentences of its first documents, a
 * document its first sentences, a table its first rows as a grid.
 */
export async function previewUnit(source: PreviewSource, collectionName: string, key: string, limit?: number): Promise<Preview> {
  if (key === COLLECTION_UNIT) {
    const max = limit ?? DEFAULT_SENTENCES;
    const docs = await source.firstDocuments(DOCUMENTS_IN_COLLECTION_PREVIEW + 1);
    const perDoc = Math.max(1, Math.ceil(max / Math.min(DOCUMENTS_IN_COLLECTION_PREVIEW, Math.max(docs.length, 1))));
    const sentences: string[] = [];
    let truncated = docs.length > DOCUMENTS_IN_COLLECTION_PREVIEW;
    for (const doc of docs.slice(0, DOCUMENTS_IN_COLLECTION_PREVIEW)) {
      const opening = await source.openingSentences(doc.id);
      if (opening.length === 0) continue; // a table-only document (CSV, JSON) has no prose to show
      if (opening.length > perDoc) truncated = true;
      sentences.push(`${doc.title}: ${opening.slice(0, perDoc).join(" ")}`.trim());
      if (sentences.length >= max) break;
    }
    return { kind: "text", title: collectionName, sentences, truncated };
  }
  const table = await source.loadTable(key);
  if (table) {
    const max = limit ?? DEFAULT_ROWS;
    return {
      kind: "table",
      title: table.caption,
      columns: table.header,
      rows: table.rows.slice(0, max),
      totalRows: table.rows.length,
      truncated: table.rows.length > max,
    };
  }
  const doc = await source.loadDocument(key);
  if (doc) {
    const max = limit ?? DEFAULT_SENTENCES;
    const all = await source.documentSentences(doc.id);
    return { kind: "text", title: doc.title, sentences: all.slice(0, max), truncated: all.length > max };
  }
  throw new QueryExecutionError(`This collection has no source object "${key}" to preview.`, key);
}
