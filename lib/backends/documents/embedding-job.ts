import { type JobContext, JobFailedError, type JobResult, JobSkippedError } from "../../jobs/define";
import { resolveModels } from "../../models/runtime";
import { kbStorageDir } from "../registry";
import { readMeta } from "./index-db";
import { openCollectionForIngest } from "./ingest";
import { prepareVectorTable, rowsWithoutVectors, storeVectors, vectorState } from "./vectors";
import { count } from "../../format/count";

/** Rows read and embedded per step; each step is committed on its own, so a crash loses at most one. */
export const EMBED_STEP = 128;
/** An ingestion step may wait for the model far longer than a question may. */
const STEP_TIMEOUT_MS = 5 * 60_000;

const fmt = (n: number) => n.toLocaleString("en");

/**
 * The "documents.embed" job: every search row (passage or table row) of a collection gets a vector of
 * the current embedder. It works from what is missing, not from a counter, and commits each step's
 * vectors in one transaction: stopped at any point (a crash, a kill, a shutdown), the next run goes on
 * from there, and a row is never stored twice. A new embedder (or precision) starts the table over.
 */
export async function embedCollection(ctx: JobContext<{ kbId: string }>): Promise<JobResult> {
  const { prisma, deps } = ctx.services;
  const kb = await prisma.knowledgeBase.findUnique({ where: { id: ctx.payload.kbId }, select: { id: true, name: true, kind: true } });
  if (!kb) throw new JobSkippedError("The knowledge base was deleted.");
  if (kb.kind !== "DOCUMENTS") throw new JobFailedError(`${kb.name} is not a document collection; only collections are embedded.`);

  const models = await resolveModels(prisma);
  if (!models.embedder) {
    if (!models.notes.length) throw new JobSkippedError("Models are switched off in Settings; the collection is searched by keywords (BM25) only.");
    // Not installed, or refused at load: another attempt may find it (a hub back online, a file replaced).
    throw new Error(models.notes.join(" "));
  }
  const embedder = models.embedder;
  const { db } = openCollectionForIngest({ kbId: kb.id, kbName: kb.name, storageDir: kbStorageDir(deps.dataDir, kb.id) });
  try {
    const startedOver = prepareVectorTable(db, embedder.info.id, embedder.info.dimensions ?? 0);
    let state = vectorState(db);
    const what = `${embedder.info.name} (${embedder.info.precision})`;
    await ctx.progress({
      done: state.embedded,
      total: state.rows,
      message: startedOver && state.rows ? `Embedding ${count(state.rows, "passage or table row", "passages and table rows")} with ${what}.` : `Embedding with ${what}: ${fmt(state.embedded)} of ${fmt(state.rows)} done.`,
    });
    for (;;) {
      if (ctx.signal.aborted) throw ctx.signal.reason instanceof Error ? ctx.signal.reason : new Error("stopped");
      const rows = rowsWithoutVectors(db, EMBED_STEP);
      if (!rows.length) break;
      const vectors = await embedder.embed(
        rows.map((r) => r.text),
        "passage",
        { signal: ctx.signal, timeoutMs: STEP_TIMEOUT_MS },
      );
      const n = storeVectors(db, embedder.info.id, rows.map((r, i) => ({ rowid: r.rowid, vector: vectors[i] })));
      // Nothing stored and the table belongs to another model now: someone switched models meanwhile, their job goes on.
      if (n === 0 && (readMeta(db, "embedding_model") ?? "") !== embedder.info.id) throw new JobSkippedError("The embedding model changed while this job ran; a newer job embeds the collection.");
      state = vectorState(db);
      await ctx.progress({ done: state.embedded, total: state.rows, message: `Embedding with ${what}: ${fmt(state.embedded)} of ${fmt(state.rows)} done.` });
    }
    return { message: `${count(state.embedded, "passage or table row", "passages and table rows")} embedded with ${what}.` };
  } finally {
    db.close();
  }
}
