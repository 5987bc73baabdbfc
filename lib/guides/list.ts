import type { AccessSubject } from "../catalog/access";
import type { Prisma, PrismaClient } from "../db/generated/client";
import { Bm25Index } from "../pipeline/bm25";
import type { GuideActionKind } from "../pipeline/guide-actions";
import { guideAccessWhere } from "./access";
import { listGuidesSchema } from "./guides.validation";
import type { GuideListRow } from "./types";

const LIST_SELECT = {
  id: true,
  question: true,
  answer: true,
  fromRunId: true,
  updatedAt: true,
  brokenReason: true,
  createdBy: { select: { name: true } },
  sources: { orderBy: { position: "asc" }, select: { kb: { select: { id: true, name: true } }, actions: { select: { kind: true } } } },
  _count: { select: { helpedRuns: true } },
} satisfies Prisma.ExtractionGuideSelect;

/**
 * Guides the user may see, newest first; with a search text, ranked by BM25 over question, answer and
 * notes (the same measure the pipeline uses to find a guide), with a plain substring match as a floor
 * so a query text or a number is found too.
 */
export async function listGuides(prisma: PrismaClient, user: AccessSubject, raw: unknown = {}): Promise<GuideListRow[]> {
  const f = listGuidesSchema.parse(raw);
  const where: Prisma.ExtractionGuideWhereInput = { AND: [guideAccessWhere(user), f.kbId ? { sources: { some: { kbId: f.kbId } } } : {}] };
  let ids: string[] | null = null;
  if (f.q) {
    const all = await prisma.extractionGuide.findMany({
      where,
      select: { id: true, question: true, answer: true, notes: true },
      orderBy: { updatedAt: "desc" },
      take: 5000,
    });
    const texts = all.map((g) => [g.question, g.answer ?? "", g.notes].join("\n"));
    const scores = new Bm25Index(texts).scores(f.q);
    const needle = f.q.toLowerCase();
    ids = all
      .map((g, i) => ({ id: g.id, score: scores[i] + (texts[i].toLowerCase().includes(needle) ? 1 : 0) }))
      .filter((x) => x.score > 0)
      .sort((a, b) => b.score - a.score)
      .slice(0, f.take)
      .map((x) => x.id);
  }
  const rows = await prisma.extractionGuide.findMany({
    where: ids ? { id: { in: ids } } : where,
    select: LIST_SELECT,
    orderBy: { updatedAt: "desc" },
    take: f.take,
  });
  const order = ids ? new Map(ids.map((id, i) => [id, i])) : null;
  if (order) rows.sort((a, b) => order.get(a.id)! - order.get(b.id)!);
  return rows.map((g) => {
    const kbs = new Map(g.sources.map((s) => [s.kb.id, s.kb]));
    const kinds = g.sources.flatMap((s) => s.actions.map((a) => a.kind as GuideActionKind));
    return {
      id: g.id,
      question: g.question,
      answer: g.answer,
      kbs: [...kbs.values()],
      actionKinds: [...new Set(kinds)],
      actions: kinds.length,
      helpedRuns: g._count.helpedRuns,
      fromRunId: g.fromRunId,
      createdBy: g.createdBy?.name ?? null,
      updatedAt: g.updatedAt.toISOString(),
      brokenReason: g.brokenReason,
    };
  });
}
