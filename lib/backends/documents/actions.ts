import { QueryExecutionError } from "../errors";
import type { KnowledgeBackend } from "../types";
import type { CoordinateSelection, SentenceSelection } from "./context-actions";

/** A ready document as the analyst's document picker lists it. */
export interface CollectionDocument {
  id: string;
  title: string;
  mediaType: string;
  sentences: number;
  tables: number;
}

/**
 * What a document collection offers beyond search, whichever engine holds it: AU-RAG's retrieval
 * actions (SelectSentenceIdxs, SelectCoordinates) and the reads behind the analyst's sentence picker.
 * Both document backends implement it; callers reach it through the KB's open backend.
 */
export interface CollectionActions {
  selectSentences(documentId: string, idxs: number[]): Promise<SentenceSelection>;
  selectCoordinates(tableKey: string, rows: number[], cols: (number | string)[]): Promise<CoordinateSelection>;
  /** All sentences of a document, in order (index i = sentence i). */
  readSentences(documentId: string): Promise<string[]>;
  /** Ready documents by title, at most `limit`. */
  listDocuments(limit: number): Promise<CollectionDocument[]>;
}

export function collectionActions(backend: KnowledgeBackend): CollectionActions {
  const b = backend as KnowledgeBackend & Partial<CollectionActions>;
  if (backend.kind !== "DOCUMENTS" || !b.selectSentences || !b.selectCoordinates || !b.readSentences || !b.listDocuments) {
    throw new QueryExecutionError("Sentences and table cells can be selected in document collections only.", backend.kind);
  }
  return b as KnowledgeBackend & CollectionActions;
}
