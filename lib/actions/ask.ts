"use server";

import { authActionClient } from "@/lib/actions/safe-action";
import { auditEvidenceOpened } from "@/lib/audit/runs";
import { db } from "@/lib/db/client";
import { submitFeedback } from "@/lib/runs/feedback";
import { loadRunView } from "@/lib/runs/load-run";
import { feedbackInputSchema, runIdSchema } from "@/lib/runs/runs.validation";

/** The full stored run, once its stream has finished or when it is reopened. */
export const getRunAction = authActionClient
  .metadata({ name: "runs.view" })
  .inputSchema(runIdSchema)
  .action(async ({ parsedInput, ctx }) => {
    const prisma = await db();
    const view = await loadRunView(prisma, ctx.user, parsedInput.id);
    // Only when evidence was actually shown (a run whose knowledge bases the viewer lost is withheld).
    if (!view.hidden?.wholeResult) auditEvidenceOpened(ctx.actor, view.id, prisma);
    return view;
  });

export const submitFeedbackAction = authActionClient
  .metadata({ name: "runs.feedback" })
  .inputSchema(feedbackInputSchema)
  .action(async ({ parsedInput, ctx }) => submitFeedback(await db(), ctx.user, parsedInput));
