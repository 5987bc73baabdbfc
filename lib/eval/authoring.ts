import type { AccessSubject } from "../catalog/access";
import { kbAccessWhere } from "../catalog/access";
import { Prisma, type PrismaClient } from "../db/generated/client";
import { AppError } from "../errors";
import { guideAccessWhere } from "../guides/access";
import { type CreateSuiteInput, createSuiteSchema } from "./eval.validation";

/**
 * Suites authored in the workspace from what analysts already curate: extraction guides (a question,
 * its answer and the KBs that answered it) and resolved feedback (a question and the answer that is
 * right: the corrected answer of a "wrong" report, or the answer a user confirmed as helpful). The
 * server reads the guide or feedback itself: gold never comes from the browser.
 */

export interface GuideSourceItem {
  id: string;
  question: string;
  answer: string | null;
  kbIds: string[];
  kbNames: string[];
}

export interface FeedbackSourceItem {
  id: string;
  question: string;
  verdict: "HELPFUL" | "WRONG";
  /** The answer that is right: the correction for WRONG, the run's answer for HELPFUL. */
  answer: string | null;
  kbIds: string[];
  kbNames: string[];
  resolvedAt: string | null;
}

interface RunResultShape {
  winner?: { kbId?: string } | null;
}

async function accessibleIds(prisma: PrismaClient, viewer: AccessSubject): Promise<Map<string, string>> {
  return new Map(
    (await prisma.knowledgeBase.findMany({ where: kbAccessWhere(viewer), select: { id: true, name: true } })).map((k) => [k.id, k.name]),
  );
}

async function guideItems(
  prisma: PrismaClient,
  viewer: AccessSubject,
  kbs: Map<string, string>,
  ids?: string[],
): Promise<GuideSourceItem[]> {
  const guides = await prisma.extractionGuide.findMany({
    where: { AND: [guideAccessWhere(viewer), ids ? { id: { in: ids } } : {}] },
    orderBy: { updatedAt: "desc" },
    take: ids ? undefined : 500,
    select: { id: true, question: true, answer: true, sources: { select: { kbId: true } } },
  });
  return guides.map((g) => {
    const kbIds = [...new Set(g.sources.map((s) => s.kbId))].filter((id) => kbs.has(id));
    return { id: g.id, question: g.question, answer: g.answer, kbIds, kbNames: kbIds.map((id) => kbs.get(id)!) };
  });
}

async function feedbackItems(prisma: PrismaClient, kbs: Map<string, string>, ids?: string[]): Promise<FeedbackSourceItem[]> {
  const rows = await prisma.feedback.findMany({
    where: { status: "RESOLVED", ...(ids ? { id: { in: ids } } : {}) },
    orderBy: { resolvedAt: "desc" },
    take: ids ? undefined : 500,
    select: {
      id: true,
      verdict: true,
      correctAnswer: true,
      resolvedAt: true,
      run: { select: { question: true, answer: true, result: true } },
      resolvedGuide: { select: { sources: { select: { kbId: true } } } },
    },
  });
  const out: FeedbackSourceItem[] = [];
  for (const f of rows) {
    const answer = f.verdict === "WRONG" ? f.correctAnswer?.trim() || null : f.run.answer;
    // The KBs that hold the answer: the guide the feedback was resolved into, else (for a confirmed answer) the run's winner.
    const winner = (f.run.result as RunResultShape | null)?.winner?.kbId;
    const gold = f.resolvedGuide?.sources.map((s) => s.kbId) ?? (f.verdict === "HELPFUL" && winner ? [winner] : []);
    const sourceKbs = [...new Set(gold)];
    // Content from a KB the viewer may not use stays hidden.
    if (sourceKbs.some((id) => !kbs.has(id))) continue;
    if (!sourceKbs.length && winner && !kbs.has(winner)) continue;
    out.push({
      id: f.id,
      question: f.run.question,
      verdict: f.verdict,
      answer,
      kbIds: sourceKbs,
      kbNames: sourceKbs.map((id) => kbs.get(id)!),
      resolvedAt: f.resolvedAt?.toISOString() ?? null,
    });
  }
  return out;
}

export async function listAuthoringSources(
  prisma: PrismaClient,
  viewer: AccessSubject,
): Promise<{ guides: GuideSourceItem[]; feedback: FeedbackSourceItem[] }> {
  const kbs = await accessibleIds(prisma, viewer);
  const [guides, feedback] = await Promise.all([guideItems(prisma, viewer, kbs), feedbackItems(prisma, kbs)]);
  return { guides, feedback };
}

export interface AuthoredSuite {
  id: string;
  name: string;
  description: string;
  questions: number;
  createdAt: string;
  canDelete: boolean;
}

