import { AppError } from "../../errors";
import type { BackendContext } from "../../backends/types";
import type { AssembledDocument, ChunkingSettings } from "../../backends/documents/assembled";
import { contentHash, openSearchTarget, sqliteTarget } from "../../backends/documents/ingest-target";
import { assembleDocument } from "./assemble";
import type { DocumentsConfig, DocumentsSecrets } from "../../backends/documents/config";
import { MEDIA_TYPES, UnreadableUploadError, detectFormat, parseDocument } from "./parsers/index";
import type { CommitOutcome } from "../../backends/documents/store";

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
 * collection and stop the run, since every following document would fail the same way. Files are read
 * in the document reader's process (parsers/parse-process.ts), never on this thread.
 */
async function readFile(file: UploadedFile, settings: ChunkingSettings): Promise<{ document: AssembledDocument } | { error: string }> {
  try {
    const { parsed } = await parseDocument(file);
    return { document: assembleDocument(parsed, settings) };
  } catch (e) {
    if (e instanceof UnreadableUploadError) return { error: e.reason };
    // The reader itself is unavailable: no file's fault, so the run stops and is tried again later.
    if (AppError.is(e) && e.code === "UNAVAILABLE") throw e;
    return { error: `could not be read (${e instanceof Error ? e.message : String(e)})` };
  }
}
