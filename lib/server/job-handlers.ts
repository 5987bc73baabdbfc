import type { z } from "zod";
import type { JobDefinition, JobHandler } from "../jobs/define";
import * as jobs from "../jobs/definitions";

/**
 * The server's handler map: every job kind with its handler, imported when a job of that kind runs
 * (documenso's definition + lazily imported `*.handler.ts`), so starting the processor loads no model
 * or engine code. The definitions are a leaf (lib/jobs, imported to enqueue); the handlers live in
 * lib/ingest. The runnable definitions keep the leaf's names.
 */

function withHandler<S extends z.ZodType>(definition: JobDefinition<S>, handler: () => Promise<JobHandler<z.infer<S>>>) {
  return { ...definition, handler };
}

export const embedCollectionJob = withHandler(jobs.embedCollectionJob, () =>
  import("../ingest/documents/embed-collection.handler").then((m) => m.embedCollection),
);
export const embedCatalogTextsJob = withHandler(jobs.embedCatalogTextsJob, () =>
  import("../ingest/catalog-embeddings.handler").then((m) => m.embedCatalogTexts),
);
export const moveToOpenSearchJob = withHandler(jobs.moveToOpenSearchJob, () =>
  import("../ingest/documents/move-to-opensearch.handler").then((m) => m.moveCollectionToOpenSearch),
);
export const ingestUploadsJob = withHandler(jobs.ingestUploadsJob, () =>
  import("../ingest/documents/ingest-uploads.handler").then((m) => m.ingestQueuedUploads),
);
export const reindexCollectionJob = withHandler(jobs.reindexCollectionJob, () =>
  import("../ingest/documents/reindex.handler").then((m) => m.reindexCollection),
);
export const loadBenchmarksJob = withHandler(jobs.loadBenchmarksJob, () =>
  import("../ingest/benchmarks/load.handler").then((m) => m.loadBenchmarks),
);

export const auditPurgeJob = withHandler(jobs.auditPurgeJob, async () => async ({ services }) => {
  const { purgeAuditEvents } = await import("../audit/retention");
  const { deleted, days } = await purgeAuditEvents(services.prisma);
  return { message: `Deleted ${deleted} audit records older than ${days} days.` };
});

export const JOB_HANDLERS = new Map<string, JobDefinition>(
  [
    embedCollectionJob,
    embedCatalogTextsJob,
    moveToOpenSearchJob,
    ingestUploadsJob,
    reindexCollectionJob,
    loadBenchmarksJob,
    auditPurgeJob,
  ].map((d) => [d.id, d as unknown as JobDefinition]),
);
