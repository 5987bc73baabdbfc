import type { BackendContext } from "../../backends/types";
import { assembleDocument } from "../documents/assemble";
import type { IngestOptions, IngestOutcome, IngestReport } from "../documents/ingest-files";
import { openCollectionForIngest, openSearchTarget } from "../../backends/documents/ingest-target";
import type { ParsedDocument } from "../documents/parsers/index";
import { CollectionWriter, type DocumentToCommit } from "../../backends/documents/store";

/** One record of a benchmark dataset, read lazily: skipped records are never parsed. */
export interface DatasetRecord {
  id: string;
  sourceName: string;
  mediaType: string;
  contentHash: string;
  read: () => ParsedDocument;
}

export interface DatasetLoadOptions extends IngestOptions {
  /** Only the first `limit` records (tests, demos). */
  limit?: number;
  /** Records per transaction: large enough to amortize commits, small enough that a crash loses little. */
  batchSize?: number;
}

/**
 * Commits dataset records in batches, one transaction per batch. A re-run skips every record whose
 * content is already committed, so an interrupted load continues where it stopped. Between batches
 * it yields to the event loop, so a server loading a benchmark keeps answering requests.
 */
export async function commitDatasetRecords(ctx: BackendContext, records: DatasetRecord[], opts: DatasetLoadOptions): Promise<IngestReport> {
  if (opts.config?.engine === "opensearch") return commitToOpenSearch(ctx, records, opts);
  const { db, settings } = openCollectionForIngest(ctx, opts.config);
  const report: IngestReport = { added: 0, replaced: 0, skipped: 0, failed: [] };
  const batchSize = Math.max(1, opts.batchSize ?? 500);
  try {
    const writer = new CollectionWriter(db);
    for (let from = 0; from < records.length; from += batchSize) {
      const batch = records.slice(from, from + batchSize);
      const outcomes = db
        .transaction(() =>
          batch.map((r) => {
            if (writer.readyWithHash(r.contentHash)) return "skipped" as const;
            let parsed: ParsedDocument;
            try {
              parsed = r.read();
            } catch (e) {
              const error = e instanceof Error ? e.message : String(e);
              writer.recordFailure({ sourceName: r.sourceName, mediaType: r.mediaType, contentHash: r.contentHash, error });
              report.failed.push({ name: r.sourceName, error });
              return "failed" as const;
            }
            const document = assembleDocument(parsed, settings);
            return writer.commit({
              preferredId: r.id,
              sourceName: r.sourceName,
              mediaType: r.mediaType,
              contentHash: r.contentHash,
              document,
            }).outcome;
          }),
        )
        .immediate();
      outcomes.forEach((outcome, k) => {
        if (outcome !== "failed") report[outcome]++;
        opts.onProgress?.({ done: from + k + 1, total: records.length, name: batch[k].sourceName, outcome });
      });
      await new Promise((resolve) => setImmediate(resolve));
    }
  } finally {
    db.close();
  }
  return report;
}

/**
 * The same load into an OpenSearch collection, a batch per few round trips (opensearch/store.ts):
 * each record becomes visible once all its parts are stored, so an interrupted load also resumes by
 * skipping what is there.
 */
async function commitToOpenSearch(ctx: BackendContext, records: DatasetRecord[], opts: DatasetLoadOptions): Promise<IngestReport> {
  const target = await openSearchTarget(ctx, opts.config, opts.secrets ?? {});
  const report: IngestReport = { added: 0, replaced: 0, skipped: 0, failed: [] };
  const batchSize = Math.max(1, opts.batchSize ?? 200);
  try {
    for (let from = 0; from < records.length; from += batchSize) {
      const batch = records.slice(from, from + batchSize);
      const outcomes: IngestOutcome[] = [];
      const toCommit: { k: number; input: DocumentToCommit }[] = [];
      for (const [k, r] of batch.entries()) {
        try {
          toCommit.push({
            k,
            input: {
              preferredId: r.id,
              sourceName: r.sourceName,
              mediaType: r.mediaType,
              contentHash: r.contentHash,
              document: assembleDocument(r.read(), target.settings),
            },
          });
        } catch (e) {
          const error = e instanceof Error ? e.message : String(e);
          await target.recordFailure({ sourceName: r.sourceName, mediaType: r.mediaType, contentHash: r.contentHash, error });
          report.failed.push({ name: r.sourceName, error });
          outcomes[k] = "failed";
        }
      }
      // Already stored records come back "skipped" (the writer looks their hashes up first).
      (await target.commitMany(toCommit.map((c) => c.input))).forEach((outcome, i) => (outcomes[toCommit[i]!.k] = outcome));
      outcomes.forEach((outcome, k) => {
        if (outcome !== "failed") report[outcome]++;
        opts.onProgress?.({ done: from + k + 1, total: records.length, name: batch[k]!.sourceName, outcome });
      });
    }
  } finally {
    await target.close();
  }
  return report;
}
