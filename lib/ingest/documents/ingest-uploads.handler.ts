import { type DocumentsConfig, documentsSecretsSchema } from "../../backends/documents/config";
import { BackendUnavailableError } from "../../backends/errors";
import { kbStorageDir, parseKbConfig } from "../../backends/registry";
import type { BackendContext } from "../../backends/types";
import { refreshKnowledgeBase } from "../refresh";
import { decryptSecrets } from "../../crypto/secrets";
import type { PrismaClient } from "../../db/generated/client";
import { type JobContext, JobFailedError, type JobResult, JobSkippedError } from "../../jobs/define";
import { ingestFiles } from "./ingest-files";
import { fmt } from "./upload-queue";

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
