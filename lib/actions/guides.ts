"use server";

import { z } from "zod";
import { authActionClient } from "@/lib/actions/safe-action";
import { auditedChange } from "@/lib/audit/change";
import { guideSnapshot } from "@/lib/audit/snapshots";
import { catalogDeps } from "@/lib/deps";
import { db } from "@/lib/db/client";
import { assertActionComplete, assertDraftActionsComplete } from "@/lib/guides/complete-actions";
import { listGuidesSchema } from "@/lib/guides/guides.validation";
import { GUIDE_ACTION_KINDS } from "@/lib/pipeline/guide-actions";
import { deleteGuide } from "@/lib/guides/delete";
import { listGuides } from "@/lib/guides/list";
import { saveGuide } from "@/lib/guides/save";
import { runRetrievalAction } from "@/lib/guides/capture";
import { checkGuide } from "@/lib/guides/check";

const CURATORS = ["ADMIN", "ANALYST"] as ("ADMIN" | "ANALYST")[];

export const listGuidesAction = authActionClient
  .metadata({ name: "guides.list", roles: CURATORS })
  .inputSchema(listGuidesSchema)
  .action(async ({ parsedInput, ctx }) => listGuides(await db(), ctx.user, parsedInput));

/** Runs one retrieval action and returns the context it produces (source-object workbench and guide editor). */
export const captureContextAction = authActionClient
  .metadata({ name: "guides.captureContext", roles: CURATORS })
  .inputSchema(z.object({ kbId: z.string().min(1, "Choose a knowledge base."), kind: z.enum(GUIDE_ACTION_KINDS), params: z.unknown() }))
  .action(async ({ parsedInput, ctx }) => {
    assertActionComplete(parsedInput.kind, parsedInput.params);
    return runRetrievalAction(await db(), catalogDeps(), ctx.user, parsedInput);
  });

/** The draft is validated by the domain, so every problem comes back under its own field path. */
export const saveGuideAction = authActionClient
  .metadata({ name: "guides.save", roles: CURATORS })
  .inputSchema(z.object({ guideId: z.string().min(1).optional(), draft: z.unknown() }))
  .action(async ({ parsedInput, ctx }) => {
    assertDraftActionsComplete(parsedInput.draft);
    const prisma = await db();
    return auditedChange(
      prisma,
      ctx.actor,
      {
        action: parsedInput.guideId ? "guides.update" : "guides.create",
        targetType: "guide",
        targetId: parsedInput.guideId,
        snapshot: guideSnapshot,
        idFrom: (r) => (r as { id?: string }).id,
      },
      () => saveGuide(prisma, catalogDeps(), ctx.user, parsedInput.draft, { guideId: parsedInput.guideId }),
    );
  });

export const deleteGuideAction = authActionClient
  .metadata({ name: "guides.delete", roles: CURATORS })
  .inputSchema(z.object({ id: z.string().min(1) }))
  .action(async ({ parsedInput, ctx }) => {
    const prisma = await db();
    await auditedChange(
      prisma,
      ctx.actor,
      { action: "guides.delete", targetType: "guide", targetId: parsedInput.id, snapshot: guideSnapshot },
      () => deleteGuide(prisma, ctx.user, parsedInput.id),
    );
    return { ok: true };
  });

/** "Check now": re-runs the guide's queries (read-only, the backends' safety rules) and updates its "no longer runs" flag. */
export const checkGuideAction = authActionClient
  .metadata({ name: "guides.check", roles: CURATORS })
  .inputSchema(z.object({ id: z.string().min(1) }))
  .action(async ({ parsedInput, ctx }) => checkGuide(await db(), catalogDeps(), ctx.user, parsedInput.id));
