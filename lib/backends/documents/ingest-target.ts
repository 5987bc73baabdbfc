import { createHash } from "node:crypto";
import type { BackendContext } from "../types";
import type { ChunkingSettings } from "./assembled";
import { DEFAULT_DOCUMENTS_CONFIG, type DocumentsConfig, type DocumentsSecrets } from "./config";
import { openIndexForWrite, readMeta, type IndexDb } from "./index-db";
import { OpenSearchCollection } from "./opensearch/collection";
import { OpenSearchCollectionWriter } from "./opensearch/store";
import { CollectionWriter, type CommitOutcome, type DocumentToCommit } from "./store";

/**
 * Where ingestion writes a collection's documents, whichever engine holds it. Reading and parsing the
 * files is ingestion's (lib/ingest/documents); storing what it assembled is the engine's, here.
 */

export function contentHash(bytes: Buffer | string): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** Opens (creating if needed) the collection for writing, with the chunking settings it was built with. */
export function openCollectionForIngest(
  ctx: BackendContext,
  config?: Partial<DocumentsConfig>,
): { db: IndexDb; settings: ChunkingSettings } {
  const requested = { ...DEFAULT_DOCUMENTS_CONFIG, ...config };
  const db = openIndexForWrite(ctx, requested);
  // Passages of one collection are cut one way, so scores and sentence indexes stay comparable.
  const settings = {
    language: readMeta(db, "language") ?? requested.language,
    chunkMaxChars: Number(readMeta(db, "chunk_max_chars") ?? requested.chunkMaxChars),
  };
  return { db, settings };
}

/** Creates an empty collection index, so a collection registered before any upload can be described. */
export function initCollection(ctx: BackendContext, config?: Partial<DocumentsConfig>): void {
  openCollectionForIngest(ctx, config).db.close();
}

/** Where ingestion writes, whichever engine holds the collection. */
export interface IngestTarget {
  settings: ChunkingSettings;
  readyWithHash(contentHash: string): Promise<string | undefined>;
  commit(input: DocumentToCommit): Promise<CommitOutcome>;
  /** Several documents at once (dataset loads), with the outcomes of committing them in order. */
  commitMany(inputs: DocumentToCommit[]): Promise<CommitOutcome[]>;
  recordFailure(input: { sourceName: string; mediaType: string; contentHash: string; error: string }): Promise<void>;
  /** Removes one document with everything stored for it; false when there is none with this id. */
  remove(documentId: string): Promise<boolean>;
  close(): Promise<void>;
}

/** SQLite: one transaction per document, so a crash loses at most the document in flight. */
export function sqliteTarget(ctx: BackendContext, config?: Partial<DocumentsConfig>): IngestTarget {
  const { db, settings } = openCollectionForIngest(ctx, config);
  const writer = new CollectionWriter(db);
  return {
    settings,
    readyWithHash: async (hash) => writer.readyWithHash(hash),
    // IMMEDIATE takes the write lock before re-checking the hash, so two concurrent uploads of one file store it once.
    commit: async (input) => db.transaction(() => writer.commit(input).outcome).immediate(),
    commitMany: async (inputs) => db.transaction(() => inputs.map((input) => writer.commit(input).outcome)).immediate(),
    recordFailure: async (input) => db.transaction(() => writer.recordFailure(input)).immediate(),
    remove: async (documentId) => db.transaction(() => writer.remove(documentId)).immediate(),
    close: async () => {
      db.close();
    },
  };
}

/** OpenSearch: each document becomes visible in one step once all its parts are stored (opensearch/store.ts). */
export async function openSearchTarget(
  ctx: BackendContext,
  config: Partial<DocumentsConfig> | undefined,
  secrets: DocumentsSecrets,
): Promise<IngestTarget> {
  const requested = { ...DEFAULT_DOCUMENTS_CONFIG, ...config };
  const collection = OpenSearchCollection.open(requested, secrets, ctx);
  try {
    const meta = await collection.ensure(requested);
    const writer = new OpenSearchCollectionWriter(collection);
    return {
      settings: { language: meta.language, chunkMaxChars: meta.chunk_max_chars },
      readyWithHash: (hash) => writer.readyWithHash(hash),
      commit: async (input) => (await writer.commit(input)).outcome,
      commitMany: async (inputs) => (await writer.commitMany(inputs)).map((r) => r.outcome),
      recordFailure: (input) => writer.recordFailure(input),
      remove: (documentId) => writer.remove(documentId),
      close: async () => {
        try {
          await collection.refresh();
        } finally {
          await collection.close();
        }
      },
    };
  } catch (e) {
    await collection.close();
    throw e;
  }
}
