"use server";

import { authActionClient } from "@/lib/actions/safe-action";
import { db } from "@/lib/db/client";
import { searchConversations, searchRuns } from "@/lib/runs/history";
import { listHistorySchema } from "@/lib/runs/runs.validation";

export const listHistoryAction = authActionClient
  .metadata({ name: "runs.history" })
  .inputSchema(listHistorySchema)
  .action(async ({ parsedInput, ctx }) => {
    const { view, ...query } = parsedInput;
    const prisma = await db();
    return view === "conversations"
      ? { view, page: await searchConversations(prisma, ctx.user, query) }
      : { view, page: await searchRuns(prisma, ctx.user, query) };
  });
