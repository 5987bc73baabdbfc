import { type JobContext, type JobResult, JobSkippedError } from "../jobs/define";
import { resolveModels } from "../models/runtime";
import { textEmbeddings } from "../models/text-embeddings";
import { loadCatalogSnapshot } from "../catalog/snapshot";
import { columnSemanticText, kbSemanticText, objectSemanticText, tableColumns } from "../catalog/semantic-texts";

/** Texts embedded per step (each step stored before the next). */
const STEP = 256;

/** The column names an SQL table's source object records (sql/describe.ts keeps them in its metadata). */
/**
 * Every text source selection, guide retrieval and schema linking compare a question with. SQL tables'
 * columns are here (query formulation's column-level linking, formulate/sql/column-meaning.ts); a
 * graph's are embedded with the first question that links against them.
 */
export async function catalogTexts(prisma: JobContext<unknown>["services"]["prisma"]): Promise<string[]> {
  const kbs = await prisma.knowledgeBase.findMany({ select: { id: true } });
  const catalog = await loadCatalogSnapshot(
    prisma,
    kbs.map((k) => k.id),
  );
  const guides = await prisma.extractionGuide.findMany({ select: { question: true } });
  const tables = await prisma.sourceObject.findMany({
    where: { contentType: "TABLE", kb: { kind: "SQL" } },
    select: { key: true, metadata: true },
  });
  const columns = tables.flatMap((t) => tableColumns(t.metadata).map((c) => columnSemanticText(t.key, c)));
  return [
    ...new Set([
      ...catalog.map(kbSemanticText),
      ...catalog.flatMap((e) => e.sourceObjects.map(objectSemanticText)),
      ...guides.map((g) => g.question),
      ...columns,
    ]),
  ];
}

/**
 * The "catalog.embed-texts" job: embeds the catalog's texts that the TextEmbedding table does not hold
 * yet for the current embedder, so no question pays for a new source's descriptors. Runs after a KB is
 * registered or re-described and when the embedder changes; what is stored stays (resumable).
 */
export async function embedCatalogTexts(ctx: JobContext<Record<string, never>>): Promise<JobResult> {
  const { prisma } = ctx.services;
  const models = await resolveModels(prisma);
  if (!models.embedder) {
    if (!models.notes.length) throw new JobSkippedError("Models are switched off in Settings; sources are selected by keywords only.");
    throw new Error(models.notes.join(" "));
  }
  const texts = textEmbeddings(prisma, models.embedder);
  const all = await catalogTexts(prisma);
  const stored = await texts.stored(all);
  const missing = all.filter((_, i) => !stored[i]);
  await ctx.progress({
    done: all.length - missing.length,
    total: all.length,
    message: `Embedding ${missing.length.toLocaleString("en")} catalog texts.`,
  });
  for (let i = 0; i < missing.length; i += STEP) {
    if (ctx.signal.aborted) throw ctx.signal.reason instanceof Error ? ctx.signal.reason : new Error("stopped");
    await texts.vectors(missing.slice(i, i + STEP), { signal: ctx.signal, timeoutMs: 5 * 60_000 });
    const done = all.length - missing.length + Math.min(missing.length, i + STEP);
    await ctx.progress({
      done,
      total: all.length,
      message: `Catalog texts embedded: ${done.toLocaleString("en")} of ${all.length.toLocaleString("en")}.`,
    });
  }
  return {
    message: `${all.length.toLocaleString("en")} catalog texts embedded with ${models.embedder.info.name} (${models.embedder.info.precision}).`,
  };
}