/** Authored suites whose gold KBs the viewer may all use (or that the viewer wrote). */
export async function listAuthoredSuites(prisma: PrismaClient, viewer: AccessSubject): Promise<AuthoredSuite[]> {
  const kbs = await accessibleIds(prisma, viewer);
  const suites = await prisma.evalSuite.findMany({
    orderBy: { createdAt: "desc" },
    select: { id: true, name: true, description: true, createdAt: true, createdById: true, questions: { select: { goldKbIds: true } } },
  });
  return suites
    .filter(
      (s) => viewer.role === "ADMIN" || s.createdById === viewer.id || s.questions.every((q) => q.goldKbIds.every((id) => kbs.has(id))),
    )
    .map((s) => ({
      id: s.id,
      name: s.name,
      description: s.description,
      questions: s.questions.length,
      createdAt: s.createdAt.toISOString(),
      canDelete: viewer.role === "ADMIN" || s.createdById === viewer.id,
    }));
}

export async function createAuthoredSuite(
  prisma: PrismaClient,
  viewer: AccessSubject,
  raw: CreateSuiteInput,
): Promise<{ id: string; questions: number; skipped: string[] }> {
  const input = createSuiteSchema.parse(raw);
  const kbs = await accessibleIds(prisma, viewer);
  const guideIds = input.items.filter((i) => i.kind === "guide").map((i) => i.id);
  const feedbackIds = input.items.filter((i) => i.kind === "feedback").map((i) => i.id);
  const guides = new Map((await guideItems(prisma, viewer, kbs, guideIds)).map((g) => [g.id, g]));
  const feedback = new Map((await feedbackItems(prisma, kbs, feedbackIds)).map((f) => [f.id, f]));
  const skipped: string[] = [];
  const questions: Prisma.EvalQuestionCreateWithoutSuiteInput[] = [];
  for (const item of input.items) {
    if (item.kind === "guide") {
      const g = guides.get(item.id);
      if (!g) throw new AppError("NOT_FOUND", "One of the chosen guides no longer exists or is not shared with you.");
      if (!g.answer?.trim()) {
        skipped.push(`Guide "${g.question.slice(0, 80)}" has no answer to check against.`);
        continue;
      }
      questions.push({
        position: questions.length,
        question: g.question,
        goldAnswers: [g.answer.trim()],
        goldKbIds: g.kbIds,
        origin: "guide",
        originId: g.id,
      });
    } else if (item.kind === "feedback") {
      const f = feedback.get(item.id);
      if (!f)
        throw new AppError(
          "NOT_FOUND",
          "One of the chosen feedback items is not resolved, no longer exists, or is about a knowledge base you cannot use.",
        );
      if (!f.answer) {
        skipped.push(`Feedback on "${f.question.slice(0, 80)}" has no corrected answer.`);
        continue;
      }
      questions.push({
        position: questions.length,
        question: f.question,
        goldAnswers: [f.answer],
        goldKbIds: f.kbIds,
        origin: "feedback",
        originId: f.id,
      });
    } else {
      const unknown = item.kbIds.filter((id) => !kbs.has(id));
      if (unknown.length) throw new AppError("VALIDATION", "One of the chosen knowledge bases does not exist or is not shared with you.");
      questions.push({
        position: questions.length,
        question: item.question,
        goldAnswers: item.unanswerable ? [] : item.answers,
        goldKbIds: item.kbIds,
        unanswerable: item.unanswerable,
        origin: "manual",
      });
    }
  }
  if (!questions.length) throw new AppError("VALIDATION", `None of the chosen items has an answer to check against. ${skipped.join(" ")}`);
  try {
    const suite = await prisma.evalSuite.create({
      data: { name: input.name, description: input.description, createdById: viewer.id, questions: { create: questions } },
      select: { id: true },
    });
    return { id: suite.id, questions: questions.length, skipped };
  } catch (e) {
    if (e instanceof Prisma.PrismaClientKnownRequestError && e.code === "P2002") {
      throw new AppError("CONFLICT", `A suite named "${input.name}" already exists.`, { name: "This name is taken." });
    }
    throw e;
  }
}

export async function deleteAuthoredSuite(prisma: PrismaClient, viewer: AccessSubject, id: string): Promise<void> {
  const suite = await prisma.evalSuite.findUnique({ where: { id }, select: { createdById: true } });
  if (!suite) throw new AppError("NOT_FOUND", "That suite does not exist.");
  if (viewer.role !== "ADMIN" && suite.createdById !== viewer.id)
    throw new AppError("FORBIDDEN", "Only the suite's author or an admin may delete it.");
  await prisma.evalSuite.delete({ where: { id } });
}
