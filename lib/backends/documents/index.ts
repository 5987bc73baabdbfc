/** Document collections: one SQLite file per collection with FTS5 (BM25) and sqlite-vec. */
export { createDocumentsBackend } from "./backend";
export {
  DEFAULT_DOCUMENTS_CONFIG,
  documentsConfigSchema,
  documentsSecretsSchema,
  type DocumentsConfig,
  type DocumentsSecrets,
} from "./config";
export { readSentences, selectCoordinates, selectSentences, type CoordinateSelection, type SentenceSelection } from "./context-actions";
export { INDEX_FILE, indexPath } from "./index-db";
export { COLLECTION_UNIT, type PassageRecord, type SearchRecord, type TableRowRecord } from "./records";
export { tableKey } from "./store";
