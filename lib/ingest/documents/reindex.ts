import { type DocumentsConfig, documentsSecretsSchema } from "../../backends/documents/config";
import { connectOpenSearch, type OpenSearchConnection } from "../../backends/documents/opensearch/connection";
import { collectionIndexes, LAYOUT_VERSION, layoutVersions } from "../../backends/documents/opensearch/layout";
import { parseKbConfig } from "../../backends/registry";
import { decryptSecrets } from "../../crypto/secrets";
import type { PrismaClient } from "../../db/generated/client";
import { AppError } from "../../errors";
import { reindexCollectionJob } from "../../jobs/definitions";
import { enqueueJob, type JobView, latestJobsOfKb } from "../../jobs/queue";
import { log } from "../../log";

/**
 * Re-indexing an OpenSearch collection, as a background job: a new pair of indexes is built beside the
 * ones in use, with this version's mapping and analyzer (named after the job, so a resumed attempt
 * finds its own), filled from the stored passages, rows, tables and documents by the cluster's
 * `_reindex` (its task's counts are the job's progress), checked (the same counts, the collection's
 * meta record, this layout), and only then do both aliases move in one request and the old indexes go.
 * Until that switch the collection answers from the indexes it had; a failed check leaves them in place.
 */

export const fmt = (n: number) => n.toLocaleString("en");

export async function enqueueReindex(prisma: PrismaClient, kbId: string) {
  return enqueueJob(
    prisma,
    reindexCollectionJob,
    { kbId },
    { activeKey: `${reindexCollectionJob.id}:${kbId}`, kbId, message: "Waiting to re-index the collection." },
  );
}

export async function latestReindex(prisma: PrismaClient, kbId: string): Promise<JobView | null> {
  return (await latestJobsOfKb(prisma, kbId)).find((j) => j.kind === reindexCollectionJob.id) ?? null;
}

/** The admin's request: only a collection in OpenSearch has indexes to build again. */
export async function requestReindex(prisma: PrismaClient, kbId: string): Promise<JobView | null> {
  const kb = await prisma.knowledgeBase.findUnique({ where: { id: kbId }, select: { id: true, name: true, kind: true, config: true } });
  if (!kb || kb.kind !== "DOCUMENTS") throw new AppError("NOT_FOUND", "That document collection no longer exists.");
  if ((parseKbConfig("DOCUMENTS", kb.config) as DocumentsConfig).engine !== "opensearch") {
    throw new AppError("VALIDATION", `${kb.name} is kept on this server, not in OpenSearch: there is nothing to re-index.`);
  }
  await enqueueReindex(prisma, kb.id);
  return latestReindex(prisma, kb.id);
}

/**
 * After an upgrade that changed the index layout: every collection in OpenSearch whose indexes are of
 * an older layout gets a re-index job (run at server start; a cluster that does not answer is skipped
 * and its collection's health says why). An index of a newer layout is left alone: an older Mosaic
 * must not rebuild what a newer one wrote. Returns how many jobs were asked for.
 */
export async function reindexOutdatedCollections(prisma: PrismaClient, deps: { encryptionKey: Buffer }): Promise<number> {
  const kbs = await prisma.knowledgeBase.findMany({
    where: { kind: "DOCUMENTS" },
    select: { id: true, name: true, config: true, secretsCiphertext: true },
  });
  let asked = 0;
  for (const kb of kbs) {
    const config = parseKbConfig("DOCUMENTS", kb.config) as DocumentsConfig;
    if (config.engine !== "opensearch") continue;
    let conn: OpenSearchConnection | undefined;
    try {
      conn = connectOpenSearch(
        config,
        documentsSecretsSchema.parse(kb.secretsCiphertext ? decryptSecrets(kb.secretsCiphertext, deps.encryptionKey) : {}),
      );
      const versions = await layoutVersions(conn, collectionIndexes(conn.settings, kb.id));
      if (versions.some((v) => v !== null && v < LAYOUT_VERSION)) {
        await enqueueReindex(prisma, kb.id);
        asked++;
      }
    } catch (err) {
      log.warn({ err, kb: kb.name }, "could not read a collection's index layout");
    } finally {
      await conn?.client.close();
    }
  }
  return asked;
}
