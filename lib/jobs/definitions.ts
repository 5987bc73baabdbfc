import { z } from "zod";
import { defineJob } from "./define";

/**
 * Every kind of background job: its id, payload schema and attempts. A leaf: pages, actions and
 * ingestion import it to enqueue; the handlers live in lib/ingest and are attached, lazily imported,
 * by the server's handler map (lib/server/job-handlers.ts).
 */

/** Embeds a document collection's passages and table rows into its vector table; resumable batch by batch. */
export const embedCollectionJob = defineJob({
  id: "documents.embed",
  payload: z.object({ kbId: z.string().min(1) }),
  maxAttempts: 3,
});

/** Embeds the catalog's texts (descriptors, source objects, guide questions) for source selection; one at a time. */
export const embedCatalogTextsJob = defineJob({
  id: "catalog.embed-texts",
  payload: z.object({}),
  maxAttempts: 3,
});

export const CATALOG_TEXTS_JOB_KEY = embedCatalogTextsJob.id;

/** Copies a SQLite document collection into OpenSearch, verifies the copy, then switches the KB to it; resumable batch by batch. */
export const moveToOpenSearchJob = defineJob({
  id: "documents.move-to-opensearch",
  payload: z.object({
    kbId: z.string().min(1),
    /**
     * The target cluster's settings. Checked by the documents backend's own schema when the move is
     * asked for and again when the job starts (lib/ingest/documents/move-to-opensearch.ts), so this
     * leaf needs no engine code.
     */
    opensearch: z.record(z.string(), z.unknown()),
    secretsCiphertext: z.string().nullable(),
  }),
  maxAttempts: 3,
});

/**
 * Adds the files queued for a collection (kept in the database until committed). Many attempts: a
 * cluster that is down for hours is waited for with growing pauses (at most 10 minutes apart).
 */
export const ingestUploadsJob = defineJob({
  id: "documents.ingest",
  payload: z.object({ kbId: z.string().min(1) }),
  maxAttempts: 40,
});

/** Builds a collection's OpenSearch indexes again beside the current ones, fills and checks them, then switches its aliases. */
export const reindexCollectionJob = defineJob({
  id: "documents.reindex",
  payload: z.object({ kbId: z.string().min(1) }),
  maxAttempts: 3,
});

/** Registers the benchmark datasets as knowledge bases (the Evaluation page's button); resumable, skipping what is there. */
export const loadBenchmarksJob = defineJob({
  id: "catalog.load-benchmarks",
  payload: z.object({}).strict(),
  maxAttempts: 2,
});

/** Deletes audit records older than the retention set on Settings (lib/audit/retention.ts); enqueued daily by each server. */
export const auditPurgeJob = defineJob({
  id: "audit.purge",
  payload: z.object({}).strict(),
  maxAttempts: 3,
});

export const AUDIT_PURGE_JOB_KEY = auditPurgeJob.id;

/** Human names for the kinds (the knowledge base page, the health overview). */
export const JOB_LABELS: Record<string, string> = {
  [embedCollectionJob.id]: "Embedding for semantic search",
  [embedCatalogTextsJob.id]: "Embedding the catalog for source selection",
  [moveToOpenSearchJob.id]: "Moving to OpenSearch",
  [ingestUploadsJob.id]: "Adding documents",
  [reindexCollectionJob.id]: "Re-indexing in OpenSearch",
  [loadBenchmarksJob.id]: "Loading the benchmark catalog",
  [auditPurgeJob.id]: "Deleting audit records past their retention",
};
