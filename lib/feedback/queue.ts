import type { AccessSubject } from "../catalog/access";
import type { Prisma, PrismaClient } from "../db/generated/client";
import { AppError } from "../errors";
import { feedbackQueueSchema } from "./feedback.validation";
import { runKbScopeWhere } from "./run-access";

export interface ReviewItem {
  id: string;
  status: "OPEN" | "RESOLVED";
  createdAt: string;
  reporter: { name: string; email: string };
  correctAnswer: string | null;
  comment: string | null;
  run: { id: string; question: string; answer: string | null; refrained: boolean; status: string; createdAt: string };
  /** The guide this run was already saved as, if any: resolving then means linking to it. */
  runGuide: { id: string; question: string } | null;
  resolution: { at: string; by: string | null; guide: { id: string; question: string } | null } | null;
}

const ITEM_SELECT = {
  id: true,
  status: true,
  createdAt: true,
  correctAnswer: true,
  comment: true,
  resolvedAt: true,
  user: { select: { name: true, email: true } },
  resolvedBy: { select: { name: true } },
  resolvedGuide: { select: { id: true, question: true } },
  run: {
    select: {
      id: true,
      question: true,
      answer: true,
      refrained: true,
      status: true,
      createdAt: true,
      savedAsGuide: { select: { id: true, question: true } },
    },
  },
} satisfies Prisma.FeedbackSelect;

function toItem(f: Prisma.FeedbackGetPayload<{ select: typeof ITEM_SELECT }>): ReviewItem {
  return {
    id: f.id,
    status: f.status,
    createdAt: f.createdAt.toISOString(),
    reporter: f.user,
    correctAnswer: f.correctAnswer,
    comment: f.comment,
    run: { ...f.run, createdAt: f.run.createdAt.toISOString() },
    runGuide: f.run.savedAsGuide,
    resolution:
      f.status === "RESOLVED"
        ? { at: (f.resolvedAt ?? f.createdAt).toISOString(), by: f.resolvedBy?.name ?? null, guide: f.resolvedGuide }
        : null,
  };
}

/** Wrong-answer reports an analyst may review: only runs over knowledge bases they may use. */
export async function reviewWhere(prisma: PrismaClient, user: AccessSubject): Promise<Prisma.FeedbackWhereInput> {
  // The transport checks roles too; the domain refuses on its own so no caller can skip it.
  if (user.role === "USER") throw new AppError("FORBIDDEN", "Reviewing feedback is for analysts and admins.");
  return { verdict: "WRONG", run: await runKbScopeWhere(prisma, user) };
}

/** The review queue: open reports oldest first (first come, first served), resolved ones newest first. */
export async function listReviewQueue(
  prisma: PrismaClient,
  user: AccessSubject,
  raw: unknown = {},
): Promise<{ items: ReviewItem[]; open: number }> {
  const f = feedbackQueueSchema.parse(raw);
  const scope = await reviewWhere(prisma, user);
  const [rows, open] = await Promise.all([
    prisma.feedback.findMany({
      where: { AND: [scope, { status: f.status }] },
      orderBy: { createdAt: f.status === "OPEN" ? "asc" : "desc" },
      take: f.take,
      select: ITEM_SELECT,
    }),
    prisma.feedback.count({ where: { AND: [scope, { status: "OPEN" }] } }),
  ]);
  return { items: rows.map(toItem), open };
}

export async function getReviewItem(prisma: PrismaClient, user: AccessSubject, feedbackId: string): Promise<ReviewItem> {
  const f = await prisma.feedback.findFirst({ where: { AND: [{ id: feedbackId }, await reviewWhere(prisma, user)] }, select: ITEM_SELECT });
  if (!f) throw new AppError("NOT_FOUND", "That report does not exist or is about a run outside your access.");
  return toItem(f);
}
