import { catalogDeps } from "@/lib/deps";
import { db } from "@/lib/db/client";
import { loadEnv } from "@/lib/env";
import { toClientError } from "@/lib/errors";
import { withAuthRoute } from "@/lib/http/route";
import { requestActor } from "@/lib/audit/request-actor";
import { auditAsk } from "@/lib/audit/runs";
import { type RunEvent, outcomeToJson } from "@/lib/pipeline/run";
import { runPipeline } from "@/lib/runs/run-pipeline";
import { askSchema } from "@/lib/pipeline/run.validation";
import { holdRunSlot } from "@/lib/runs/run-slots";
import { maxConcurrentRuns } from "@/lib/settings/fair-use";

export const runtime = "nodejs";
export const maxDuration = 120;

/**
 * Asks a question: streams the run as NDJSON, one line per trace event ({"event": …}) as each stage
 * starts and ends, then one {"result": …} line. Closing the request cancels the run. A caller who already
 * has as many runs going as Settings allow gets 429 with Retry-After before anything starts (fair use).
 */
export const POST = withAuthRoute({ name: "runs.create", input: askSchema }, async ({ req, user, principal, input }) => {
  const prisma = await db();
  const slot = await holdRunSlot(prisma, principal, await maxConcurrentRuns(prisma, loadEnv()));
  const encoder = new TextEncoder();
  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      const send = (obj: unknown) => {
        try {
          controller.enqueue(encoder.encode(`${JSON.stringify(obj)}\n`));
        } catch {
          // the client went away; the run is being cancelled through req.signal
        }
      };
      try {
        const outcome = await runPipeline(prisma, catalogDeps(), {
          question: input.question,
          user,
          conversationId: input.conversationId ?? null,
          kbIds: input.kbIds,
          signal: req.signal,
          onEvent: (event: RunEvent) => send({ event }),
        });
        send({ result: { ...outcomeToJson(outcome), status: outcome.status } });
        // After the answer is sent, and without waiting for the write (lib/audit).
        auditAsk(requestActor(user, req.headers), input.question, outcome);
      } catch (e) {
        send({ error: toClientError(e, { route: "runs.create" }) });
      } finally {
        await slot.release();
        try {
          controller.close();
        } catch {
          // already closed by a disconnect
        }
      }
    },
  });
  return new Response(stream, {
    headers: { "content-type": "application/x-ndjson; charset=utf-8", "cache-control": "no-store", "x-accel-buffering": "no" },
  });
});
