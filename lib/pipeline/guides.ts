import type { NativeQuery } from "../backends/types";
import { type AccessSubject, kbAccessWhere } from "../catalog/access";
import type { Prisma, PrismaClient } from "../db/generated/client";
import { AppError } from "../errors";
import { Bm25Index } from "./bm25";
import { type GuideActionInput, guideActionSchema, parseGuideAction } from "./guide-actions";

export interface GuideHit {
  guideId: string;
  question: string;
  /** 0..1: BM25 of the new question against the guide's question, relative to the guide's own self-match. */
  score: number;
  kbIds: string[];
  /** The guide's native queries, as demonstrations and for adaptation. */
  examples: { kbId: string; query: NativeQuery }[];
  /** Every valid action with its KB, executable directly. */
  actions: { kbId: string; sourceObjectId: string | null; action: GuideActionInput }[];
  /** Actions that failed validation (a malformed guide): reported in the trace, skipped. */
  invalidActions: number;
}

const GUIDE_INCLUDE = { sources: { include: { actions: { orderBy: { position: "asc" } } }, orderBy: { position: "asc" } } } satisfies Prisma.ExtractionGuideInclude;

/**
 * Guides the user may use: every source of the guide must be in a KB they may use (a guide must not
 * leak a restricted KB's queries or contexts).
 */
export function guideAccessWhere(user: AccessSubject): Prisma.ExtractionGuideWhereInput {
  if (user.role === "ADMIN") return {};
  return { sources: { every: { kb: kbAccessWhere(user) } } };
}

/** AU-RAG's Think Tank: the guides whose questions are closest to this one. */
export async function findNearestGuides(
  prisma: PrismaClient,
  user: AccessSubject,
  question: string,
  kbIds: string[],
  limit = 3,
  minScore = 0.2,
): Promise<GuideHit[]> {
  const guides = await prisma.extractionGuide.findMany({
    where: { AND: [guideAccessWhere(user), { sources: { some: { kbId: { in: kbIds } } } }] },
    include: GUIDE_INCLUDE,
    take: 5000,
  });
  if (!guides.length) return [];
  const index = new Bm25Index(guides.map((g) => g.question));
  const scores = index.scores(question);
  const hits: GuideHit[] = [];
  scores.forEach((s, i) => {
    if (s <= 0) return;
    const self = index.scores(guides[i].question)[i] || 1;
    const score = Math.min(1, s / self);
    if (score < minScore) return;
    const g = guides[i];
    let invalid = 0;
    const actions: GuideHit["actions"] = [];
    for (const src of g.sources) {
      if (!kbIds.includes(src.kbId)) continue;
      for (const a of src.actions) {
        const parsed = parseGuideAction(a.kind, a.params);
        if (parsed) actions.push({ kbId: src.kbId, sourceObjectId: src.sourceObjectId, action: parsed });
        else invalid++;
      }
    }
    hits.push({
      guideId: g.id,
      question: g.question,
      score,
      kbIds: [...new Set(g.sources.map((s) => s.kbId))],
      examples: actions.flatMap((a) => (a.action.kind === "NATIVE_QUERY" ? [{ kbId: a.kbId, query: a.action.params.query }] : [])),
      actions,
      invalidActions: invalid,
    });
  });
  return hits.sort((a, b) => b.score - a.score).slice(0, limit);
}

export interface GuideDraft {
  question: string;
  answer?: string | null;
  notes?: string;
  corrections?: unknown[];
  fromRunId?: string | null;
  sources: { kbId: string; sourceObjectId?: string | null; actions: { kind: string; params: unknown; context?: string }[] }[];
}

/** Creates a guide after validating every action; the caller has checked the user's access to the KBs. */
export async function createGuide(prisma: PrismaClient, user: AccessSubject, draft: GuideDraft) {
  if (!draft.question.trim()) throw new AppError("VALIDATION", "A guide needs its question.", { question: "Required." });
  if (!draft.sources.length) throw new AppError("VALIDATION", "A guide needs at least one source.", { sources: "Required." });
  const kbIds = [...new Set(draft.sources.map((s) => s.kbId))];
  const visible = await prisma.knowledgeBase.count({ where: { AND: [{ id: { in: kbIds } }, kbAccessWhere(user)] } });
  if (visible !== kbIds.length) throw new AppError("NOT_FOUND", "One of the guide's knowledge bases does not exist or is not shared with you.");
  const sources = draft.sources.map((s, position) => ({
    position,
    kbId: s.kbId,
    sourceObjectId: s.sourceObjectId ?? null,
    actions: {
      create: s.actions.map((a, i) => {
        const parsed = guideActionSchema.safeParse({ kind: a.kind, params: a.params });
        if (!parsed.success) throw new AppError("VALIDATION", `Action ${i + 1} of source ${position + 1} is malformed: ${parsed.error.issues[0]?.message}.`);
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
