import { log } from "../log";
import type { RunOutcome } from "../pipeline/run";
import { type AuditActor, type PrismaSource, appDatabase, audit } from "./audit";

/**
 * Audit records for questions and evidence (issue 29): who asked, which knowledge bases the run
 * queried, the run's id; who opened a run's evidence. Both return at once: the answer is never kept
 * waiting for its record.
 */

/** The knowledge bases a run actually queried (not every candidate it considered). */
export function queriedKbIds(queries: readonly { kbId?: unknown }[] | undefined): string[] {
  return [...new Set((queries ?? []).map((q) => q.kbId).filter((id): id is string => typeof id === "string"))];
}

export function auditAsk(
  actor: AuditActor,
  question: string,
  outcome: Pick<RunOutcome, "runId" | "status" | "queries">,
  prisma: PrismaSource = appDatabase,
): void {
  audit(
    {
      ...actor,
      action: "ask",
      outcome: outcome.status === "FAILED" ? "failure" : "success",
      targetType: "run",
      targetId: outcome.runId,
      runId: outcome.runId,
      kbIds: queriedKbIds(outcome.queries),
      detail: { question: question.slice(0, 2000), status: outcome.status },
    },
    prisma,
  );
}

/** A run's evidence was opened (the run reopened on Ask or History, or read through the API). */
export function auditEvidenceOpened(actor: AuditActor, runId: string, prisma: PrismaSource = appDatabase): void {
  void (async () => {
    const client = typeof prisma === "function" ? await prisma() : prisma;
    const run = await client.run.findUnique({ where: { id: runId }, select: { userId: true, result: true } });
    const result = (run?.result ?? {}) as { queries?: { kbId?: unknown }[] };
    audit(
      {
        ...actor,
        action: "evidence.open",
        targetType: "run",
        targetId: runId,
        runId,
        kbIds: queriedKbIds(Array.isArray(result.queries) ? result.queries : []),
        detail: { ownRun: run?.userId === actor.actorId },
      },
      client,
    );
  })().catch((err: unknown) => log.error({ err, runId }, "could not write an audit record"));
}
