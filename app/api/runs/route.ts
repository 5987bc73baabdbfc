import { catalogDeps } from "@/lib/deps";
import { db } from "@/lib/db/client";
import { loadEnv } from "@/lib/env";
import { withAuthRoute } from "@/lib/http/route";
import { requestActor } from "@/lib/audit/request-actor";
import { askSchema } from "@/lib/pipeline/run.validation";
import { streamAsk } from "@/lib/runs/ask-stream";
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
  const stream = streamAsk(
    prisma,
    catalogDeps(),
    { user, input, signal: req.signal, slot, route: "runs.create", audit: requestActor(user, req.headers) },
    (m) =>
      m.kind === "event"
        ? `${JSON.stringify({ event: m.event })}\n`
        : m.kind === "result"
          ? `${JSON.stringify({ result: m.result })}\n`
          : `${JSON.stringify({ error: m.error })}\n`,
  );
  return new Response(stream, {
    headers: { "content-type": "application/x-ndjson; charset=utf-8", "cache-control": "no-store", "x-accel-buffering": "no" },
  });
});
