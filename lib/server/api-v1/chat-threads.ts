import { createHash } from "node:crypto";
import type { AccessSubject } from "../../catalog/access";
import type { PrismaClient } from "../../db/generated/client";
import { messageText } from "./chat";
import type { ChatCompletionRequest } from "./openai-schemas";

/**
 * Which Mosaic conversation a chat request continues. OpenAI-style clients keep no server-side thread:
 * each turn they resend the whole message list. So when Mosaic answers, it records a key over the list
 * as it now stands (the user, the model, every message and the answer's text exactly as sent) and the
 * conversation it was asked in. The next turn's earlier messages hash to that key, and its last user
 * message is asked as a follow-up there. A list that matches nothing (edited history, a changed system
 * prompt, another client) starts a new conversation. The user's id is part of the key and the lookup is
 * scoped to the user, so another user's identical history never joins someone else's conversation.
 */

type ChatMessage = ChatCompletionRequest["messages"][number];

/**
 * The key of a message list: SHA-256 over the user, the model and each message's role and text. Text is
 * compared after trimming and with \r\n as \n, because clients commonly strip the ends of a message and
 * normalise line breaks when they store it; anything else changed is a different history.
 */
export function threadKey(userId: string, model: string, messages: readonly ChatMessage[]): string {
  const normalized = messages.map((m) => [m.role, messageText(m).replace(/\r\n?/g, "\n").trim()]);
  return createHash("sha256")
    .update(JSON.stringify(["mosaic-chat-v1", userId, model, normalized]))
    .digest("hex");
}

/** The messages before the last user message: the history the question continues. */
export function priorMessages(messages: readonly ChatMessage[]): ChatMessage[] {
  const last = messages.findLastIndex((m) => m.role === "user");
  return messages.slice(0, Math.max(last, 0));
}

/**
 * The conversation these earlier messages continue, or null for a new one. A history without an
 * assistant's answer cannot have come from Mosaic, so it is not looked up.
 */
export async function findThread(
  prisma: PrismaClient,
  user: AccessSubject,
  model: string,
  prior: readonly ChatMessage[],
): Promise<string | null> {
  if (!prior.some((m) => m.role === "assistant")) return null;
  const row = await prisma.chatThread.findFirst({
    where: { key: threadKey(user.id, model, prior), userId: user.id, conversation: { userId: user.id } },
    select: { conversationId: true },
  });
  return row?.conversationId ?? null;
}

/**
 * Records the list as the client will resend it: the messages up to and including the question, then the
 * answer as sent. The same list answered again (a client's "regenerate" with an identical answer) points
 * at the latest conversation.
 */
export async function recordThread(
  prisma: PrismaClient,
  user: AccessSubject,
  model: string,
  asked: readonly ChatMessage[],
  answer: string,
  conversationId: string,
): Promise<void> {
  const key = threadKey(user.id, model, [...asked, { role: "assistant", content: answer }]);
  await prisma.chatThread.upsert({
    where: { key },
    create: { key, userId: user.id, conversationId },
    update: { conversationId },
  });
}
