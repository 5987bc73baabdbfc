import type { PrismaClient } from "../../db/generated/client";
import { AppError } from "../../errors";
import { ingestUploadsJob } from "../../jobs/definitions";
import { enqueueJob, type EnqueueResult, type JobView, latestJobsOfKb } from "../../jobs/queue";
import { type UploadedFile } from "./ingest-files";

/**
 * Documents added to an existing collection are kept in the application database first and ingested
 * by a background job ("documents.ingest"), one file at a time, each removed from the queue only once
 * its collection has committed it. So an OpenSearch cluster that is down (or an instance stopped
 * mid-way) loses nothing: the job fails its attempt, the collection's health says why, and the
 * processor tries again with a growing wait until the cluster answers; any instance may finish it,
 * since the files are in the shared database, not on one instance's disk.
 */

export const fmt = (n: number) => n.toLocaleString("en");

export function ingestJobKey(kbId: string): string {
  return `${ingestUploadsJob.id}:${kbId}`;
}

export interface QueuedUploads {
  /** Files waiting to be ingested. */
  waiting: number;
  /** The collection's latest ingestion job (null: none yet). */
  job: JobView | null;
}

/** Keeps the files and asks for their ingestion (a job already waiting or running takes them too). */
export async function queueUploads(prisma: PrismaClient, kbId: string, files: UploadedFile[]): Promise<EnqueueResult> {
  if (!files.length) throw new AppError("VALIDATION", "Choose at least one document to add.", { files: "Required." });
  const kb = await prisma.knowledgeBase.findUnique({ where: { id: kbId }, select: { kind: true } });
  if (!kb || kb.kind !== "DOCUMENTS") throw new AppError("NOT_FOUND", "That document collection no longer exists.");
  await prisma.pendingUpload.createMany({
    data: files.map((f) => ({ kbId, name: f.name, mediaType: f.mediaType ?? null, bytes: new Uint8Array(f.bytes) })),
  });
  return enqueueJob(
    prisma,
    ingestUploadsJob,
    { kbId },
    {
      activeKey: ingestJobKey(kbId),
      kbId,
      message: `Waiting to add ${files.length === 1 ? "1 document" : `${fmt(files.length)} documents`}.`,
    },
  );
}

export async function queuedUploads(prisma: PrismaClient, kbId: string): Promise<QueuedUploads> {
  const [waiting, jobs] = await Promise.all([prisma.pendingUpload.count({ where: { kbId } }), latestJobsOfKb(prisma, kbId)]);
  return { waiting, job: jobs.find((j) => j.kind === ingestUploadsJob.id) ?? null };
}

/** Tries the waiting documents again now: after the job gave up, or to skip its wait once the cluster is back. */
export async function retryQueuedUploads(prisma: PrismaClient, kbId: string): Promise<QueuedUploads> {
  const q = await queuedUploads(prisma, kbId);
  if (q.waiting === 0) throw new AppError("VALIDATION", "No documents are waiting to be added.");
  if (q.job?.status === "QUEUED")
    await prisma.job.updateMany({ where: { id: q.job.id, status: "QUEUED" }, data: { runAfter: new Date() } });
  else
    await enqueueJob(prisma, ingestUploadsJob, { kbId }, { activeKey: ingestJobKey(kbId), kbId, message: "Waiting to add the documents." });
  return queuedUploads(prisma, kbId);
}
