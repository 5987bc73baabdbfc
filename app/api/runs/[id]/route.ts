import { db } from "@/lib/db/client";
import { AppError } from "@/lib/errors";
import { withAuthRoute } from "@/lib/http/route";

// Reopens a stored run as it was: the result, the trace events, and the question. Users see their own runs; admins any.
export const GET = withAuthRoute<undefined, { id: string }>({ name: "runs.get" }, async ({ user, params }) => {
  const run = await (await db()).run.findFirst({
    where: { id: params.id, ...(user.role === "ADMIN" ? {} : { userId: user.id }) },
    select: { id: true, question: true, status: true, answer: true, refrained: true, refrainReason: true, confidence: true, timings: true, result: true, createdAt: true, conversationId: true, traceEvents: { orderBy: { seq: "asc" } } },
  });
  if (!run) throw new AppError("NOT_FOUND", "That run does not exist or is not yours.");
  return run;
});
