import { type DocumentsConfig, type OpenSearchSettings, openSearchSettingsSchema } from "../../backends/documents/config";
import { parseKbConfig } from "../../backends/registry";
import { encryptSecrets } from "../../crypto/secrets";
import type { PrismaClient } from "../../db/generated/client";
import { AppError } from "../../errors";
import { moveToOpenSearchJob } from "../../jobs/definitions";
import { enqueueJob, type EnqueueResult, type JobView, latestJobsOfKb } from "../../jobs/queue";

/**
 * Moving a SQLite collection to OpenSearch, as a background job: every document is copied as it is
 * stored (same ids, passages, offsets, sentences, tables, content hashes), in batches, so a stopped
 * move resumes by skipping what the cluster already holds. The collection keeps answering from SQLite
 * all along; only when the copy is verified (the same counts and the same descriptor, which is built
 * from every document, table and term) does the knowledge base switch to OpenSearch. The SQLite file
 * is left in place; vectors are computed again by the embedding job on the new engine.
 */

export const BATCH = 200;
export const fmt = (n: number) => n.toLocaleString("en");

export interface MovePayload {
  kbId: string;
  opensearch: OpenSearchSettings;
  /** The cluster password, encrypted like every connection secret (a job's payload is stored as it is). */
  secretsCiphertext: string | null;
}

/** Asks for the move (one per collection at a time). */
export async function enqueueMoveToOpenSearch(
  prisma: PrismaClient,
  deps: { encryptionKey: Buffer },
  kbId: string,
  target: { url?: string; username?: string; password?: string; indexPrefix?: string },
): Promise<EnqueueResult> {
  const { password, ...settings } = target;
  const payload: MovePayload = {
    kbId,
    opensearch: openSearchSettingsSchema.parse(Object.fromEntries(Object.entries(settings).filter(([, v]) => v !== undefined))),
    secretsCiphertext: password ? encryptSecrets({ password }, deps.encryptionKey) : null,
  };
  return enqueueJob(prisma, moveToOpenSearchJob, payload, {
    activeKey: `${moveToOpenSearchJob.id}:${kbId}`,
    kbId,
    message: "Waiting to move the collection to OpenSearch.",
  });
}

/** The latest move of a collection (null: never asked). */
export async function latestMove(prisma: PrismaClient, kbId: string): Promise<JobView | null> {
  return (await latestJobsOfKb(prisma, kbId)).find((j) => j.kind === moveToOpenSearchJob.id) ?? null;
}

/** The admin's request: only a collection kept on this server can move; the move itself is the job. */
export async function requestMoveToOpenSearch(
  prisma: PrismaClient,
  deps: { encryptionKey: Buffer },
  input: { id: string; searchUrl?: string; user?: string; password?: string },
): Promise<JobView | null> {
  const kb = await prisma.knowledgeBase.findUnique({ where: { id: input.id }, select: { id: true, name: true, kind: true, config: true } });
  if (!kb || kb.kind !== "DOCUMENTS") throw new AppError("NOT_FOUND", "That document collection no longer exists.");
  if ((parseKbConfig("DOCUMENTS", kb.config) as DocumentsConfig).engine === "opensearch")
    throw new AppError("VALIDATION", `${kb.name} is already in OpenSearch.`);
  await enqueueMoveToOpenSearch(prisma, deps, kb.id, { url: input.searchUrl, username: input.user, password: input.password });
  return latestMove(prisma, kb.id);
}
