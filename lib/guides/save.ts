import type { AccessSubject } from "../catalog/access";
import type { CatalogDeps } from "../deps";
import type { Prisma, PrismaClient } from "../db/generated/client";
import { AppError } from "../errors";
import { enqueueCatalogEmbedding } from "../ingest/documents/embedding-queue";
import { log } from "../log";
import { runReadWhere } from "../feedback/run-access";
import { findVisibleGuide } from "./access";
import { type AuthoredSource, parseGuideDraft, prepareGuideDraft } from "./drafts";
import type { GuideCorrection } from "./types";

function sourcesCreate(sources: AuthoredSource[]): Prisma.GuideSourceCreateWithoutGuideInput[] {
  return sources.map((s, position) => ({
    position,
    kb: { connect: { id: s.kbId } },
    ...(s.sourceObjectId ? { sourceObject: { connect: { id: s.sourceObjectId } } } : {}),
    actions: { create: s.actions.map((a, i) => ({ position: i, kind: a.kind, params: a.params, context: a.context })) },
  }));
}

async function checkRunForGuide(prisma: PrismaClient | Prisma.TransactionClient, user: AccessSubject, runId: string) {
  const run = await prisma.run.findFirst({
    where: { AND: [{ id: runId }, await runReadWhere(prisma as PrismaClient, user)] },
    select: { id: true, savedAsGuide: { select: { id: true, question: true } } },
  });
  if (!run)
    throw new AppError("NOT_FOUND", "The run this guide comes from does not exist or is outside your access.", {
      fromRunId: "Unknown run.",
    });
  if (run.savedAsGuide)
    throw new AppError(
      "CONFLICT",
      `This run is already saved as the guide "${run.savedAsGuide.question.slice(0, 80)}". Edit that guide instead.`,
      { fromRunId: run.savedAsGuide.id },
    );
}

/**
 * Writes an analyst's guide (new, or replacing an existing one's content). `tx` lets a caller do more
 * in the same transaction (resolving a feedback report with the new guide).
 */
export async function saveGuide(
  prisma: PrismaClient,
  deps: CatalogDeps,
  user: AccessSubject,
  raw: unknown,
  opts: {
    guideId?: string;
    corrections?: GuideCorrection[];
    then?: (tx: Prisma.TransactionClient, guideId: string) => Promise<void>;
    signal?: AbortSignal;
    /** false: the caller asks for the question's embedding itself (an import of many guides asks once). */
    embed?: boolean;
  } = {},
): Promise<{ id: string }> {
  const draft = parseGuideDraft(raw);
  const existing = opts.guideId ? await findVisibleGuide(prisma, user, opts.guideId) : null;
  if (!existing && draft.fromRunId) await checkRunForGuide(prisma, user, draft.fromRunId);
  const sources = await prepareGuideDraft(prisma, deps, user, draft, opts.signal);
  const saved = await prisma.$transaction(async (tx) => {
    let id: string;
    if (existing) {
      await tx.guideSource.deleteMany({ where: { guideId: existing.id } });
      await tx.extractionGuide.update({
        where: { id: existing.id },
        data: {
          question: draft.question,
          answer: draft.answer,
          notes: draft.notes,
          ...(opts.corrections ? { corrections: opts.corrections as unknown as Prisma.InputJsonValue } : {}),
          sources: { create: sourcesCreate(sources) },
        },
      });
      id = existing.id;
    } else {
      const created = await tx.extractionGuide.create({
        data: {
          question: draft.question,
          answer: draft.answer,
          notes: draft.notes,
          corrections: (opts.corrections ?? []) as unknown as Prisma.InputJsonValue,
          fromRunId: draft.fromRunId,
          createdById: user.id,
          sources: { create: sourcesCreate(sources) },
        },
        select: { id: true },
      });
      id = created.id;
    }
    await opts.then?.(tx, id);
    return { id };
  });
  if (opts.embed !== false) await enqueueGuideEmbedding(prisma);
  return saved;
}

/**
 * Guide retrieval compares questions by meaning as well as by words (retrieval.ts): a new or edited
 * guide's question is embedded by the catalog-texts job, as a new source's descriptions are. A question
 * waits for it only when few texts are missing (select/semantic.ts INLINE_TEXTS); an import of hundreds
 * would otherwise stay matched by words alone until the next restart. Failing to queue the job loses
 * nothing: the guide is saved, and the job runs at the next start.
 */
export async function enqueueGuideEmbedding(prisma: PrismaClient): Promise<void> {
  await enqueueCatalogEmbedding(prisma).catch((err) => log.warn({ err }, "could not queue the embedding of guide questions"));
}
