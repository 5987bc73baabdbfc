import type { JobDefinition } from "../jobs/define";
import {
  embedCatalogTextsJob,
  embedCollectionJob,
  ingestUploadsJob,
  loadBenchmarksJob,
  moveToOpenSearchJob,
  reindexCollectionJob,
} from "../jobs/definitions";

/**
 * The server's handler map: every job kind with its handler, imported when a job of that kind runs
 * (documenso's definition + lazily imported `*.handler.ts`), so starting the processor loads no model
 * or engine code. The definitions are a leaf (lib/jobs); the handlers live in lib/ingest.
 */
export const JOB_HANDLERS = new Map<string, JobDefinition>(
  (
    [
      { ...embedCollectionJob, handler: () => import("../ingest/documents/embed-collection.handler").then((m) => m.embedCollection) },
      { ...embedCatalogTextsJob, handler: () => import("../ingest/catalog-embeddings.handler").then((m) => m.embedCatalogTexts) },
      {
        ...moveToOpenSearchJob,
        handler: () => import("../ingest/documents/move-to-opensearch.handler").then((m) => m.moveCollectionToOpenSearch),
      },
      { ...ingestUploadsJob, handler: () => import("../ingest/documents/ingest-uploads.handler").then((m) => m.ingestQueuedUploads) },
      { ...reindexCollectionJob, handler: () => import("../ingest/documents/reindex.handler").then((m) => m.reindexCollection) },
      { ...loadBenchmarksJob, handler: () => import("../ingest/benchmarks/load.handler").then((m) => m.loadBenchmarks) },
    ] as unknown as JobDefinition[]
  ).map((d) => [d.id, d]),
);
