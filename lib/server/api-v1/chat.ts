import type { AccessSubject } from "../../catalog/access";
import { getKnowledgeBase } from "../../catalog/knowledge-bases";
import type { PrismaClient } from "../../db/generated/client";
import { AppError } from "../../errors";
import type { askResult } from "../../runs/ask-stream";
import { listAskableKbs } from "../../runs/askable-kbs";
import type { ChatCompletionRequest } from "./openai-schemas";

/** The model that asks every knowledge base the user may use; `mosaic/<id>` asks one. */
export const MOSAIC_MODEL = "mosaic";

/** The OpenAI model list: "mosaic" and one model per knowledge base the user may use. */
export async function listChatModels(prisma: PrismaClient, user: AccessSubject, now = Date.now()) {
  const created = Math.floor(now / 1000);
  const kbs = await listAskableKbs(prisma, user);
  return {
    object: "list" as const,
    data: [
      { id: MOSAIC_MODEL, object: "model" as const, created, owned_by: "mosaic" },
      ...kbs.map((kb) => ({ id: `${MOSAIC_MODEL}/${kb.id}`, object: "model" as const, created, owned_by: `mosaic: ${kb.name}` })),
    ],
  };
}

/** Which knowledge bases a model name asks; an unknown one, or one the user may not use, is 404 (not probeable). */
export async function kbIdsForModel(prisma: PrismaClient, user: AccessSubject, model: string): Promise<string[] | undefined> {
  if (model === MOSAIC_MODEL) return undefined;
  const m = /^mosaic\/(.+)$/.exec(model);
  if (!m)
    throw new AppError("NOT_FOUND", `Unknown model "${model}". Use mosaic, or mosaic/<knowledge base id> from GET /api/v1/models.`, {
      model: "Unknown model.",
    });
  const kb = await getKnowledgeBase(prisma, user, m[1]!).catch(() => null);
  if (!kb)
    throw new AppError("NOT_FOUND", `Unknown model "${model}". Use mosaic, or mosaic/<knowledge base id> from GET /api/v1/models.`, {
      model: "Unknown model.",
    });
  return [kb.id];
}

/** A message's text: the string, or its text parts joined by line breaks (images and other parts have none). */
export function messageText(message: Pick<ChatCompletionRequest["messages"][number], "content">): string {
  const content = message.content;
  return typeof content === "string" ? content : Array.isArray(content) ? content.map((p) => p.text ?? "").join("\n") : "";
}

/**
 * The question: the text of the last user message. System messages are not part of it (Mosaic's own
 * stages decide how to answer); earlier turns reach the pipeline through the conversation (chat-threads.ts).
 */
export function lastUserQuestion(req: ChatCompletionRequest): string {
  const last = req.messages.findLast((m) => m.role === "user");
  const text = last ? messageText(last) : "";
  if (!text.trim())
    throw new AppError("VALIDATION", "The last user message has no text to ask.", { messages: "Send a user message with text." });
  return text.trim();
}

/**
 * The answer as chat text: the answer (or why Mosaic refrained) followed by its numbered citations, each
 * naming the knowledge base and quoting the start of the evidence, e.g. "… 42 orders. [1]\n\nSources:\n[1] Sales — …".
 */
export function answerWithCitations(result: ReturnType<typeof askResult>): string {
  const byId = new Map(result.evidence.map((e) => [e.id, e]));
  const cited = result.citations.map((id) => byId.get(id)).filter((e): e is NonNullable<typeof e> => !!e);
  const body = result.answer ?? result.reason ?? "Mosaic could not answer this from the knowledge bases you may use.";
  if (!cited.length) return body;
  const markers = cited.map((_, i) => `[${i + 1}]`).join("");
  const sources = cited.map((e, i) => {
    const quote = e.text.replace(/\s+/g, " ").trim();
    return `[${i + 1}] ${e.kb}${e.sourceObject ? ` · ${e.sourceObject}` : ""}: ${quote.length > 200 ? `${quote.slice(0, 200)}…` : quote}`;
  });
  return `${body} ${markers}\n\nSources:\n${sources.join("\n")}`;
}
