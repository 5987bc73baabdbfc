import { enqueueCatalogEmbedding, reconcileCollectionEmbeddings } from "../ingest/documents/embedding-queue";
import { reindexOutdatedCollections } from "../ingest/documents/reindex";
import { closeAllBackends } from "../backends/registry";
import { type CatalogDeps, catalogDeps } from "../deps";
import { initDatabase } from "../db/client";
import type { PrismaClient } from "../db/generated/client";
import { seedDemoCatalogOnce } from "../demo/seed-catalog";
import { DatabaseLockedError } from "../db/pglite-lock";
import { withStartupLock } from "../db/startup-lock";
import { EnvError, loadEnv } from "../env";
import { getSecrets } from "../local-secrets";
import { jobLease, startJobProcessor, stopJobProcessor } from "./job-processor";
import { log } from "../log";
import { resolveModels, shutdownModels } from "../models/runtime";
import { exitAfter } from "./exit-after";
import { flushAudit } from "../audit/audit";
import { AUDIT_PURGE_JOB_KEY, auditPurgeJob } from "../jobs/definitions";
import { enqueueJob } from "../jobs/queue";

/**
 * Server start: a bad environment or a database held by another process stops the server with a
 * plain message (no stack trace); a healthy start applies pending migrations and seeds a new workspace.
 */
export async function startServer(): Promise<void> {
  try {
    const env = loadEnv();
    // Refuses a shared database without shared keys (see resolveSecrets) before anything is written.
    getSecrets(env);
    if (env.DATABASE_URL && !env.STORAGE_DIR) {
      log.info(
        "STORAGE_DIR is not set: uploaded SQLite databases, RDF files and document collections kept on this server are stored under DATA_DIR on this machine. With several instances, point STORAGE_DIR at a directory every instance mounts (collections on OpenSearch need none).",
      );
    }
    const { handle } = await initDatabase();
    if (env.SEED_DEMO) {
      // The demo catalog is a convenience: a failure is logged and retried at the next start, never fatal.
      try {
        // One instance seeds; another starting at the same time waits and finds the marker.
        const demo = await withStartupLock(env.DATABASE_URL, () => seedDemoCatalogOnce(handle.prisma, catalogDeps()));
        if (demo.seeded) log.info({ kbs: demo.kbs }, "demo catalog seeded");
      } catch (e) {
        log.warn({ err: e }, "could not seed the demo catalog; it will be retried at the next start");
      }
    }
    // Background jobs (collection embedding...) run in the server process; every instance on one PostgreSQL claims from the same table.
    const deps = catalogDeps();
    await startJobProcessor({
      services: { prisma: handle.prisma, deps },
      exclusive: handle.engine === "pglite",
      ...jobLease(env.JOB_LEASE_MS),
    });
    void reconcileEmbeddingsAtStart(handle.prisma, deps);
    // The audit log's retention: a purge job now and every day (one job at a time across instances).
    const purgeTimer = scheduleAuditPurge(handle.prisma);
    // Collections in OpenSearch whose indexes an older version built are re-indexed in the background.
    void reindexOutdatedCollections(handle.prisma, deps)
      .then((asked) => asked && log.info({ collections: asked }, "collections queued for re-indexing"))
      .catch((err) => log.warn({ err }, "could not check the collections' index layouts"));
    const shutdown = async (signal: string) => {
      log.info({ signal }, "shutting down");
      // Next.js's own handler for the same signal exits once its requests have finished; that exit waits for this.
      await exitAfter(
        (async () => {
          clearInterval(purgeTimer);
          await flushAudit();
          await stopJobProcessor();
          await shutdownModels().catch((e) => log.error({ err: e }, "stopping the model workers failed"));
          await closeAllBackends();
          await handle.close().catch((e) => log.error({ err: e }, "closing the database failed"));
        })(),
      );
    };
    process.once("SIGINT", () => void shutdown("SIGINT"));
    process.once("SIGTERM", () => void shutdown("SIGTERM"));
  } catch (e) {
    if (e instanceof EnvError || e instanceof DatabaseLockedError) {
      console.error(`\nMosaic cannot start.\n${e.message}\n`);
    } else {
      console.error(`\nMosaic cannot start: ${(e as Error).message}\n`);
      log.error({ err: e }, "startup failed");
    }
    process.exit(1);
  }
}

const DAY_MS = 24 * 60 * 60_000;

function scheduleAuditPurge(prisma: PrismaClient): NodeJS.Timeout {
  const enqueue = () =>
    void enqueueJob(prisma, auditPurgeJob, {}, { activeKey: AUDIT_PURGE_JOB_KEY, message: "Waiting to delete old audit records." }).catch(
      (err) => log.warn({ err }, "could not queue the audit log purge"),
    );
  enqueue();
  const timer = setInterval(enqueue, DAY_MS);
  timer.unref();
  return timer;
}

/**
 * Collections embedded with another model (the settings changed while the app was down) or never
 * embedded get a job. Loads the embedder, so it runs after the server is up, never blocking it.
 */
async function reconcileEmbeddingsAtStart(prisma: PrismaClient, deps: CatalogDeps): Promise<void> {
  try {
    const models = await resolveModels(prisma);
    for (const note of models.notes) log.warn(note);
    if (!models.embedder) return;
    const asked = await reconcileCollectionEmbeddings(prisma, deps, models.embedder.info.id);
    if (asked) log.info({ collections: asked }, "collections queued for embedding");
    // Cheap when everything is embedded: the job embeds only texts the table does not hold for this model.
    await enqueueCatalogEmbedding(prisma);
  } catch (err) {
    log.warn({ err }, "could not check the collections' embeddings");
  }
}
