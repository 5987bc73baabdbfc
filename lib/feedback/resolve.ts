import type { AccessSubject } from "../catalog/access";
import type { CatalogDeps } from "../deps";
import type { Prisma, PrismaClient } from "../db/generated/client";
import { AppError } from "../errors";
import { guideAccessWhere } from "../guides/access";
import { parseGuideDraft } from "../guides/drafts";
import { draftFromCorrection } from "../guides/from-correction";
import { guideDraftFromRun } from "../guides/from-run";
import type { GuideDraftInput } from "../guides/guides.validation";
import { saveGuide } from "../guides/save";
import type { GuideCorrection } from "../guides/types";
import { getReviewItem, type ReviewItem } from "./queue";

async function openItem(prisma: PrismaClient, user: AccessSubject, feedbackId: string): Promise<ReviewItem> {
  const item = await getReviewItem(prisma, user, feedbackId);
  if (item.status !== "OPEN") throw new AppError("CONFLICT", "This report has already been resolved.");
  return item;
}

/** Marks the report resolved unless someone else got there first (then the whole transaction rolls back). */
async function markResolved(tx: Prisma.TransactionClient | PrismaClient, user: AccessSubject, feedbackId: string, guideId: string | null) {
  const { count } = await tx.feedback.updateMany({
    where: { id: feedbackId, status: "OPEN" },
    data: { status: "RESOLVED", resolvedById: user.id, resolvedAt: new Date(), resolvedGuideId: guideId },
  });
  if (count !== 1) throw new AppError("CONFLICT", "This report was resolved by someone else in the meantime.");
}

/**
 * The guide editor's starting point for a report: the run's guide draft, with the reporter's correct
 * answer as the guide's answer. A run that left nothing to save (it failed, or ran no query) starts
 * from its question alone.
 */
export async function draftFromReport(
  prisma: PrismaClient,
  user: AccessSubject,
  feedbackId: string,
  deps?: CatalogDeps,
): Promise<{ item: ReviewItem; draft: GuideDraftInput; note: string | null }> {
  const item = await getReviewItem(prisma, user, feedbackId);
  // A corrected answer: the draft holds the run's query whose result is that answer. When none has it,
  // the draft is the run's as before (its cited queries, to correct), with a note saying so.
  const fromCorrection = deps && item.correctAnswer ? await draftFromCorrection(prisma, deps, user, item.run.id, item.correctAnswer) : null;
  if (fromCorrection && fromCorrection.matching > 0) return { item, draft: fromCorrection.draft, note: fromCorrection.note };
  let draft: GuideDraftInput;
  let note: string | null = null;
  try {
    const fromRun = await guideDraftFromRun(prisma, user, item.run.id);
    draft = fromRun;
    if (!fromRun.sources.length)
      note = "The run ran no query that returned evidence: add the sources and actions that answer the question.";
  } catch (e) {
    if (!(e instanceof AppError) || e.code !== "NOT_FOUND") throw e;
    draft = { question: item.run.question, answer: null, sources: [], fromRunId: item.run.id };
    note = "The run has no stored result: add the sources and actions that answer the question.";
  }
  return { item, draft: { ...draft, answer: item.correctAnswer ?? draft.answer ?? null }, note: fromCorrection?.note ?? note };
}

/**
 * Resolves a wrong-answer report by turning its run into a guide: the guide records the correct answer
 * and a correction (run's answer → correct answer) for the critic; the report is resolved with it in
 * the same transaction, so a failure leaves neither half.
 */
export async function resolveWithNewGuide(
  prisma: PrismaClient,
  deps: CatalogDeps,
  user: AccessSubject,
  feedbackId: string,
  raw: unknown,
): Promise<{ guideId: string }> {
  const item = await openItem(prisma, user, feedbackId);
  const draft = parseGuideDraft(raw);
  if (!draft.answer)
    throw new AppError("VALIDATION", "Enter the correct answer: it is what the guide teaches.", {
      answer: "Required when resolving a report.",
    });
  const correction: GuideCorrection = {
    runAnswer: item.run.refrained ? null : item.run.answer,
    correctAnswer: draft.answer,
    feedbackId: item.id,
    comment: item.comment,
  };
  const { id } = await saveGuide(
    prisma,
    deps,
    user,
    { ...draft, fromRunId: item.runGuide ? null : item.run.id },
    {
      corrections: [correction],
      then: (tx, guideId) => markResolved(tx, user, item.id, guideId),
    },
  );
  return { guideId: id };
}

/** Resolves a report with a guide that already exists (typically the one its run was saved as). */
export async function resolveWithExistingGuide(
  prisma: PrismaClient,
  user: AccessSubject,
  feedbackId: string,
  guideId: string,
): Promise<void> {
  const item = await openItem(prisma, user, feedbackId);
  const guide = await prisma.extractionGuide.findFirst({
    where: { AND: [{ id: guideId }, guideAccessWhere(user)] },
    select: { id: true, corrections: true },
  });
  if (!guide)
    throw new AppError("NOT_FOUND", "That guide does not exist or uses a knowledge base that is not shared with you.", {
      guideId: "Unknown guide.",
    });
  await prisma.$transaction(async (tx) => {
    if (item.correctAnswer) {
      const corrections = Array.isArray(guide.corrections) ? (guide.corrections as unknown as GuideCorrection[]) : [];
      const entry: GuideCorrection = {
        runAnswer: item.run.refrained ? null : item.run.answer,
        correctAnswer: item.correctAnswer,
        feedbackId: item.id,
        comment: item.comment,
      };
      await tx.extractionGuide.update({
        where: { id: guide.id },
        data: { corrections: [...corrections, entry] as unknown as Prisma.InputJsonValue },
      });
    }
    await markResolved(tx, user, item.id, guide.id);
  });
}

/** Closes a report without a guide (the answer was right, or the report is not actionable). */
export async function dismissReport(prisma: PrismaClient, user: AccessSubject, feedbackId: string): Promise<void> {
  const item = await openItem(prisma, user, feedbackId);
  await markResolved(prisma, user, item.id, null);
}
