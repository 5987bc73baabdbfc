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
export type { DatasetLoadOptions } from "./datasets/batch-commit";
export { loadSciFact } from "./datasets/scifact";
export { loadTatQa, loadTatQaContexts } from "./datasets/tatqa";
export { INDEX_FILE, indexPath } from "./index-db";
export { ingestFiles, initCollection, type IngestOptions, type IngestProgress, type IngestReport, type UploadedFile } from "./ingest";
export { COLLECTION_UNIT, type PassageRecord, type SearchRecord, type TableRowRecord } from "./records";
export { tableKey } from "./store";
