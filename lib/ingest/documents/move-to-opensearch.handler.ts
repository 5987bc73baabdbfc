import { createDocumentsBackend } from "../../backends/documents/backend";
import { storedDocuments } from "../../backends/documents/stored-documents";
import { type DocumentsConfig, documentsSecretsSchema, openSearchSettingsSchema } from "../../backends/documents/config";
import { openIndexForRead, readMeta } from "../../backends/documents/index-db";
import { openSearchTarget } from "../../backends/documents/ingest-target";
import type { DocumentToCommit } from "../../backends/documents/store";
import { closeBackend, kbStorageDir, parseKbConfig } from "../../backends/registry";
import type { BackendContext } from "../../backends/types";
import { decryptSecrets } from "../../crypto/secrets";
import type { Prisma } from "../../db/generated/client";
import { type JobContext, JobFailedError, type JobResult, JobSkippedError } from "../../jobs/define";
import { enqueueCollectionEmbedding } from "./embedding-queue";
import { BATCH, fmt, type MovePayload } from "./move-to-opensearch";

/** The payload as the queue keeps it (lib/jobs/definitions.ts): the cluster settings are read by the engine's schema. */
type StoredMovePayload = Omit<MovePayload, "opensearch"> & { opensearch: Record<string, unknown> };

export async function moveCollectionToOpenSearch(ctx: JobContext<StoredMovePayload>): Promise<JobResult> {
  const { prisma, deps } = ctx.services;
  // The queue's schema (a leaf) keeps the cluster settings as they were asked for; the engine's schema reads them.
  const opensearch = openSearchSettingsSchema.safeParse(ctx.payload.opensearch);
  if (!opensearch.success)
    throw new JobFailedError(
      `The job's data is invalid: ${opensearch.error.issues.map((i) => `${["opensearch", ...i.path].join(".")}: ${i.message}`).join("; ")}.`,
    );
  const kb = await prisma.knowledgeBase.findUnique({ where: { id: ctx.payload.kbId } });
  if (!kb) throw new JobSkippedError("The knowledge base was deleted.");
  if (kb.kind !== "DOCUMENTS") throw new JobFailedError(`${kb.name} is not a document collection.`);
  const current = parseKbConfig("DOCUMENTS", kb.config) as DocumentsConfig;
  if (current.engine === "opensearch") throw new JobSkippedError(`${kb.name} is already in OpenSearch.`);

  const bctx: BackendContext = { kbId: kb.id, kbName: kb.name, storageDir: kbStorageDir(deps.dataDir, kb.id) };
  const target: DocumentsConfig = { ...current, engine: "opensearch", opensearch: opensearch.data };
  const secrets = documentsSecretsSchema.parse(
    ctx.payload.secretsCiphertext ? decryptSecrets(ctx.payload.secretsCiphertext, deps.encryptionKey) : {},
  );

  const db = openIndexForRead(bctx);
  try {
    const settings = {
      language: readMeta(db, "language") ?? current.language,
      chunkMaxChars: Number(readMeta(db, "chunk_max_chars") ?? current.chunkMaxChars),
    };
    const total = db.prepare("SELECT count(*) FROM documents").pluck().get() as number;
    const writer = await openSearchTarget(bctx, { ...target, ...settings }, secrets);
    let done = 0;
    try {
      let batch: DocumentToCommit[] = [];
      const flush = async () => {
        await writer.commitMany(batch);
        done += batch.length;
        batch = [];
        await ctx.progress({ done, total, message: `Copying to OpenSearch: ${fmt(done)} of ${fmt(total)} documents.` });
      };
      for (const item of storedDocuments(db)) {
        if (ctx.signal.aborted) throw ctx.signal.reason instanceof Error ? ctx.signal.reason : new Error("stopped");
        if ("failed" in item) {
          await writer.recordFailure(item.failed);
          done++;
          continue;
        }
        batch.push(item.input);
        if (batch.length >= BATCH) await flush();
      }
      if (batch.length) await flush();
    } finally {
      await writer.close();
    }
  } finally {
    db.close();
  }

  // Verified before anything switches: the same counts, and the same descriptor (built from every document, table and term).
  await ctx.progress({ message: "Verifying the copy in OpenSearch." });
  const before = createDocumentsBackend(current, {}, bctx);
  const after = createDocumentsBackend(target, secrets, bctx);
  try {
    const [a, b] = [await before.describe(), await after.describe()];
    if (a.version !== b.version || JSON.stringify(a.stats) !== JSON.stringify(b.stats)) {
      throw new JobFailedError(
        `The copy in OpenSearch does not match the collection (${JSON.stringify(b.stats)} instead of ${JSON.stringify(a.stats)}); the collection stays on this server. Run the move again.`,
      );
    }
  } finally {
    await before.close();
    await after.close();
  }
  await prisma.knowledgeBase.update({
    where: { id: kb.id },
    data: { config: target as unknown as Prisma.InputJsonValue, secretsCiphertext: ctx.payload.secretsCiphertext },
  });
  await closeBackend(kb.id);
  await enqueueCollectionEmbedding(prisma, kb.id);
  const where = opensearch.data.url ? new URL(opensearch.data.url).origin : "the server's SEARCH_URL";
  return {
    message: `${kb.name} now lives in OpenSearch at ${where}; its vectors are being computed again there. The copy on this server was left in place.`,
  };
}
