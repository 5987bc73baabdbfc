import type { KbRecord } from "../backends/registry";
import type { KbKind, NativeQuery } from "../backends/types";
import { type AccessSubject, kbAccessWhere } from "../catalog/access";
import type { CatalogDeps } from "../deps";
import type { Prisma, PrismaClient } from "../db/generated/client";
import { AppError } from "../errors";
import { runReadWhere } from "../feedback/run-access";
import { runReadableWhere } from "../runs/access";
import type { RunStatusName } from "../runs/types";
import type { TextEmbeddings } from "../models/text-embeddings";
import type { Embedder } from "../models/types";
import { Bm25Index } from "./bm25";
import { accessibleKb, captureAction, parseActionFor } from "./execute-action";
import { cosine } from "./scorers/dense";
import { calibrated, catalogVectors } from "./stages/select/semantic";
import {
  type GuideActionInput,
  type GuideActionKind,
  type GuideDraftInput,
  type GuideDraftParsed,
  MAX_CONTEXT_CHARS,
  describeAction,
  guideActionSchema,
  guideDraftSchema,
  listGuidesSchema,
  parseGuideAction,
} from "./guide-actions";

export interface GuideHit {
  guideId: string;
  question: string;
  /** 0..1: BM25 of the new question against the guide's question, relative to the guide's own self-match. */
  score: number;
  kbIds: string[];
  /** The guide's native queries, as demonstrations and for adaptation. */
  examples: { kbId: string; sourceObject: string | null; query: NativeQuery }[];
  /** Every valid action with its KB (and the source object the analyst tied it to), executable directly. */
  actions: { kbId: string; sourceObjectId: string | null; sourceObjectKey: string | null; action: GuideActionInput }[];
  /** Actions that failed validation (a malformed guide): reported in the trace, skipped. */
  invalidActions: number;
}

const GUIDE_INCLUDE = {
  sources: {
    include: { actions: { orderBy: { position: "asc" } }, sourceObject: { select: { key: true } } },
    orderBy: { position: "asc" },
  },
} satisfies Prisma.ExtractionGuideInclude;

/**
 * Guides the user may use: every source of the guide must be in a KB they may use (a guide must not
 * leak a restricted KB's queries or contexts).
 */
export function guideAccessWhere(user: AccessSubject): Prisma.ExtractionGuideWhereInput {
  if (user.role === "ADMIN") return {};
  return { sources: { every: { kb: kbAccessWhere(user) } } };
}

/**
 * How close each guide's question is to this one, 0..1: BM25 relative to the guide's own self-match,
 * and with a sentence embedder the calibrated cosine of the two questions (a paraphrase shares few
 * words but says the same); the closer of the two counts.
 */
async function guideSimilarities(question: string, guideQuestions: string[], semantic: GuideSemantics | null): Promise<number[]> {
  const index = new Bm25Index(guideQuestions);
  const lexical = index.scores(question).map((s, i) => (s <= 0 ? 0 : Math.min(1, s / (index.scores(guideQuestions[i])[i] || 1))));
  if (!semantic) return lexical;
  try {
    const [[q], known] = await Promise.all([semantic.embedder.embed([question], "query"), catalogVectors(semantic.texts, guideQuestions)]);
    return lexical.map((l, i) => {
      const v = known.vectors[i];
      return v ? Math.max(l, calibrated(cosine(q, v))) : l;
    });
  } catch {
    // A failing model leaves guide retrieval lexical, as it was before models.
    return lexical;
  }
}

export interface GuideSemantics {
  embedder: Embedder;
  texts: TextEmbeddings;
}

