import type { z } from "zod";
import { Prisma, type PrismaClient } from "../db/generated/client";
import type { JobDefinition } from "./define";

/**
 * Putting work on the queue and reading it back. A job with an `activeKey` is unique while it is
 * unfinished (a unique column cleared when the job ends): enqueueing the same work again returns the
 * job already waiting, or, when that job is running, asks it to run once more when it finishes (new
 * documents arrived while a collection was being embedded), so no request is lost and none doubled.
 */

export interface EnqueueOptions {
  /** One unfinished job per key, e.g. "documents.embed:<kbId>". */
  activeKey?: string;
  kbId?: string;
  runAfter?: Date;
  message?: string;
}

export interface EnqueueResult {
  id: string;
  /** False when an unfinished job with the same key already existed. */
  created: boolean;
}

export async function enqueueJob<S extends z.ZodType>(
  prisma: PrismaClient,
  definition: JobDefinition<S>,
  payload: z.infer<S>,
  opts: EnqueueOptions = {},
): Promise<EnqueueResult> {
  const checked = definition.payload.parse(payload) as Prisma.InputJsonValue;
  for (let tries = 0; tries < 3; tries++) {
    if (opts.activeKey) {
      const existing = await prisma.job.findUnique({ where: { activeKey: opts.activeKey }, select: { id: true, status: true } });
      if (existing) {
        if (existing.status === "RUNNING")
          await prisma.job.updateMany({ where: { id: existing.id, status: "RUNNING" }, data: { rerun: true } });
        return { id: existing.id, created: false };
      }
    }
    try {
      const job = await prisma.job.create({
        data: {
          kind: definition.id,
          payload: checked,
          activeKey: opts.activeKey ?? null,
          kbId: opts.kbId ?? null,
          maxAttempts: definition.maxAttempts,
          runAfter: opts.runAfter ?? new Date(),
          message: opts.message ?? "Waiting to start.",
        },
        select: { id: true },
      });
      wakeListeners.forEach((wake) => wake());
      return { id: job.id, created: true };
    } catch (e) {
      // Another caller created it between the lookup and the insert: read theirs.
      if (opts.activeKey && e instanceof Prisma.PrismaClientKnownRequestError && e.code === "P2002") continue;
      throw e;
    }
  }
  throw new Error(`Could not enqueue ${definition.id}: the job key ${opts.activeKey} kept changing.`);
}

// Processors in this process poll at once when work is added here, instead of at their next tick.
const wakeListeners = new Set<() => void>();

export function onJobEnqueued(listener: () => void): () => void {
  wakeListeners.add(listener);
  return () => wakeListeners.delete(listener);
}

export interface JobView {
  id: string;
  kind: string;
  /** The knowledge base the job works on, or null for workspace-wide work. */
  kbId: string | null;
  status: "QUEUED" | "RUNNING" | "SUCCEEDED" | "FAILED" | "CANCELLED";
  progressDone: number;
  progressTotal: number | null;
  message: string;
  error: string | null;
  attempts: number;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
}

const VIEW_SELECT = {
  id: true,
  kind: true,
  kbId: true,
  status: true,
  progressDone: true,
  progressTotal: true,
  message: true,
  error: true,
  attempts: true,
  createdAt: true,
  startedAt: true,
  finishedAt: true,
} satisfies Prisma.JobSelect;

function toView(j: Prisma.JobGetPayload<{ select: typeof VIEW_SELECT }>): JobView {
  return {
    ...j,
    createdAt: j.createdAt.toISOString(),
    startedAt: j.startedAt?.toISOString() ?? null,
    finishedAt: j.finishedAt?.toISOString() ?? null,
  };
}

/** The latest job of each kind for a KB (its page shows them). */
export async function latestJobsOfKb(prisma: PrismaClient, kbId: string): Promise<JobView[]> {
  const rows = await prisma.job.findMany({ where: { kbId }, orderBy: { createdAt: "desc" }, take: 20, select: VIEW_SELECT });
  const seen = new Set<string>();
  return rows.filter((r) => !seen.has(r.kind) && seen.add(r.kind)).map(toView);
}

/** The latest job of a kind (a workspace-wide job such as the benchmark catalog load). */
export async function latestJobOfKind(prisma: PrismaClient, kind: string): Promise<JobView | null> {
  const row = await prisma.job.findFirst({ where: { kind }, orderBy: { createdAt: "desc" }, select: VIEW_SELECT });
  return row ? toView(row) : null;
}

export async function getJob(prisma: PrismaClient, id: string): Promise<JobView | null> {
  const row = await prisma.job.findUnique({ where: { id }, select: VIEW_SELECT });
  return row ? toView(row) : null;
}

/** Cancels an unfinished job; a running handler stops at its next progress report. */
export async function cancelJob(prisma: PrismaClient, id: string, reason = "Cancelled."): Promise<boolean> {
  const r = await prisma.job.updateMany({
    where: { id, status: { in: ["QUEUED", "RUNNING"] } },
    data: { status: "CANCELLED", activeKey: null, rerun: false, message: reason, finishedAt: new Date(), lockedBy: null },
  });
  return r.count > 0;
}
