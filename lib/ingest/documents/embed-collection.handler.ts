import { type JobContext, JobFailedError, type JobResult, JobSkippedError } from "../../jobs/define";
import { resolveModels } from "../../models/runtime";
import { embedMissingVectors, ModelChangedError, openVectorStore } from "../../backends/documents/vector-store";
import { count } from "../../format/count";

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
  const kb = await prisma.knowledgeBase.findUnique({
    where: { id: ctx.payload.kbId },
    select: { id: true, name: true, kind: true, config: true, secretsCiphertext: true },
  });
  if (!kb) throw new JobSkippedError("The knowledge base was deleted.");
  if (kb.kind !== "DOCUMENTS") throw new JobFailedError(`${kb.name} is not a document collection; only collections are embedded.`);

  const models = await resolveModels(prisma);
  if (!models.embedder) {
    if (!models.notes.length)
      throw new JobSkippedError("Models are switched off in Settings; the collection is searched by keywords (BM25) only.");
    // Not installed, or refused at load: another attempt may find it (a hub back online, a file replaced).
    throw new Error(models.notes.join(" "));
  }
  const embedder = models.embedder;
  // The collection's engine (a SQLite file or an OpenSearch cluster) keeps the same vector contract.
  const store = openVectorStore(kb, deps);
  try {
    const startedOver = await store.prepare(embedder.info.id, embedder.info.dimensions ?? 0);
    let state = await store.state();
    const what = `${embedder.info.name} (${embedder.info.precision})`;
    await ctx.progress({
      done: state.embedded,
      total: state.rows,
      message:
        startedOver && state.rows
          ? `Embedding ${count(state.rows, "passage or table row", "passages and table rows")} with ${what}.`
          : `Embedding with ${what}: ${fmt(state.embedded)} of ${fmt(state.rows)} done.`,
    });
    state = await embedMissingVectors(store, embedder, {
      signal: ctx.signal,
      stepTimeoutMs: STEP_TIMEOUT_MS,
      onStep: (s) =>
        ctx.progress({ done: s.embedded, total: s.rows, message: `Embedding with ${what}: ${fmt(s.embedded)} of ${fmt(s.rows)} done.` }),
    });
    return { message: `${count(state.embedded, "passage or table row", "passages and table rows")} embedded with ${what}.` };
  } catch (e) {
    if (e instanceof ModelChangedError) throw new JobSkippedError(e.message);
    throw e;
  } finally {
    await store.close();
  }
}
