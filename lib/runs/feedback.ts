import type { AccessSubject } from "../catalog/access";
import type { PrismaClient } from "../db/generated/client";
import { AppError } from "../errors";
import { runReadableWhere } from "./access";
import { feedbackView } from "./load-run";
import { type FeedbackInput, feedbackInputSchema } from "./runs.validation";
import type { FeedbackView } from "./types";

const FINISHED = ["ANSWERED", "REFRAINED", "FAILED", "CANCELLED"] as const;

/**
 * Helpful / Wrong on a finished run, with an optional correct answer and comment: one per person per run
 * (a resubmission updates it). A changed report goes back to OPEN so the analysts' review queue sees it
 * again; an unchanged resubmission changes nothing.
 */
export async function submitFeedback(
  prisma: PrismaClient,
  user: AccessSubject,
  raw: FeedbackInput,
): Promise<FeedbackView & { created: boolean; changed: boolean }> {
  const input = feedbackInputSchema.parse(raw);
  return prisma.$transaction(async (tx) => {
    const run = await tx.run.findFirst({
      where: { AND: [{ id: input.runId }, runReadableWhere(user)] },
      select: { id: true, status: true },
    });
    if (!run) throw new AppError("NOT_FOUND", "That run does not exist or you may not open it.");
    if (!(FINISHED as readonly string[]).includes(run.status))
      throw new AppError("VALIDATION", "This run has not finished yet. Give feedback once it has.");
    // Serializes concurrent submissions for the same run, so "one per person per run" holds without a unique index.
    await tx.$queryRaw`SELECT id FROM "Run" WHERE id = ${run.id} FOR UPDATE`;
    const existing = await tx.feedback.findFirst({ where: { runId: run.id, userId: user.id }, orderBy: { createdAt: "desc" } });
    const data = { verdict: input.verdict, correctAnswer: input.correctAnswer, comment: input.comment };
    if (!existing) {
      const created = await tx.feedback.create({ data: { ...data, runId: run.id, userId: user.id, status: "OPEN" } });
      return { ...feedbackView(created), created: true, changed: true };
    }
    const changed = existing.verdict !== data.verdict || existing.correctAnswer !== data.correctAnswer || existing.comment !== data.comment;
    if (!changed) return { ...feedbackView(existing), created: false, changed: false };
    const updated = await tx.feedback.update({
      where: { id: existing.id },
      data: { ...data, status: "OPEN", resolvedById: null, resolvedAt: null, resolvedGuideId: null },
    });
    return { ...feedbackView(updated), created: false, changed: true };
  });
}
