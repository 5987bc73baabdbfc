import type { Preview } from "../types";
import { documentSentences, loadDocument, loadTable } from "./content-access";
import { QueryExecutionError } from "../errors";
import type { IndexDb } from "./index-db";
import { COLLECTION_UNIT } from "./records";

const DEFAULT_SENTENCES = 20;
const DEFAULT_ROWS = 50;
const DOCUMENTS_IN_COLLECTION_PREVIEW = 5;

/**
 * A look at a source unit: the collection shows the opening sentences of its first documents, a
 * document its first sentences, a table its first rows as a grid.
 */
export function previewUnit(db: IndexDb, collectionName: string, key: string, limit?: number): Preview {
  if (key === COLLECTION_UNIT) {
    const max = limit ?? DEFAULT_SENTENCES;
    const docs = db.prepare("SELECT id, title FROM documents WHERE status = 'ready' ORDER BY rowid LIMIT ?").all(DOCUMENTS_IN_COLLECTION_PREVIEW + 1) as {
      id: string;
      title: string;
    }[];
    const perDoc = Math.max(1, Math.ceil(max / Math.min(DOCUMENTS_IN_COLLECTION_PREVIEW, Math.max(docs.length, 1))));
    const firstChunk = db.prepare("SELECT sentences FROM chunks WHERE document_id = ? ORDER BY chunk_index LIMIT 1").pluck();
    const sentences: string[] = [];
    let truncated = docs.length > DOCUMENTS_IN_COLLECTION_PREVIEW;
    for (const doc of docs.slice(0, DOCUMENTS_IN_COLLECTION_PREVIEW)) {
      const json = firstChunk.get(doc.id) as string | undefined;
      const opening = json ? (JSON.parse(json) as string[]) : [];
      if (opening.length === 0) continue; // a table-only document (CSV, JSON) has no prose to show
      if (opening.length > perDoc) truncated = true;
      sentences.push(`${doc.title}: ${opening.slice(0, perDoc).join(" ")}`.trim());
      if (sentences.length >= max) break;
    }
    return { kind: "text", title: collectionName, sentences, truncated };
  }
  const table = loadTable(db, key);
  if (table) {
    const max = limit ?? DEFAULT_ROWS;
    return { kind: "table", title: table.caption, columns: table.header, rows: table.rows.slice(0, max), totalRows: table.rows.length, truncated: table.rows.length > max };
  }
  const doc = loadDocument(db, key);
  if (doc) {
    const max = limit ?? DEFAULT_SENTENCES;
    const all = documentSentences(db, doc.id);
    return { kind: "text", title: doc.title, sentences: all.slice(0, max), truncated: all.length > max };
  }
  throw new QueryExecutionError(`This collection has no source object "${key}" to preview.`, key);
}
