import type { AccessSubject } from "../../catalog/access";
import type { Prisma, PrismaClient } from "../../db/generated/client";
import { AppError } from "../../errors";
import type { TraceEventInput } from "../stage";
import type { ExecutedQuery, Intent } from "../contracts";
import type { GuideHit, RunOutcome } from "./types";

/**
 * What a run stores as it goes: its conversation, the run row (intent, then the outcome), the guides it
 * used, and its trace events in batches (TraceStore). Streaming and stage bookkeeping live in
 * stage-runner.ts; this module only writes.
 */

/** Earlier turns kept for completing a follow-up: the question and its intent. */
export type Turn = { question: string; intent: Intent };

const MAX_HISTORY = 20;
/** Evidence kept with the stored result (the answer's shape keeps its own rows). */
const STORED_EVIDENCE = 50;

/**
 * The conversation the run belongs to (a new one unless continuing the user's own), its earlier turns,
 * and the run row in RUNNING state.
 */
export async function openRun(
  prisma: PrismaClient,
  user: AccessSubject,
  question: string,
  conversationId: string | null,
  requestedKbIds: string[] | null,
): Promise<{ runId: string; conversationId: string; history: Turn[] }> {
  let history: Turn[] = [];
  let id = conversationId;
  if (id) {
    const conv = await prisma.conversation.findFirst({ where: { id, userId: user.id }, select: { id: true } });
    if (!conv) throw new AppError("NOT_FOUND", "That conversation does not exist or is not yours.");
    const prior = await prisma.run.findMany({
      where: { conversationId: id },
      orderBy: { createdAt: "asc" },
      select: { question: true, intent: true },
      take: MAX_HISTORY,
    });
    history = prior.filter((p) => p.intent).map((p) => ({ question: p.question, intent: p.intent as unknown as Intent }));
  } else {
    id = (await prisma.conversation.create({ data: { userId: user.id, title: question.slice(0, 120) } })).id;
  }
  await prisma.conversation.update({ where: { id }, data: { updatedAt: new Date() } });
  const run = await prisma.run.create({
    data: { userId: user.id, conversationId: id, question, requestedKbIds: requestedKbIds ?? [], status: "RUNNING", startedAt: new Date() },
    select: { id: true },
  });
  return { runId: run.id, conversationId: id, history };
}

export async function storeIntent(prisma: PrismaClient, runId: string, intent: Intent): Promise<void> {
  await prisma.run.update({ where: { id: runId }, data: { intent: intent as unknown as Prisma.InputJsonValue } });
}

export async function storeGuideUse(prisma: PrismaClient, runId: string, guides: GuideHit[]): Promise<void> {
  if (guides.length === 0) return;
  await prisma.runGuideUse.createMany({ data: guides.map((g) => ({ runId, guideId: g.guideId, score: g.score })), skipDuplicates: true });
}

/**
 * A guide whose query could not run (an engine error or a refusal: a renamed column, a dropped table) is
 * flagged with the reason; one whose query ran (with rows or without: an adapted query may find nothing
 * for other slot values, which says nothing about the guide) is cleared. A timeout or an unavailable
 * source says nothing about the guide either, so it changes nothing.
 */
export function guideHealthOf(queries: ExecutedQuery[]): Map<string, string | null> {
  const health = new Map<string, string | null>();
  for (const q of queries) {
    if (q.strategy !== "guide" || !q.guideId) continue;
    if (q.status === "ok" || q.status === "empty") {
      if (!health.has(q.guideId)) health.set(q.guideId, null);
    } else if (q.status === "error" || q.status === "refused") {
      // A failing query of a guide flags it even when another of its queries ran.
      health.set(q.guideId, brokenReasonOf(q.kbName, q.error));
    }
  }
  return health;
}

export function brokenReasonOf(kbName: string, error: string | undefined): string {
  return `Its query on ${kbName} no longer runs: ${(error ?? "the source refused it").slice(0, 400)}`;
}

/** Stores what a run learnt about its guides' queries (guideHealthOf); guides deleted meanwhile are skipped. */
export async function storeGuideHealth(prisma: PrismaClient, queries: ExecutedQuery[]): Promise<void> {
  const checkedAt = new Date();
  for (const [id, brokenReason] of guideHealthOf(queries))
    await prisma.extractionGuide.updateMany({ where: { id }, data: { brokenReason, checkedAt } });
}

/** The finished run: status, answer, timings and the whole outcome (its evidence cut to the first pieces). */
export async function storeOutcome(prisma: PrismaClient, outcome: RunOutcome): Promise<void> {
  const a = outcome.answer;
  await prisma.run.update({
    where: { id: outcome.runId },
    data: {
      status: outcome.status,
      answer: a.refrained ? null : a.text,
      refrained: a.refrained,
      certainty: a.refrained ? null : (a.certainty ?? null),
      refrainReason: a.reason,
      confidence: a.confidence,
      timings: { ...outcome.timings, total: outcome.totalMs } as Prisma.InputJsonValue,
      result: JSON.parse(JSON.stringify({ ...outcome, evidence: outcome.evidence.slice(0, STORED_EVIDENCE) })) as Prisma.InputJsonValue,
      error: outcome.status === "FAILED" ? a.reason : null,
      finishedAt: new Date(),
    },
  });
}

/** Trace events of one run, written in batches (after each stage and at the end). */
export class TraceStore {
  private readonly pending: Prisma.TraceEventCreateManyInput[] = [];

  constructor(
    private readonly prisma: PrismaClient,
    private readonly runId: string,
  ) {}

  add(seq: number, e: TraceEventInput): void {
    this.pending.push({
      runId: this.runId,
      seq,
      stage: e.stage,
      type: e.type,
      strategy: e.strategy ?? null,
      durationMs: e.durationMs === undefined ? null : Math.round(e.durationMs),
      summary: e.summary.slice(0, 2000),
      payload: (e.payload ?? {}) as Prisma.InputJsonValue,
      costUsd: e.costUsd ?? null,
    });
  }

  async flush(): Promise<void> {
    if (!this.pending.length) return;
    const batch = this.pending.splice(0, this.pending.length);
    await this.prisma.traceEvent.createMany({ data: batch });
  }
}
