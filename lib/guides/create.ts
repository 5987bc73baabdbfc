import { type AccessSubject, kbAccessWhere } from "../catalog/access";
import type { Prisma, PrismaClient } from "../db/generated/client";
import { AppError } from "../errors";
import { guideActionSchema } from "../pipeline/guide-actions";
import type { GuideDraft } from "./types";

/** Creates a guide after validating every action; the caller has checked the user's access to the KBs. */
export async function createGuide(prisma: PrismaClient, user: AccessSubject, draft: GuideDraft) {
  if (!draft.question.trim()) throw new AppError("VALIDATION", "A guide needs its question.", { question: "Required." });
  if (!draft.sources.length) throw new AppError("VALIDATION", "A guide needs at least one source.", { sources: "Required." });
  const kbIds = [...new Set(draft.sources.map((s) => s.kbId))];
  const visible = await prisma.knowledgeBase.count({ where: { AND: [{ id: { in: kbIds } }, kbAccessWhere(user)] } });
  if (visible !== kbIds.length)
    throw new AppError("NOT_FOUND", "One of the guide's knowledge bases does not exist or is not shared with you.");
  const sources = draft.sources.map((s, position) => ({
    position,
    kbId: s.kbId,
    sourceObjectId: s.sourceObjectId ?? null,
    actions: {
      create: s.actions.map((a, i) => {
        const parsed = guideActionSchema.safeParse({ kind: a.kind, params: a.params });
        if (!parsed.success)
          throw new AppError("VALIDATION", `Action ${i + 1} of source ${position + 1} is malformed: ${parsed.error.issues[0]?.message}.`);
        return { position: i, kind: parsed.data.kind, params: parsed.data.params as Prisma.InputJsonValue, context: a.context ?? "" };
      }),
    },
  }));
  return prisma.extractionGuide.create({
    data: {
      question: draft.question.trim(),
      answer: draft.answer ?? null,
      notes: draft.notes ?? "",
      corrections: (draft.corrections ?? []) as Prisma.InputJsonValue,
      fromRunId: draft.fromRunId ?? null,
      createdById: user.id,
      sources: { create: sources },
    },
    select: { id: true },
  });
}
