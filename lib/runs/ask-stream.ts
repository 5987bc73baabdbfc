import type { CatalogDeps } from "../deps";
import type { PrismaClient } from "../db/generated/client";
import { toClientError } from "../errors";
import { type RunEvent, type RunOutcome, outcomeToJson } from "../pipeline/run";
import type { AskInput } from "../pipeline/run.validation";
import type { AccessSubject } from "../catalog/access";
import { runPipeline } from "./run-pipeline";
import type { HeldRunSlot } from "./run-slots";
import type { AuditActor } from "../audit/audit";
import { auditAsk } from "../audit/runs";

/** One message of a streamed run: a stage event, the final result, or the error that ended it. */
export type AskMessage =
  | { kind: "event"; event: RunEvent }
  | { kind: "result"; result: ReturnType<typeof outcomeToJson> & { status: RunOutcome["status"] } }
  | { kind: "error"; error: ReturnType<typeof toClientError> };

/** The run's result as every caller sends it: the page's JSON view of the outcome plus its status. */
export function askResult(outcome: RunOutcome) {
  return { ...outcomeToJson(outcome), status: outcome.status };
}

/**
 * Runs a question and streams it: one message per trace event as each stage starts and ends, then the
 * result (or the error). The wire format is the caller's (`encode`): NDJSON for the Ask page
 * (app/api/runs), Server-Sent Events for /api/v1/ask and OpenAI chunks for /api/v1/chat/completions. The
 * run slot the caller took is released when the run ends; closing the request (`signal`) cancels the run.
 */
export function streamAsk(
  prisma: PrismaClient,
  deps: CatalogDeps,
  args: {
    user: AccessSubject;
    input: AskInput;
    signal: AbortSignal;
    slot: HeldRunSlot;
    route: string;
    /** Who asked, for the audit log: recorded after the answer is sent, without waiting for the write (lib/audit). */
    audit?: AuditActor;
    /** Awaited before the result is sent: what the caller must have stored before the client can act on the answer. */
    beforeResult?: (result: ReturnType<typeof askResult>) => Promise<void>;
  },
  encode: (message: AskMessage) => string | null,
  finish?: () => string,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    async start(controller) {
      const send = (message: AskMessage) => {
        const text = encode(message);
        if (text === null) return;
        try {
          controller.enqueue(encoder.encode(text));
        } catch {
          // the client went away; the run is being cancelled through the request's signal
        }
      };
      try {
        const outcome = await runPipeline(prisma, deps, {
          question: args.input.question,
          user: args.user,
          conversationId: args.input.conversationId ?? null,
          kbIds: args.input.kbIds,
          signal: args.signal,
          onEvent: (event: RunEvent) => send({ kind: "event", event }),
        });
        const result = askResult(outcome);
        if (args.beforeResult) await args.beforeResult(result);
        send({ kind: "result", result });
        if (args.audit) auditAsk(args.audit, args.input.question, outcome);
      } catch (e) {
        send({ kind: "error", error: toClientError(e, { route: args.route }) });
      } finally {
        await args.slot.release();
        try {
          if (finish) controller.enqueue(encoder.encode(finish()));
          controller.close();
        } catch {
          // already closed by a disconnect
        }
      }
    },
  });
}
