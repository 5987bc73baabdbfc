import type { KbKind } from "../backends/types";
import type { AccessSubject } from "../catalog/access";
import type { Prisma, PrismaClient } from "../db/generated/client";
import { runReadWhere } from "../feedback/run-access";
import { describeAction, type GuideActionKind, parseGuideAction } from "../pipeline/guide-actions";
import { runReadableWhere } from "../runs/access";
import { findVisibleGuide } from "./access";
import type { GuideCorrection, GuideDetail } from "./types";

export const HELPED_RUNS_SHOWN = 50;

export async function getGuide(prisma: PrismaClient, user: AccessSubject, id: string): Promise<GuideDetail> {
  await findVisibleGuide(prisma, user, id);
  // Listed runs are the ones the reader can also open on the Ask screen (lib/runs/access.ts), within their KB scope.
  const runScope: Prisma.RunWhereInput = { AND: [await runReadWhere(prisma, user), runReadableWhere(user)] };
  const [g, total, uses, resolvedReports] = await Promise.all([
    prisma.extractionGuide.findUniqueOrThrow({
      where: { id },
      include: {
        createdBy: { select: { name: true } },
        sources: {
          orderBy: { position: "asc" },
          include: {
            kb: { select: { name: true, kind: true } },
            sourceObject: { select: { id: true, name: true, key: true } },
            actions: { orderBy: { position: "asc" } },
          },
        },
      },
    }),
    prisma.runGuideUse.count({ where: { guideId: id } }),
    prisma.runGuideUse.findMany({
      where: { guideId: id, run: runScope },
      orderBy: { run: { createdAt: "desc" } },
      take: HELPED_RUNS_SHOWN,
      select: {
        score: true,
        run: { select: { id: true, question: true, status: true, createdAt: true, user: { select: { name: true } } } },
      },
    }),
    prisma.feedback.count({ where: { resolvedGuideId: id } }),
  ]);
  return {
    id: g.id,
    question: g.question,
    answer: g.answer,
    notes: g.notes,
    corrections: Array.isArray(g.corrections) ? (g.corrections as unknown as GuideCorrection[]) : [],
    fromRunId: g.fromRunId,
    createdBy: g.createdBy?.name ?? null,
    createdAt: g.createdAt.toISOString(),
    updatedAt: g.updatedAt.toISOString(),
    brokenReason: g.brokenReason,
    checkedAt: g.checkedAt?.toISOString() ?? null,
    sources: g.sources.map((s) => ({
      kbId: s.kbId,
      kbName: s.kb.name,
      kbKind: s.kb.kind as KbKind,
      sourceObject: s.sourceObject,
      actions: s.actions.map((a) => {
        const parsed = parseGuideAction(a.kind, a.params);
        return {
          kind: a.kind as GuideActionKind,
          params: a.params,
          context: a.context,
          description: parsed ? describeAction(parsed) : null,
        };
      }),
    })),
    helped: {
      total,
      runs: uses.map((u) => ({
        runId: u.run.id,
        question: u.run.question,
        status: u.run.status,
        score: u.score,
        askedBy: u.run.user.name,
        createdAt: u.run.createdAt.toISOString(),
      })),
    },
    resolvedReports,
  };
}
