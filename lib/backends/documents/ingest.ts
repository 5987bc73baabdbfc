import { createHash } from "node:crypto";
import type { BackendContext } from "../types";
import { assembleDocument, type AssembledDocument, type ChunkingSettings } from "./assemble";
import { DEFAULT_DOCUMENTS_CONFIG, type DocumentsConfig, type DocumentsSecrets } from "./config";
import { openIndexForWrite, readMeta, type IndexDb } from "./index-db";
import { DocumentParseError, MEDIA_TYPES, detectFormat, parseDocument } from "./parsers";
import { OpenSearchCollection } from "./opensearch/collection";
import { OpenSearchCollectionWriter } from "./opensearch/store";
import { CollectionWriter, type CommitOutcome, type DocumentToCommit } from "./store";

export interface UploadedFile {
  name: string;
  bytes: Buffer;
  mediaType?: string;
}

export type IngestOutcome = CommitOutcome | "failed";

export interface IngestProgress {
  done: number;
  total: number;
  /** The file or dataset record just handled. */
  name: string;
  outcome: IngestOutcome;
}

export interface IngestOptions {
  /**
   * Called after each document is committed (or skipped, or failed). An exception thrown here stops
   * the run; everything committed before it stays, and a re-run continues from there.
   */
  onProgress?: (progress: IngestProgress) => void;
  /** Chunking settings for a new collection (an existing collection keeps the ones it was built with), and its engine. */
  config?: Partial<DocumentsConfig>;
  /** The engine's secrets (an OpenSearch cluster's password). */
  secrets?: DocumentsSecrets;
}

export interface IngestReport {
  added: number;
  /** A file with the same name but new content replaced its earlier version. */
  replaced: number;
  /** Already ingested with the same content. */
  skipped: number;
  /** `error` says what is wrong without repeating the name: show it as `${name}: ${error}`. */
  failed: { name: string; error: string }[];
}

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
  close(): Promise<void>;
}

/** SQLite: one transaction per document, so a crash loses at most the document in flight. */
function sqliteTarget(ctx: BackendContext, config?: Partial<DocumentsConfig>): IngestTarget {
  const { db, settings } = openCollectionForIngest(ctx, config);
  const writer = new CollectionWriter(db);
  return {
    settings,
    readyWithHash: async (hash) => writer.readyWithHash(hash),
    // IMMEDIATE takes the write lock before re-checking the hash, so two concurrent uploads of one file store it once.
    commit: async (input) => db.transaction(() => writer.commit(input).outcome).immediate(),
    commitMany: async (inputs) => db.transaction(() => inputs.map((input) => writer.commit(input).outcome)).immediate(),
    recordFailure: async (input) => db.transaction(() => writer.recordFailure(input)).immediate(),
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

/**
 * Ingests uploaded files one document at a time: a file already stored with the same content is
 * skipped before it is even parsed, a file that cannot be read is reported (and listed in the
 * collection as failed) without stopping the others, and a crash loses at most the document in flight.
 */
export async function ingestFiles(ctx: BackendContext, files: UploadedFile[], opts: IngestOptions = {}): Promise<IngestReport> {
  const target =
    opts.config?.engine === "opensearch" ? await openSearchTarget(ctx, opts.config, opts.secrets ?? {}) : sqliteTarget(ctx, opts.config);
  const report: IngestReport = { added: 0, replaced: 0, skipped: 0, failed: [] };
  try {
    for (const [i, file] of files.entries()) {
      const hash = contentHash(file.bytes);
      const format = detectFormat(file.name, file.bytes, file.mediaType);
      const mediaType = format ? MEDIA_TYPES[format] : (file.mediaType ?? "application/octet-stream");
      let outcome: IngestOutcome;
      if (await target.readyWithHash(hash)) {
        outcome = "skipped";
      } else {
        const read = await readFile(file, target.settings);
        if ("error" in read) {
          await target.recordFailure({ sourceName: file.name, mediaType, contentHash: hash, error: read.error });
          report.failed.push({ name: file.name, error: read.error });
          outcome = "failed";
        } else {
          outcome = await target.commit({ sourceName: file.name, mediaType, contentHash: hash, document: read.document });
        }
      }
      if (outcome !== "failed") report[outcome]++;
      opts.onProgress?.({ done: i + 1, total: files.length, name: file.name, outcome });
    }
  } finally {
    await target.close();
  }
  return report;
}

/**
 * Parsing problems belong to the file (reported, the batch goes on); storage problems belong to the
 * collection and stop the run, since every following document would fail the same way.
 */
async function readFile(file: UploadedFile, settings: ChunkingSettings): Promise<{ document: AssembledDocument } | { error: string }> {
  try {
    const { parsed } = await parseDocument(file);
    return { document: assembleDocument(parsed, settings) };
  } catch (e) {
    if (e instanceof DocumentParseError) return { error: e.message };
    return { error: `could not be read (${e instanceof Error ? e.message : String(e)})` };
  }
}