/** AU-RAG's Think Tank: the guides whose questions are closest to this one. */
export async function findNearestGuides(
  prisma: PrismaClient,
  user: AccessSubject,
  question: string,
  kbIds: string[],
  limit = 3,
  minScore = 0.2,
  semantic: GuideSemantics | null = null,
): Promise<GuideHit[]> {
  const guides = await prisma.extractionGuide.findMany({
    where: { AND: [guideAccessWhere(user), { sources: { some: { kbId: { in: kbIds } } } }] },
    include: GUIDE_INCLUDE,
    take: 5000,
  });
  if (!guides.length) return [];
  const scores = await guideSimilarities(
    question,
    guides.map((g) => g.question),
    semantic,
  );
  const hits: GuideHit[] = [];
  scores.forEach((score, i) => {
    if (score <= 0 || score < minScore) return;
    const g = guides[i];
    let invalid = 0;
    const actions: GuideHit["actions"] = [];
    for (const src of g.sources) {
      if (!kbIds.includes(src.kbId)) continue;
      for (const a of src.actions) {
        const parsed = parseGuideAction(a.kind, a.params);
        if (parsed)
          actions.push({
            kbId: src.kbId,
            sourceObjectId: src.sourceObjectId,
            sourceObjectKey: src.sourceObject?.key ?? null,
            action: parsed,
          });
        else invalid++;
      }
    }
    hits.push({
      guideId: g.id,
      question: g.question,
      score,
      kbIds: [...new Set(g.sources.map((s) => s.kbId))],
      examples: actions.flatMap((a) =>
        a.action.kind === "NATIVE_QUERY" ? [{ kbId: a.kbId, sourceObject: a.sourceObjectKey, query: a.action.params.query }] : [],
      ),
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
  sources: { kbId: string; sourceObjectId?: string | null; actions: { kind: GuideActionKind; params: unknown; context?: string }[] }[];
}

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

interface StoredRunResult {
  question: string;
  answer: { text: string; refrained: boolean; citations: string[] };
  queries: { kbId: string; query: NativeQuery; status: string; evidenceIds: string[]; sourceObject: string | null }[];
  evidence: { piece: { id: string; text: string } }[];
}

/**
 * A run often finds the same cited evidence twice (a collection-wide search and the same search inside
 * one table): a guide needs it once. Queries tied to a source object are preferred as more specific; a
 * query is dropped when another query of its KB already covers all the evidence it contributed.
 */
function withoutRedundantQueries<Q extends { kbId: string; sourceObject: string | null; evidenceIds: string[] }>(
  queries: Q[],
  cited: Set<string>,
): Q[] {
  const ranked = queries
    .map((q, i) => ({ q, i, ids: q.evidenceIds.filter((id) => cited.has(id)) }))
    .sort((a, b) => Number(!!b.q.sourceObject) - Number(!!a.q.sourceObject) || b.ids.length - a.ids.length || a.i - b.i);
  const kept: typeof ranked = [];
  for (const r of ranked) {
    const covered = kept.some((k) => k.q.kbId === r.q.kbId && r.ids.every((id) => k.ids.includes(id)));
    if (!covered) kept.push(r);
  }
  return kept.sort((a, b) => a.i - b.i).map((k) => k.q);
}

/**
 * "Save this run as a guide" (AU-RAG): the question, the answer (or an analyst's correction), and per KB
 * the native queries that produced cited evidence, each with the context it retrieved. The draft can be
 * edited before saving; corrections are kept as few-shot examples for the critic.
 */
export async function guideDraftFromRun(prisma: PrismaClient, user: AccessSubject, runId: string): Promise<GuideDraft> {
  const run = await prisma.run.findFirst({
    where: { AND: [{ id: runId }, await runReadWhere(prisma, user)] },
    select: { id: true, question: true, result: true },
  });
  if (!run?.result) throw new AppError("NOT_FOUND", "That run does not exist, is outside your access, or has no result to save.");
  const result = run.result as unknown as StoredRunResult;
  const cited = new Set(result.answer.citations);
  const textOf = new Map(result.evidence.map((e) => [e.piece.id, e.piece.text]));
  const useful = withoutRedundantQueries(
    result.queries.filter((q) => q.status === "ok" && q.evidenceIds.some((id) => cited.has(id))),
    cited,
  );
  const chosen = useful.length ? useful : result.queries.filter((q) => q.status === "ok").slice(0, 1);
  const byKb = new Map<string, GuideDraft["sources"][number]>();
  for (const q of chosen) {
    const source = byKb.get(q.kbId) ?? { kbId: q.kbId, sourceObjectId: null, actions: [] };
    const context = q.evidenceIds
      .filter((id) => cited.has(id) || !useful.length)
      .map((id) => textOf.get(id))
      .filter(Boolean)
      .slice(0, 10)
      .join("\n");
    source.actions.push({ kind: "NATIVE_QUERY", params: { query: q.query }, context });
    byKb.set(q.kbId, source);
  }
  for (const source of byKb.values()) {
    const q = chosen.find((c) => c.kbId === source.kbId && c.sourceObject);
    if (q?.sourceObject) {
      const so = await prisma.sourceObject.findUnique({
        where: { kbId_key: { kbId: source.kbId, key: q.sourceObject } },
        select: { id: true },
      });
      source.sourceObjectId = so?.id ?? null;
    }
  }
  return {
    question: run.question,
    answer: result.answer.refrained ? null : result.answer.text,
    fromRunId: run.id,
    sources: [...byKb.values()],
  };
}

export async function saveRunAsGuide(
  prisma: PrismaClient,
  user: AccessSubject,
  runId: string,
  edits: Partial<Pick<GuideDraft, "question" | "answer" | "notes">> & { correction?: string } = {},
) {
  const draft = await guideDraftFromRun(prisma, user, runId);
  if (!draft.sources.length)
    throw new AppError("VALIDATION", "This run ran no query that returned evidence, so there is nothing to save as a guide.");
  const existing = await prisma.extractionGuide.findUnique({ where: { fromRunId: runId }, select: { id: true } });
  if (existing) throw new AppError("CONFLICT", "This run is already saved as a guide.");
  const corrections = edits.correction ? [{ runAnswer: draft.answer, correctAnswer: edits.correction }] : [];
  return createGuide(prisma, user, { ...draft, ...edits, answer: edits.correction ?? edits.answer ?? draft.answer, corrections });
}

// ---------------------------------------------------------------------------------------------
// Analysts' guide library: list and search, read with the runs a guide helped, author, edit, delete.

export interface GuideListRow {
  id: string;
  question: string;
  answer: string | null;
  kbs: { id: string; name: string }[];
  actionKinds: GuideActionKind[];
  actions: number;
  helpedRuns: number;
  fromRunId: string | null;
  createdBy: string | null;
  updatedAt: string;
}

const LIST_SELECT = {
  id: true,
  question: true,
  answer: true,
  fromRunId: true,
  updatedAt: true,
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
    };
  });
}

export interface GuideCorrection {
  runAnswer?: string | null;
  correctAnswer: string;
  feedbackId?: string;
  comment?: string | null;
}

export interface GuideDetail {
  id: string;
  question: string;
  answer: string | null;
  notes: string;
  corrections: GuideCorrection[];
  fromRunId: string | null;
  createdBy: string | null;
  createdAt: string;
  updatedAt: string;
  sources: {
    kbId: string;
    kbName: string;
    kbKind: KbKind;
    sourceObject: { id: string; name: string; key: string } | null;
    actions: { kind: GuideActionKind; params: unknown; context: string; description: string | null }[];
  }[];
  helped: {
    /** Every run the guide was retrieved for, including runs outside the reader's access. */
    total: number;
    runs: { runId: string; question: string; status: RunStatusName; score: number; askedBy: string; createdAt: string }[];
  };
  resolvedReports: number;
}

async function findVisibleGuide(prisma: PrismaClient, user: AccessSubject, id: string) {
  const g = await prisma.extractionGuide.findFirst({
    where: { AND: [{ id }, guideAccessWhere(user)] },
    select: { id: true, fromRunId: true },
  });
  if (!g) throw new AppError("NOT_FOUND", "That guide does not exist or uses a knowledge base that is not shared with you.");
  return g;
}

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

/** The editor's starting point for an existing guide. */
export function draftOfGuide(g: GuideDetail): GuideDraftInput {
  return {
    question: g.question,
    answer: g.answer,
    notes: g.notes,
    fromRunId: g.fromRunId,
    sources: g.sources.map((s) => ({
      kbId: s.kbId,
      sourceObjectId: s.sourceObject?.id ?? null,
      actions: s.actions.map((a) => ({ kind: a.kind, params: a.params, context: a.context })),
    })),
  };
}

/** Validates an editor's draft; problems come back as one VALIDATION error with a message per field path ("sources.0.actions"). */
export function parseGuideDraft(raw: unknown): GuideDraftParsed {
  const parsed = guideDraftSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const fields: Record<string, string> = {};
  for (const issue of parsed.error.issues) fields[issue.path.join(".") || "draft"] ??= issue.message;
  throw new AppError("VALIDATION", Object.values(fields)[0] ?? "The guide is incomplete.", fields);
}

type AuthoredSource = {
  kbId: string;
  sourceObjectId: string | null;
  actions: { kind: GuideActionKind; params: Prisma.InputJsonValue; context: string }[];
};

/**
 * Checks a draft against the data and captures its contexts: every KB must be one the author may use,
 * every source object must belong to its KB, and every action runs once now (the backends' safety
 * rules apply), so a guide never stores an action that is refused or fails. A context the editor
 * already captured (or took from the run the guide came from) is kept; a missing one is what the
 * action returns now. All problems are reported together, each under the field it belongs to.
 */
export async function prepareGuideDraft(
  prisma: PrismaClient,
  deps: CatalogDeps,
  user: AccessSubject,
  draft: GuideDraftParsed,
  signal?: AbortSignal,
): Promise<AuthoredSource[]> {
  const fields: Record<string, string> = {};
  const out: AuthoredSource[] = [];
  for (const [i, source] of draft.sources.entries()) {
    let kb: KbRecord;
    try {
      kb = await accessibleKb(prisma, user, source.kbId);
    } catch (e) {
      fields[`sources.${i}.kbId`] = (e as Error).message;
      continue;
    }
    if (source.sourceObjectId) {
      const so = await prisma.sourceObject.findFirst({ where: { id: source.sourceObjectId, kbId: kb.id }, select: { id: true } });
      if (!so) fields[`sources.${i}.sourceObjectId`] = `That source object is not part of ${kb.name}.`;
    }
    const actions: AuthoredSource["actions"] = [];
    for (const [j, raw] of source.actions.entries()) {
      const key = `sources.${i}.actions.${j}`;
      try {
        const captured = await captureAction(kb, parseActionFor(kb, raw), deps, signal);
        const given = raw.context.trim();
        // The stored action is the one that ran (SelectCoordinates on SQL is stored as its query).
        actions.push({
          kind: captured.action.kind,
          params: captured.action.params as Prisma.InputJsonValue,
          context: given ? given.slice(0, MAX_CONTEXT_CHARS) : captured.context,
        });
      } catch (e) {
        fields[key] = e instanceof AppError ? e.message : `The action could not run: ${(e as Error).message}`;
      }
    }
    out.push({ kbId: kb.id, sourceObjectId: source.sourceObjectId, actions });
  }
  const problems = Object.keys(fields).length;
  if (problems) {
    const first = Object.values(fields)[0];
    throw new AppError(
      "VALIDATION",
      problems === 1 ? `The guide cannot be saved: ${first}` : `The guide cannot be saved: ${problems} problems, the first: ${first}`,
      fields,
    );
  }
  return out;
}

function sourcesCreate(sources: AuthoredSource[]): Prisma.GuideSourceCreateWithoutGuideInput[] {
  return sources.map((s, position) => ({
    position,
    kb: { connect: { id: s.kbId } },
    ...(s.sourceObjectId ? { sourceObject: { connect: { id: s.sourceObjectId } } } : {}),
    actions: { create: s.actions.map((a, i) => ({ position: i, kind: a.kind, params: a.params, context: a.context })) },
  }));
}

async function checkRunForGuide(prisma: PrismaClient | Prisma.TransactionClient, user: AccessSubject, runId: string) {
  const run = await prisma.run.findFirst({
    where: { AND: [{ id: runId }, await runReadWhere(prisma as PrismaClient, user)] },
    select: { id: true, savedAsGuide: { select: { id: true, question: true } } },
  });
  if (!run)
    throw new AppError("NOT_FOUND", "The run this guide comes from does not exist or is outside your access.", {
      fromRunId: "Unknown run.",
    });
  if (run.savedAsGuide)
    throw new AppError(
      "CONFLICT",
      `This run is already saved as the guide "${run.savedAsGuide.question.slice(0, 80)}". Edit that guide instead.`,
      { fromRunId: run.savedAsGuide.id },
    );
}

/**
 * Writes an analyst's guide (new, or replacing an existing one's content). `tx` lets a caller do more
 * in the same transaction (resolving a feedback report with the new guide).
 */
export async function saveGuide(
  prisma: PrismaClient,
  deps: CatalogDeps,
  user: AccessSubject,
  raw: unknown,
  opts: {
    guideId?: string;
    corrections?: GuideCorrection[];
    then?: (tx: Prisma.TransactionClient, guideId: string) => Promise<void>;
    signal?: AbortSignal;
  } = {},
): Promise<{ id: string }> {
  const draft = parseGuideDraft(raw);
  const existing = opts.guideId ? await findVisibleGuide(prisma, user, opts.guideId) : null;
  if (!existing && draft.fromRunId) await checkRunForGuide(prisma, user, draft.fromRunId);
  const sources = await prepareGuideDraft(prisma, deps, user, draft, opts.signal);
  return prisma.$transaction(async (tx) => {
    let id: string;
    if (existing) {
      await tx.guideSource.deleteMany({ where: { guideId: existing.id } });
      await tx.extractionGuide.update({
        where: { id: existing.id },
        data: {
          question: draft.question,
          answer: draft.answer,
          notes: draft.notes,
          ...(opts.corrections ? { corrections: opts.corrections as unknown as Prisma.InputJsonValue } : {}),
          sources: { create: sourcesCreate(sources) },
        },
      });
      id = existing.id;
    } else {
      const created = await tx.extractionGuide.create({
        data: {
          question: draft.question,
          answer: draft.answer,
          notes: draft.notes,
          corrections: (opts.corrections ?? []) as unknown as Prisma.InputJsonValue,
          fromRunId: draft.fromRunId,
          createdById: user.id,
          sources: { create: sourcesCreate(sources) },
        },
        select: { id: true },
      });
      id = created.id;
    }
    await opts.then?.(tx, id);
    return { id };
  });
}

export async function deleteGuide(prisma: PrismaClient, user: AccessSubject, id: string): Promise<void> {
  await findVisibleGuide(prisma, user, id);
  // Runs keep their stored results; RunGuideUse rows go with the guide, and resolved reports keep their status.
  await prisma.extractionGuide.delete({ where: { id } });
}
