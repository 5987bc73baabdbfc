import type { Prisma, PrismaClient } from "../../db/generated/client";
import { decryptSecrets, encryptSecrets } from "../../crypto/secrets";
import { type JobContext, JobFailedError, type JobResult, JobSkippedError } from "../../jobs/define";
import { moveToOpenSearchJob } from "../../jobs/definitions";
import { type EnqueueResult, enqueueJob, type JobView, latestJobsOfKb } from "../../jobs/queue";
import { AppError } from "../../errors";
import { closeBackend, kbStorageDir, parseKbConfig } from "../registry";
import type { BackendContext, Scalar } from "../types";
import type { AssembledDocument } from "./assemble";
import { createDocumentsBackend } from "./backend";
import { type DocumentsConfig, documentsSecretsSchema, type OpenSearchSettings, openSearchSettingsSchema } from "./config";
import { enqueueCollectionEmbedding } from "./embedding-queue";
import { type IndexDb, openIndexForRead, readMeta } from "./index-db";
import { openSearchTarget } from "./ingest";
import type { DocumentToCommit } from "./store";

/**
 * Moving a SQLite collection to OpenSearch, as a background job: every document is copied as it is
 * stored (same ids, passages, offsets, sentences, tables, content hashes), in batches, so a stopped
 * move resumes by skipping what the cluster already holds. The collection keeps answering from SQLite
 * all along; only when the copy is verified (the same counts and the same descriptor, which is built
 * from every document, table and term) does the knowledge base switch to OpenSearch. The SQLite file
 * is left in place; vectors are computed again by the embedding job on the new engine.
 */

const BATCH = 200;
const fmt = (n: number) => n.toLocaleString("en");

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

/** The stored documents of a SQLite collection, rebuilt as the writer takes them, in ingestion order (the move and the workspace export read them). */
export function* storedDocuments(
  db: IndexDb,
): Generator<{ input: DocumentToCommit } | { failed: { sourceName: string; mediaType: string; contentHash: string; error: string } }> {
  const chunksOf = db.prepare(
    "SELECT chunk_index, section, text, start_offset, end_offset, first_sentence_index, sentences, location FROM chunks WHERE document_id = ? ORDER BY chunk_index",
  );
  const tablesOf = db.prepare(
    "SELECT table_index, caption, section, position, header, rows, metadata FROM doc_tables WHERE document_id = ? ORDER BY table_index",
  );
  const docs = db
    .prepare("SELECT id, title, source_name, media_type, content_hash, status, error, text, metadata FROM documents ORDER BY rowid")
    .all() as {
    id: string;
    title: string;
    source_name: string;
    media_type: string;
    content_hash: string;
    status: string;
    error: string | null;
    text: string;
    metadata: string;
  }[];
  for (const d of docs) {
    if (d.status !== "ready") {
      yield {
        failed: { sourceName: d.source_name, mediaType: d.media_type, contentHash: d.content_hash, error: d.error ?? "could not be read" },
      };
      continue;
    }
    const document: AssembledDocument = {
      title: d.title,
      text: d.text,
      metadata: JSON.parse(d.metadata) as Record<string, Scalar | Scalar[]>,
      chunks: (
        chunksOf.all(d.id) as {
          chunk_index: number;
          section: string | null;
          text: string;
          start_offset: number;
          end_offset: number;
          first_sentence_index: number;
          sentences: string;
          location: string;
        }[]
      ).map((c) => ({
        chunkIndex: c.chunk_index,
        section: c.section,
        text: c.text,
        start: c.start_offset,
        end: c.end_offset,
        firstSentenceIndex: c.first_sentence_index,
        sentences: JSON.parse(c.sentences) as string[],
        location: JSON.parse(c.location) as Record<string, Scalar>,
      })),
      tables: (
        tablesOf.all(d.id) as {
          table_index: number;
          caption: string;
          section: string | null;
          position: number;
          header: string;
          rows: string;
          metadata: string;
        }[]
      ).map((t) => ({
        tableIndex: t.table_index,
        caption: t.caption,
        section: t.section,
        position: t.position,
        header: JSON.parse(t.header) as string[],
        rows: JSON.parse(t.rows) as Scalar[][],
        metadata: JSON.parse(t.metadata) as Record<string, Scalar | Scalar[]>,
      })),
    };
    yield { input: { preferredId: d.id, sourceName: d.source_name, mediaType: d.media_type, contentHash: d.content_hash, document } };
  }
}

export async function moveCollectionToOpenSearch(ctx: JobContext<MovePayload>): Promise<JobResult> {
  const { prisma, deps } = ctx.services;
  const kb = await prisma.knowledgeBase.findUnique({ where: { id: ctx.payload.kbId } });
  if (!kb) throw new JobSkippedError("The knowledge base was deleted.");
  if (kb.kind !== "DOCUMENTS") throw new JobFailedError(`${kb.name} is not a document collection.`);
  const current = parseKbConfig("DOCUMENTS", kb.config) as DocumentsConfig;
  if (current.engine === "opensearch") throw new JobSkippedError(`${kb.name} is already in OpenSearch.`);

  const bctx: BackendContext = { kbId: kb.id, kbName: kb.name, storageDir: kbStorageDir(deps.dataDir, kb.id) };
  const target: DocumentsConfig = { ...current, engine: "opensearch", opensearch: ctx.payload.opensearch };
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
  const where = ctx.payload.opensearch.url ? new URL(ctx.payload.opensearch.url).origin : "the server's SEARCH_URL";
  return {
    message: `${kb.name} now lives in OpenSearch at ${where}; its vectors are being computed again there. The copy on this server was left in place.`,
  };
}
