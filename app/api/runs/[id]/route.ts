import { db } from "@/lib/db/client";
import { withAuthRoute } from "@/lib/http/route";
import { requestActor } from "@/lib/audit/request-actor";
import { auditEvidenceOpened } from "@/lib/audit/runs";
import { loadRunView } from "@/lib/runs/load-run";

/**
 * Reopens a stored run as it was: the question, status, result and trace events. Who may open it and
 * what they see follow the Ask screen's rules (lib/runs): the owner, admins, analysts for reported
 * runs; a run that read a KB the viewer may no longer use has its result and trace text withheld.
 */
export const GET = withAuthRoute<undefined, { id: string }>({ name: "runs.get" }, async ({ req, user, params }) => {
  const prisma = await db();
  const view = await loadRunView(prisma, user, params.id);
  if (!view.hidden?.wholeResult) auditEvidenceOpened(requestActor(user, req.headers), view.id, prisma);
  const run = await prisma.run.findUniqueOrThrow({
    where: { id: view.id },
    select: {
      id: true,
      question: true,
      status: true,
      answer: true,
      refrained: true,
      refrainReason: true,
      confidence: true,
      timings: true,
      createdAt: true,
      conversationId: true,
      traceEvents: { orderBy: { seq: "asc" } },
    },
  });
  const withheld = view.hidden?.wholeResult === true;
  return {
    ...run,
    ...(withheld ? { answer: null, refrainReason: null } : {}),
    result: view.outcome,
    hidden: view.hidden,
    traceEvents: withheld ? run.traceEvents.map((e) => ({ ...e, summary: "", payload: {} })) : run.traceEvents,
  };
});
