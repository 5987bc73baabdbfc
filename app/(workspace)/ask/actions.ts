"use server";

import { authActionClient } from "@/lib/actions/safe-action";
import { db } from "@/lib/db/client";
import { submitFeedback } from "@/lib/runs/feedback";
import { loadRunView } from "@/lib/runs/load-run";
import { feedbackInputSchema, runIdSchema } from "@/lib/runs/runs.validation";

/** The full stored run, once its stream has finished or when it is reopened. */
export const getRunAction = authActionClient
  .metadata({ name: "runs.view" })
  .inputSchema(runIdSchema)
  .action(async ({ parsedInput, ctx }) => loadRunView(await db(), ctx.user, parsedInput.id));

export const submitFeedbackAction = authActionClient
  .metadata({ name: "runs.feedback" })
  .inputSchema(feedbackInputSchema)
  .action(async ({ parsedInput, ctx }) => submitFeedback(await db(), ctx.user, parsedInput));
