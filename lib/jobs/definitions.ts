import { z } from "zod";
import { openSearchSettingsSchema } from "../backends/documents/config";
import { type JobDefinition, defineJob } from "./define";

/**
 * Every kind of background job, by id. Handlers are imported when a job of their kind runs, so the
 * queue (imported by pages and actions) never loads model or engine code.
 */

/** Embeds a document collection's passages and table rows into its vector table; resumable batch by batch. */
export const embedCollectionJob = defineJob({
  id: "documents.embed",
  payload: z.object({ kbId: z.string().min(1) }),
  maxAttempts: 3,
  handler: () => import("../backends/documents/embedding-job").then((m) => m.embedCollection),
});

/** Embeds the catalog's texts (descriptors, source objects, guide questions) for source selection; one at a time. */
export const embedCatalogTextsJob = defineJob({
  id: "catalog.embed-texts",
  payload: z.object({}),
  maxAttempts: 3,
  handler: () => import("../pipeline/stages/select/catalog-texts").then((m) => m.embedCatalogTexts),
});

export const CATALOG_TEXTS_JOB_KEY = embedCatalogTextsJob.id;

/** Copies a SQLite document collection into OpenSearch, verifies the copy, then switches the KB to it; resumable batch by batch. */
export const moveToOpenSearchJob = defineJob({
  id: "documents.move-to-opensearch",
  payload: z.object({
    kbId: z.string().min(1),
    opensearch: openSearchSettingsSchema,
    secretsCiphertext: z.string().nullable(),
  }),
  maxAttempts: 3,
  handler: () => import("../backends/documents/move-to-opensearch").then((m) => m.moveCollectionToOpenSearch),
});

/**
 * Adds the files queued for a collection (kept in the database until committed). Many attempts: a
 * cluster that is down for hours is waited for with growing pauses (at most 10 minutes apart).
 */
export const ingestUploadsJob = defineJob({
  id: "documents.ingest",
  payload: z.object({ kbId: z.string().min(1) }),
  maxAttempts: 40,
  handler: () => import("../backends/documents/upload-queue").then((m) => m.ingestQueuedUploads),
});

/** Builds a collection's OpenSearch indexes again beside the current ones, fills and checks them, then switches its aliases. */
export const reindexCollectionJob = defineJob({
  id: "documents.reindex",
  payload: z.object({ kbId: z.string().min(1) }),
  maxAttempts: 3,
  handler: () => import("../backends/documents/opensearch/reindex").then((m) => m.reindexCollection),
});

/** Registers the benchmark datasets as knowledge bases (the Evaluation page's button); resumable, skipping what is there. */
export const loadBenchmarksJob = defineJob({
  id: "catalog.load-benchmarks",
  payload: z.object({}).strict(),
  maxAttempts: 2,
  handler: () => import("../catalog/benchmark-load-handler").then((m) => m.loadBenchmarks),
});

export const JOB_DEFINITIONS = new Map<string, JobDefinition>(
  [embedCollectionJob, embedCatalogTextsJob, moveToOpenSearchJob, ingestUploadsJob, reindexCollectionJob, loadBenchmarksJob].map((d) => [
    d.id,
    d as unknown as JobDefinition,
  ]),
);

/** Human names for the kinds (the knowledge base page, the health overview). */
export const JOB_LABELS: Record<string, string> = {
  [embedCollectionJob.id]: "Embedding for semantic search",
  [embedCatalogTextsJob.id]: "Embedding the catalog for source selection",
  [moveToOpenSearchJob.id]: "Moving to OpenSearch",
  [ingestUploadsJob.id]: "Adding documents",
  [reindexCollectionJob.id]: "Re-indexing in OpenSearch",
  [loadBenchmarksJob.id]: "Loading the benchmark catalog",
};
