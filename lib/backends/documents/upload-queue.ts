import { refreshKnowledgeBase } from "../../catalog/refresh";
import { decryptSecrets } from "../../crypto/secrets";
import type { PrismaClient } from "../../db/generated/client";
import { type JobContext, JobFailedError, type JobResult, JobSkippedError } from "../../jobs/define";
import { ingestUploadsJob } from "../../jobs/definitions";
import { type EnqueueResult, enqueueJob, type JobView, latestJobsOfKb } from "../../jobs/queue";
import { AppError } from "../../errors";
import { BackendUnavailableError } from "../errors";
import { kbStorageDir, parseKbConfig } from "../registry";
import type { BackendContext } from "../types";
import { type DocumentsConfig, documentsSecretsSchema } from "./config";
import { ingestFiles, type UploadedFile } from "./ingest";

/**
 * Documents added to an existing collection are kept in the application database first and ingested
 * by a background job ("documents.ingest"), one file at a time, each removed from the queue only once
 * its collection has committed it. So an OpenSearch cluster that is down (or an instance stopped
 * mid-way) loses nothing: the job fails its attempt, the collection's health says why, and the
 * processor tries again with a growing wait until the cluster answers; any instance may finish it,
 * since the files are in the shared database, not on one instance's disk.
 */

const fmt = (n: number) => n.toLocaleString("en");

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

/** The "documents.ingest" job: the collection's queued files, oldest first. */
export async function ingestQueuedUploads(ctx: JobContext<{ kbId: string }>): Promise<JobResult> {
  const { prisma, deps } = ctx.services;
  const kb = await prisma.knowledgeBase.findUnique({
    where: { id: ctx.payload.kbId },
    select: { id: true, name: true, kind: true, config: true, secretsCiphertext: true },
  });
  if (!kb) throw new JobSkippedError("The knowledge base was deleted.");
  if (kb.kind !== "DOCUMENTS") throw new JobFailedError(`${kb.name} is not a document collection.`);
  const config = parseKbConfig("DOCUMENTS", kb.config) as DocumentsConfig;
  const secrets = documentsSecretsSchema.parse(kb.secretsCiphertext ? decryptSecrets(kb.secretsCiphertext, deps.encryptionKey) : {});
  const bctx: BackendContext = { kbId: kb.id, kbName: kb.name, storageDir: kbStorageDir(deps.dataDir, kb.id) };

  const ids = await prisma.pendingUpload.findMany({ where: { kbId: kb.id }, orderBy: { createdAt: "asc" }, select: { id: true } });
  const report = { added: 0, replaced: 0, skipped: 0, failed: [] as string[] };
  let done = 0;
  for (const { id } of ids) {
    if (ctx.signal.aborted) throw ctx.signal.reason instanceof Error ? ctx.signal.reason : new Error("stopped");
    const upload = await prisma.pendingUpload.findUnique({ where: { id } });
    if (!upload) continue; // taken by an earlier run of this job
    await ctx.progress({ done, total: ids.length, message: `Adding ${upload.name} (${fmt(done + 1)} of ${fmt(ids.length)}).` });
    try {
      const r = await ingestFiles(
        bctx,
        [{ name: upload.name, bytes: Buffer.from(upload.bytes), mediaType: upload.mediaType ?? undefined }],
        { config, secrets },
      );
      report.added += r.added;
      report.replaced += r.replaced;
      report.skipped += r.skipped;
      report.failed.push(...r.failed.map((f) => `${f.name}: ${f.error}`));
    } catch (e) {
      if (e instanceof BackendUnavailableError) await reportUnavailable(prisma, kb.id, e.message);
      // The file stays queued; the processor tries again after a growing wait.
      throw e;
    }
    // Committed (or recorded as unreadable): only now does it leave the queue.
    await prisma.pendingUpload.delete({ where: { id } });
    done++;
  }
  await ctx.progress({ done, total: ids.length, message: "Describing the collection again." });
  await refreshKnowledgeBase(prisma, deps, kb.id);
  const parts = [`${fmt(report.added)} added`, `${fmt(report.replaced)} replaced`, `${fmt(report.skipped)} unchanged`];
  return { message: `${parts.join(", ")}${report.failed.length ? `; not readable: ${report.failed.join("; ")}` : ""}.`.slice(0, 500) };
}

/** The collection's health says why its documents are waiting (the next check or ingestion clears it). */
async function reportUnavailable(prisma: PrismaClient, kbId: string, cause: string): Promise<void> {
  const waiting = await prisma.pendingUpload.count({ where: { kbId } });
  await prisma.knowledgeBase.update({
    where: { id: kbId },
    data: {
      status: "UNREACHABLE",
      lastCheckAt: new Date(),
      lastCheckMessage: `${cause} ${waiting === 1 ? "1 document waits" : `${fmt(waiting)} documents wait`} to be added; they are kept and added when it answers again.`,
    },
  });
}
