import type { AccessSubject } from "../catalog/access";
import type { CatalogDeps } from "../deps";
import type { PrismaClient } from "../db/generated/client";
import { AppError } from "../errors";
import { log } from "../log";
import { executeEvalRun, openReport, planEvalRun, type EvalRunParams } from "./runner";

/**
 * Evaluation runs started from the browser run inside the server process, in the background: the
 * request returns the report id at once and the dashboard polls the report row for progress. The
 * registry lives on globalThis because Next.js may load this module more than once.
 */
interface ActiveRun {
  controller: AbortController;
  userId: string;
  done: Promise<void>;
}

const g = globalThis as unknown as { __mosaicEvalRuns?: Map<string, ActiveRun> };
const active = (g.__mosaicEvalRuns ??= new Map());

/** Runs at once in one server: each already runs several questions in parallel, and users are asking too. */
export const MAX_ACTIVE_EVAL_RUNS = 2;

export function isEvalRunActive(reportId: string): boolean {
  return active.has(reportId);
}

export async function startEvalInBackground(
  prisma: PrismaClient,
  deps: CatalogDeps,
  user: AccessSubject,
  params: EvalRunParams,
  opts: { sharedDatabase?: boolean } = {},
): Promise<{ reportId: string; resumedFrom: number; total: number }> {
  if (active.size >= MAX_ACTIVE_EVAL_RUNS) {
    throw new AppError("CONFLICT", `${active.size} evaluation runs are already going on this server. Wait for one to finish or cancel it.`);
  }
  // Planning happens in the request, so a missing catalog or a bad config is reported to the user at once.
  const plan = await planEvalRun(prisma, deps, user, params);
  const { reportId, resumedFrom } = await openReport(prisma, user, plan, {
    sharedDatabase: opts.sharedDatabase,
    isActive: isEvalRunActive,
  });
  const controller = new AbortController();
  const done = executeEvalRun(prisma, deps, user, plan, reportId, { signal: controller.signal, sharedDatabase: opts.sharedDatabase })
    .then(() => undefined)
    .catch(async (e: Error) => {
      log.error({ err: e, reportId }, "evaluation run crashed");
      await prisma.evalReport
        .update({ where: { id: reportId }, data: { status: "FAILED", error: e.message, finishedAt: new Date() } })
        .catch(() => undefined);
    })
    .finally(() => active.delete(reportId));
  active.set(reportId, { controller, userId: user.id, done });
  return { reportId, resumedFrom, total: plan.questions.length };
}

/** Cancels a run of this server; returns false when it is not running here. */
export function cancelEvalRun(reportId: string): boolean {
  const run = active.get(reportId);
  if (!run) return false;
  run.controller.abort();
  return true;
}

/** For tests and shutdown: waits for a background run to settle. */
export async function waitForEvalRun(reportId: string): Promise<void> {
  await active.get(reportId)?.done;
}
