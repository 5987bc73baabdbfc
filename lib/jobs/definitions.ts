import { z } from "zod";
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

/** Registers the benchmark datasets as knowledge bases (the Evaluation page's button); resumable, skipping what is there. */
export const loadBenchmarksJob = defineJob({
  id: "catalog.load-benchmarks",
  payload: z.object({}).strict(),
  maxAttempts: 2,
  handler: () => import("../catalog/benchmark-load-handler").then((m) => m.loadBenchmarks),
});

export const JOB_DEFINITIONS = new Map<string, JobDefinition>(
  [embedCollectionJob, embedCatalogTextsJob, loadBenchmarksJob].map((d) => [d.id, d as unknown as JobDefinition]),
);

/** Human names for the kinds (the knowledge base page, the health overview). */
export const JOB_LABELS: Record<string, string> = {
  [embedCollectionJob.id]: "Embedding for semantic search",
  [embedCatalogTextsJob.id]: "Embedding the catalog for source selection",
  [loadBenchmarksJob.id]: "Loading the benchmark catalog",
};
