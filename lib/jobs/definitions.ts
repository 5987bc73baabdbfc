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

export const JOB_DEFINITIONS = new Map<string, JobDefinition>(
  [embedCollectionJob, embedCatalogTextsJob, moveToOpenSearchJob].map((d) => [d.id, d as unknown as JobDefinition]),
);

/** Human names for the kinds (the knowledge base page, the health overview). */
export const JOB_LABELS: Record<string, string> = {
  [embedCollectionJob.id]: "Embedding for semantic search",
  [embedCatalogTextsJob.id]: "Embedding the catalog for source selection",
  [moveToOpenSearchJob.id]: "Moving to OpenSearch",
};
