import { requestActor } from "@/lib/audit/request-actor";
import { auditAsk } from "@/lib/audit/runs";
import { catalogDeps } from "@/lib/deps";
import { db } from "@/lib/db/client";
import { loadEnv } from "@/lib/env";
import { log } from "@/lib/log";
import { askResult, streamAsk } from "@/lib/runs/ask-stream";
import { runPipeline } from "@/lib/runs/run-pipeline";
import { holdRunSlot } from "@/lib/runs/run-slots";
import { answerWithCitations, kbIdsForModel, lastUserQuestion } from "@/lib/server/api-v1/chat";
import { findThread, priorMessages, recordThread } from "@/lib/server/api-v1/chat-threads";
import { chatCompletionRequestSchema } from "@/lib/server/api-v1/openai-schemas";
import { apiRoute } from "@/lib/server/api-v1/route";
import { maxConcurrentRuns } from "@/lib/settings/fair-use";

export const runtime = "nodejs";
export const maxDuration = 120;

/**
 * OpenAI-compatible chat: the last user message is asked over the model's knowledge bases (`mosaic`: all
 * the user may use; `mosaic/<id>`: one), and the answer comes back as the assistant's message with
 * numbered citations. The messages before it name the conversation (chat-threads.ts): a history Mosaic
 * answered continues its conversation, so "and in Berlin?" is completed as on the Ask page; any other
 * history starts a new one. `stream: true` sends chat.completion.chunk events: SSE comments while
 * the stages run (clients ignore them; they keep proxies from closing the connection), the text, then
 * `data: [DONE]`.
 */
export const POST = apiRoute(
  { name: "v1.chat.completions", scope: "ask", input: chatCompletionRequestSchema },
  async ({ req, user, principal, input }) => {
    const prisma = await db();
    const question = lastUserQuestion(input);
    const kbIds = await kbIdsForModel(prisma, user, input.model);
    const prior = priorMessages(input.messages);
    const conversationId = await findThread(prisma, user, input.model, prior);
    const slot = await holdRunSlot(prisma, principal, await maxConcurrentRuns(prisma, loadEnv()));
    const asked = input.messages.slice(0, prior.length + 1);
    const created = Math.floor(Date.now() / 1000);
    const ask = { question, kbIds, conversationId };
    // Recorded before the answer is sent, so a client's next turn (sent as soon as it has the text) finds it.
    // A failed write costs only the thread (the next turn starts a new conversation), never the answer.
    const remember = (result: ReturnType<typeof askResult>) =>
      recordThread(prisma, user, input.model, asked, answerWithCitations(result), result.conversationId).catch((e: unknown) =>
        log.warn({ err: e, route: "v1.chat.completions" }, "could not record the chat thread"),
      );
    if (input.stream) {
      let id = `chatcmpl-${created}`;
      const chunk = (delta: Record<string, string>, finish: "stop" | null) =>
        `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created, model: input.model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
      const stream = streamAsk(
        prisma,
        catalogDeps(),
        {
          user,
          input: ask,
          signal: req.signal,
          slot,
          route: "v1.chat.completions",
          audit: requestActor(user, req.headers),
          beforeResult: remember,
        },
        (m) => {
          if (m.kind === "event") return `: ${m.event.stage} ${m.event.type.toLowerCase()}\n\n`;
          if (m.kind === "error")
            return `data: ${JSON.stringify({ error: { message: m.error.message, type: m.error.code.toLowerCase(), code: m.error.code } })}\n\n`;
          id = `chatcmpl-${m.result.runId}`;
          return (
            chunk({ role: "assistant", content: "" }, null) + chunk({ content: answerWithCitations(m.result) }, null) + chunk({}, "stop")
          );
        },
        () => "data: [DONE]\n\n",
      );
      return new Response(stream, {
        headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-store", "x-accel-buffering": "no" },
      });
    }
    let result;
    try {
      const outcome = await runPipeline(prisma, catalogDeps(), { ...ask, user, signal: req.signal });
      auditAsk(requestActor(user, req.headers), question, outcome);
      result = askResult(outcome);
    } finally {
      await slot.release();
    }
    await remember(result);
    return {
      id: `chatcmpl-${result.runId}`,
      object: "chat.completion",
      created,
      model: input.model,
      choices: [{ index: 0, message: { role: "assistant", content: answerWithCitations(result) }, finish_reason: "stop" }],
      usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
      mosaic: { runId: result.runId, conversationId: result.conversationId, status: result.status, evidenceIds: result.citations },
    };
  },
);
