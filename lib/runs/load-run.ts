import { type AccessSubject, kbAccessWhere } from "../catalog/access";
import { Prisma, type PrismaClient } from "../db/generated/client";
import { AppError } from "../errors";
import { type AnswerShape, answerShapeSchema } from "../pipeline/contracts";
import type { RunOutcome } from "../pipeline/run/types";
import { runReadableWhere } from "./access";
import { redactOutcome } from "./redact";
import { turnOutcome } from "./turn-outcome";
import type { FeedbackView, RunStatusName, RunView, TraceEventView, TurnView } from "./types";

/** The KB ids a person may use now; admins may use every KB (null = no restriction). */
export async function usableKbIds(prisma: PrismaClient, user: AccessSubject): Promise<Set<string> | null> {
  if (user.role === "ADMIN") return null;
  const rows = await prisma.knowledgeBase.findMany({ where: kbAccessWhere(user), select: { id: true } });
  return new Set(rows.map((r) => r.id));
}

/** Stored results are the pipeline's own JSON; older or interrupted runs may lack newer fields. */
export function normalizeOutcome(raw: unknown): RunOutcome | null {
  if (!raw || typeof raw !== "object") return null;
  const o = raw as Partial<RunOutcome>;
  if (!o.answer || typeof o.answer !== "object") return null;
  return {
    runId: o.runId ?? "",
    conversationId: o.conversationId ?? "",
    status: o.status ?? "FAILED",
    question: o.question ?? "",
    intent: o.intent ?? null,
    answer: { ...o.answer, citations: o.answer.citations ?? [], candidates: o.answer.candidates ?? [] },
    candidates: o.candidates ?? [],
    queries: o.queries ?? [],
    evidence: o.evidence ?? [],
    winner: o.winner ?? null,
    iterations: o.iterations ?? [],
    guides: o.guides ?? [],
    timings: o.timings ?? {},
    trace: o.trace ?? [],
    degradations: o.degradations ?? [],
    totalMs: o.totalMs ?? 0,
    llm: o.llm ?? null,
  };
}

export function feedbackView(f: {
  id: string;
  verdict: "HELPFUL" | "WRONG";
  correctAnswer: string | null;
  comment: string | null;
  status: "OPEN" | "RESOLVED";
  createdAt: Date;
}): FeedbackView {
  return {
    id: f.id,
    verdict: f.verdict,
    correctAnswer: f.correctAnswer,
    comment: f.comment,
    status: f.status,
    createdAt: f.createdAt.toISOString(),
  };
}

export const TURN_SELECT = {
  id: true,
  question: true,
  status: true,
  answer: true,
  refrained: true,
  certainty: true,
  refrainReason: true,
  confidence: true,
  createdAt: true,
  conversationId: true,
} as const;

export function turnView(
  r: {
    id: string;
    question: string;
    status: RunStatusName;
    answer: string | null;
    refrained: boolean;
    certainty: string | null;
    refrainReason: string | null;
    confidence: number | null;
    createdAt: Date;
    conversationId: string | null;
  },
  shape: AnswerShape | null = null,
): TurnView {
  return {
    id: r.id,
    question: r.question,
    status: r.status,
    answer: r.answer,
    shape,
    outcome: turnOutcome(r),
    refrainReason: r.refrainReason,
    confidence: r.confidence,
    createdAt: r.createdAt.toISOString(),
    conversationId: r.conversationId,
  };
}

/**
 * The answer shapes of these runs, read out of their stored outcomes by the database so that a list of
 * turns does not load every outcome's evidence and trace. A shape that no longer parses is left out: the
 * screen then shows the stored answer text.
 */
export async function answerShapes(prisma: PrismaClient, runIds: string[]): Promise<Map<string, AnswerShape>> {
  if (runIds.length === 0) return new Map();
  const rows = await prisma.$queryRaw<{ id: string; shape: unknown }[]>`
    SELECT id, result -> 'answer' -> 'shape' AS shape FROM "Run"
    WHERE id IN (${Prisma.join(runIds)}) AND jsonb_typeof(result -> 'answer' -> 'shape') = 'object'`;
  const shapes = new Map<string, AnswerShape>();
  for (const r of rows) {
    const parsed = answerShapeSchema.safeParse(typeof r.shape === "string" ? JSON.parse(r.shape) : r.shape);
    if (parsed.success) shapes.set(r.id, parsed.data);
  }
  return shapes;
}

