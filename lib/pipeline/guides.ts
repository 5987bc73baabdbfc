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

interface StoredRunResult {
  question: string;
  answer: { text: string; refrained: boolean; citations: string[] };
  queries: { kbId: string; query: NativeQuery; status: string; evidenceIds: string[]; sourceObject: string | null }[];
  evidence: { piece: { id: string; text: string } }[];
}

/**
 * "Save this run as a guide" (AU-RAG): the question, the answer (or an analyst's correction), and per KB
 * the native queries that produced cited evidence, each with the context it retrieved. The draft can be
 * edited before saving; corrections are kept as few-shot examples for the critic.
 */
export async function guideDraftFromRun(prisma: PrismaClient, user: AccessSubject, runId: string): Promise<GuideDraft> {
  const run = await prisma.run.findFirst({ where: { id: runId, ...(user.role === "ADMIN" ? {} : { userId: user.id }) }, select: { id: true, question: true, result: true } });
  if (!run?.result) throw new AppError("NOT_FOUND", "That run does not exist, is not yours, or has no result to save.");
  const result = run.result as unknown as StoredRunResult;
  const cited = new Set(result.answer.citations);
  const textOf = new Map(result.evidence.map((e) => [e.piece.id, e.piece.text]));
  const useful = result.queries.filter((q) => q.status === "ok" && q.evidenceIds.some((id) => cited.has(id)));
  const chosen = useful.length ? useful : result.queries.filter((q) => q.status === "ok").slice(0, 1);
  const byKb = new Map<string, GuideDraft["sources"][number]>();
  for (const q of chosen) {
    const source = byKb.get(q.kbId) ?? { kbId: q.kbId, sourceObjectId: null, actions: [] };
    const context = q.evidenceIds.filter((id) => cited.has(id) || !useful.length).map((id) => textOf.get(id)).filter(Boolean).slice(0, 10).join("\n");
    source.actions.push({ kind: "NATIVE_QUERY", params: { query: q.query }, context });
    byKb.set(q.kbId, source);
  }
  for (const source of byKb.values()) {
    const q = chosen.find((c) => c.kbId === source.kbId && c.sourceObject);
    if (q?.sourceObject) {
      const so = await prisma.sourceObject.findUnique({ where: { kbId_key: { kbId: source.kbId, key: q.sourceObject } }, select: { id: true } });
      source.sourceObjectId = so?.id ?? null;
    }
  }
  return { question: run.question, answer: result.answer.refrained ? null : result.answer.text, fromRunId: run.id, sources: [...byKb.values()] };
}

export async function saveRunAsGuide(prisma: PrismaClient, user: AccessSubject, runId: string, edits: Partial<Pick<GuideDraft, "question" | "answer" | "notes">> & { correction?: string } = {}) {
  const draft = await guideDraftFromRun(prisma, user, runId);
  if (!draft.sources.length) throw new AppError("VALIDATION", "This run ran no query that returned evidence, so there is nothing to save as a guide.");
  const existing = await prisma.extractionGuide.findUnique({ where: { fromRunId: runId }, select: { id: true } });
  if (existing) throw new AppError("CONFLICT", "This run is already saved as a guide.");
  const corrections = edits.correction ? [{ runAnswer: draft.answer, correctAnswer: edits.correction }] : [];
  return createGuide(prisma, user, { ...draft, ...edits, answer: edits.correction ?? edits.answer ?? draft.answer, corrections });
}
