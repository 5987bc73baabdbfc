import { requestActor } from "@/lib/audit/request-actor";
import { auditAsk } from "@/lib/audit/runs";
import { catalogDeps } from "@/lib/deps";
import { db } from "@/lib/db/client";
import { loadEnv } from "@/lib/env";
import { askSchema } from "@/lib/pipeline/run.validation";
import { askResult, streamAsk } from "@/lib/runs/ask-stream";
import { runPipeline } from "@/lib/runs/run-pipeline";
import { holdRunSlot } from "@/lib/runs/run-slots";
import { apiRoute } from "@/lib/server/api-v1/route";
import { maxConcurrentRuns } from "@/lib/settings/fair-use";

export const runtime = "nodejs";
export const maxDuration = 120;

/**
 * Asks a question as the key's user, over the knowledge bases they may use (or those of `kbIds` among
 * them). JSON by default: the answer with its citations and evidence. With `Accept: text/event-stream`,
 * Server-Sent Events: `stage` events as each stage starts and ends, then one `answer` event (or `error`).
 * Concurrent asks per key are bounded by the same fair-use slots as the Ask page (429 + Retry-After).
 */
export const POST = apiRoute({ name: "v1.ask", scope: "ask", input: askSchema }, async ({ req, user, principal, input }) => {
  const prisma = await db();
  const slot = await holdRunSlot(prisma, principal, await maxConcurrentRuns(prisma, loadEnv()));
  if ((req.headers.get("accept") ?? "").includes("text/event-stream")) {
    const sse = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
    const stream = streamAsk(
      prisma,
      catalogDeps(),
      { user, input, signal: req.signal, slot, route: "v1.ask", audit: requestActor(user, req.headers) },
      (m) =>
        m.kind === "event"
          ? sse("stage", {
              stage: m.event.stage,
              type: m.event.type,
              summary: m.event.summary,
              durationMs: m.event.durationMs ?? null,
              at: m.event.at,
            })
          : m.kind === "result"
            ? sse("answer", m.result)
            : sse("error", m.error),
    );
    return new Response(stream, {
      headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-store", "x-accel-buffering": "no" },
    });
  }
  try {
    const outcome = await runPipeline(prisma, catalogDeps(), {
      question: input.question,
      user,
      conversationId: input.conversationId ?? null,
      kbIds: input.kbIds,
      signal: req.signal,
    });
    auditAsk(requestActor(user, req.headers), input.question, outcome);
    return askResult(outcome);
  } finally {
    await slot.release();
  }
});