/**
 * Reopens a stored run as it was, for the person asking: the whole outcome (answer, evidence, refinement
 * path, candidates), the stored trace and the viewer's own feedback. Refused (NOT_FOUND, so ids cannot be
 * probed) unless the viewer may read the run; cut to the KBs the viewer may use now.
 */
export async function loadRunView(prisma: PrismaClient, user: AccessSubject, runId: string): Promise<RunView> {
  const run = await prisma.run.findFirst({
    where: { AND: [{ id: runId }, runReadableWhere(user)] },
    select: {
      id: true,
      userId: true,
      question: true,
      status: true,
      createdAt: true,
      finishedAt: true,
      conversationId: true,
      requestedKbIds: true,
      result: true,
      user: { select: { name: true } },
      traceEvents: {
        orderBy: { seq: "asc" },
        select: { seq: true, stage: true, type: true, strategy: true, durationMs: true, summary: true },
      },
      feedback: {
        where: { userId: user.id },
        orderBy: { createdAt: "desc" },
        take: 1,
        select: { id: true, verdict: true, correctAnswer: true, comment: true, status: true, createdAt: true },
      },
    },
  });
  if (!run) throw new AppError("NOT_FOUND", "That run does not exist or you may not open it.");

  const usable = await usableKbIds(prisma, user);
  const canUse = (kbId: string) => usable === null || usable.has(kbId);
  const stored = normalizeOutcome(run.result);
  let outcome: RunOutcome | null = stored;
  let hidden: RunView["hidden"] = null;
  if (stored) {
    ({ outcome, hidden } = redactOutcome(stored, canUse, run.requestedKbIds));
  } else if (run.requestedKbIds.some((id) => !canUse(id))) {
    hidden = { wholeResult: true, entityLinks: 0 };
  }
  // Trace summaries quote answers, KB names and linked labels: withheld with the result they describe.
  const trace: TraceEventView[] = run.traceEvents.map((e) => ({
    ...e,
    summary: hidden?.wholeResult || (hidden?.entityLinks && e.stage === "understand") ? "" : e.summary,
  }));
  const laterTurns =
    run.conversationId && run.userId === user.id
      ? await prisma.run.count({ where: { conversationId: run.conversationId, userId: user.id, createdAt: { gt: run.createdAt } } })
      : 0;
  return {
    id: run.id,
    question: run.question,
    status: run.status,
    createdAt: run.createdAt.toISOString(),
    finishedAt: run.finishedAt?.toISOString() ?? null,
    conversationId: run.userId === user.id ? run.conversationId : null,
    viewerIsOwner: run.userId === user.id,
    ownerName: run.user.name,
    outcome,
    trace,
    hidden,
    feedback: run.feedback[0] ? feedbackView(run.feedback[0]) : null,
    laterTurns,
  };
}

/**
 * The earlier questions of a conversation (the thread shown above the current run). Only the owner's
 * conversations; `before` limits it to the turns asked before a given run.
 */
export async function conversationTurns(
  prisma: PrismaClient,
  user: AccessSubject,
  conversationId: string,
  before?: { runId: string },
): Promise<TurnView[]> {
  const conv = await prisma.conversation.findFirst({ where: { id: conversationId, userId: user.id }, select: { id: true } });
  if (!conv) throw new AppError("NOT_FOUND", "That conversation does not exist or is not yours.");
  let createdBefore: Date | undefined;
  if (before) {
    const anchor = await prisma.run.findFirst({
      where: { id: before.runId, conversationId, userId: user.id },
      select: { createdAt: true },
    });
    createdBefore = anchor?.createdAt;
  }
  const rows = await prisma.run.findMany({
    where: { conversationId, userId: user.id, ...(createdBefore ? { createdAt: { lt: createdBefore } } : {}) },
    orderBy: { createdAt: "asc" },
    select: TURN_SELECT,
    take: 200,
  });
  const shapes = await answerShapes(
    prisma,
    rows.map((r) => r.id),
  );
  return rows.map((r) => turnView(r, shapes.get(r.id) ?? null));
}
