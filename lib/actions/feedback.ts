"use server";

import { z } from "zod";
import { authActionClient } from "@/lib/actions/safe-action";
import { auditedChange } from "@/lib/audit/change";
import { catalogDeps } from "@/lib/deps";
import { db } from "@/lib/db/client";
import { assertDraftActionsComplete } from "@/lib/guides/complete-actions";
import { feedbackIdSchema, feedbackQueueSchema, linkFeedbackSchema } from "@/lib/feedback/feedback.validation";
import { listReviewQueue } from "@/lib/feedback/queue";
import { dismissReport, resolveWithExistingGuide, resolveWithNewGuide } from "@/lib/feedback/resolve";

const CURATORS = ["ADMIN", "ANALYST"] as ("ADMIN" | "ANALYST")[];

export const listReviewQueueAction = authActionClient
  .metadata({ name: "feedback.queue", roles: CURATORS })
  .inputSchema(feedbackQueueSchema)
  .action(async ({ parsedInput, ctx }) => listReviewQueue(await db(), ctx.user, parsedInput));

export const dismissReportAction = authActionClient
  .metadata({ name: "feedback.dismiss", roles: CURATORS })
  .inputSchema(feedbackIdSchema)
  .action(async ({ parsedInput, ctx }) => {
    const prisma = await db();
    await auditedChange(prisma, ctx.actor, { action: "feedback.dismiss", targetType: "feedback", targetId: parsedInput.feedbackId }, () =>
      dismissReport(prisma, ctx.user, parsedInput.feedbackId),
    );
    return { ok: true };
  });

export const resolveWithExistingGuideAction = authActionClient
  .metadata({ name: "feedback.resolveWithGuide", roles: CURATORS })
  .inputSchema(linkFeedbackSchema)
  .action(async ({ parsedInput, ctx }) => {
    const prisma = await db();
    await auditedChange(
      prisma,
      ctx.actor,
      {
        action: "feedback.resolveWithGuide",
        targetType: "feedback",
        targetId: parsedInput.feedbackId,
        detail: { guideId: parsedInput.guideId },
      },
      () => resolveWithExistingGuide(prisma, ctx.user, parsedInput.feedbackId, parsedInput.guideId),
    );
    return { ok: true };
  });

export const resolveWithNewGuideAction = authActionClient
  .metadata({ name: "feedback.resolveWithNewGuide", roles: CURATORS })
  .inputSchema(feedbackIdSchema.extend({ draft: z.unknown() }))
  .action(async ({ parsedInput, ctx }) => {
    assertDraftActionsComplete(parsedInput.draft);
    const prisma = await db();
    const { guideId } = await auditedChange(
      prisma,
      ctx.actor,
      { action: "feedback.resolveWithNewGuide", targetType: "feedback", targetId: parsedInput.feedbackId },
      () => resolveWithNewGuide(prisma, catalogDeps(), ctx.user, parsedInput.feedbackId, parsedInput.draft),
    );
    return { id: guideId };
  });
