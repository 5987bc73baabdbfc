import { NextRequest } from "next/server";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { PrismaClient } from "@/lib/db/generated/client";
import { createTestDatabase, TARGET_ENGINE, type TestDatabase } from "../support/test-database";
import { openApiTestWorkspace } from "../support/api-test-workspace";

/**
 * /api/v1/chat/completions keeps a conversation across turns the way chat clients use it: the `openai`
 * package resends the whole message list, and the earlier messages name the conversation (issue 29). The
 * route handlers run in process on a real database with the demo catalog; the client's `fetch` hands its
 * requests to them, so the bytes the client sends and parses are the real ones.
 */
vi.mock("@/lib/auth/session", () => ({ getCurrentUser: async () => null }));

type Handler = (req: NextRequest, ctx: { params: Promise<Record<string, string>> }) => Promise<Response>;
type Message = OpenAI.Chat.Completions.ChatCompletionMessageParam;
const BASE = "http://localhost:3000";

describe(`chat completions continue a conversation from the resent history (${TARGET_ENGINE})`, () => {
  let testDb: TestDatabase;
  let prisma: PrismaClient;
  let chat: Handler;
  let run: Handler;
  const clients = {} as Record<"USER" | "ANALYST", OpenAI>;
  const tokens = {} as Record<"USER" | "ANALYST", string>;

  beforeAll(async () => {
    testDb = await createTestDatabase();
    prisma = await openApiTestWorkspace(testDb);
    const { createApiKey } = await import("@/lib/auth/api-keys");
    chat = ((await import("@/app/api/v1/chat/completions/route")) as unknown as Record<string, Handler>).POST!;
    run = ((await import("@/app/api/v1/runs/[id]/route")) as unknown as Record<string, Handler>).GET!;
    for (const role of ["USER", "ANALYST"] as const) {
      const u = await prisma.user.findFirstOrThrow({ where: { role } });
      tokens[role] = (await createApiKey(prisma, u.id, { name: "chat client", scopes: ["ask", "runs:read"] })).token;
      clients[role] = new OpenAI({
        apiKey: tokens[role],
        baseURL: `${BASE}/api/v1`,
        maxRetries: 0,
        fetch: async (url, init) =>
          chat(new NextRequest(String(url), init as ConstructorParameters<typeof NextRequest>[1]), { params: Promise.resolve({}) }),
      });
    }
  }, 180_000);

  afterAll(async () => {
    const { closeAllBackends } = await import("@/lib/backends/registry");
    await closeAllBackends();
    const g = globalThis as unknown as { __mosaicDb?: Promise<{ handle: { close(): Promise<void> } }> };
    await (await g.__mosaicDb)?.handle.close();
    delete g.__mosaicDb;
    await testDb?.cleanup();
  });

  /** The conversation of a run, as GET /api/v1/runs/{id} reports it. */
  const conversationOf = async (runId: string, who: "USER" | "ANALYST" = "USER") => {
    const res = await run(new NextRequest(`${BASE}/api/v1/runs/${runId}`, { headers: { authorization: `Bearer ${tokens[who]}` } }), {
      params: Promise.resolve({ id: runId }),
    });
    expect(res.status).toBe(200);
    return ((await res.json()) as { conversationId: string | null }).conversationId;
  };

  /** One whole answer: its text and run. */
  const ask = async (messages: Message[], who: "USER" | "ANALYST" = "USER") => {
    const completion = await clients[who].chat.completions.create({ model: "mosaic", messages });
    const { runId, conversationId } = (completion as unknown as { mosaic: { runId: string; conversationId: string } }).mosaic;
    // The completion names the conversation as the stored run does.
    expect(await conversationOf(runId, who)).toBe(conversationId);
    return { text: completion.choices[0]!.message.content ?? "", runId };
  };

  /** One streamed answer: the text the client assembles from the chunks, and the run (the chunks' id). */
  const askStreamed = async (messages: Message[]) => {
    const stream = await clients.USER.chat.completions.create({ model: "mosaic", messages, stream: true });
    let text = "";
    let id = "";
    for await (const chunk of stream) {
      id = chunk.id;
      text += chunk.choices[0]?.delta.content ?? "";
    }
    return { text, runId: id.replace(/^chatcmpl-/, "") };
  };

  const SYSTEM: Message = { role: "system", content: "You are a helpful assistant. Answer briefly." };
  const FIRST = "Who is the chief executive of Aurora Outfitters AB?";
  let first: { text: string; runId: string };

  it("asks a resent history's last question as a follow-up in the same conversation, streamed or whole", async () => {
    first = await ask([SYSTEM, { role: "user", content: FIRST }]);
    expect(first.text).toContain("Maria Lindqvist");
    const conversation = await conversationOf(first.runId);
    expect(conversation).toBeTruthy();

    // The client resends everything, its copy of the answer included, and a question that needs the first.
    const history: Message[] = [SYSTEM, { role: "user", content: FIRST }, { role: "assistant", content: first.text }];
    const second = await askStreamed([...history, { role: "user", content: "Where is it located?" }]);
    expect(second.text).toContain("Stockholm");
    expect(await conversationOf(second.runId)).toBe(conversation);

    // The streamed answer keys the next turn as well.
    const third = await ask([
      ...history,
      { role: "user", content: "Where is it located?" },
      { role: "assistant", content: second.text },
      { role: "user", content: "Who is its chief executive?" },
    ]);
    expect(await conversationOf(third.runId)).toBe(conversation);
    expect(third.text).toContain("Maria Lindqvist");
  }, 120_000);

  it("starts a new conversation when the history was edited or the system prompt changed", async () => {
    const conversation = await conversationOf(first.runId);
    const edited = await ask([
      SYSTEM,
      { role: "user", content: FIRST },
      { role: "assistant", content: "Someone else entirely." },
      { role: "user", content: "Where is it located?" },
    ]);
    expect(await conversationOf(edited.runId)).not.toBe(conversation);
    const otherSystem = await ask([
      { role: "system", content: "Answer in one word." },
      { role: "user", content: FIRST },
      { role: "assistant", content: first.text },
      { role: "user", content: "Where is it located?" },
    ]);
    expect(await conversationOf(otherSystem.runId)).not.toBe(conversation);
    // The same history in another message layout (text parts, line ends, outer spaces) is the same history.
    const sameInParts = await ask([
      SYSTEM,
      { role: "user", content: [{ type: "text", text: `  ${FIRST}\r\n` }] },
      { role: "assistant", content: first.text },
      { role: "user", content: "Where is it located?" },
    ]);
    expect(await conversationOf(sameInParts.runId)).toBe(conversation);
  }, 120_000);

  it("never lets another user's identical history join the first user's conversation", async () => {
    const conversation = await conversationOf(first.runId);
    const theirs = await ask(
      [
        SYSTEM,
        { role: "user", content: FIRST },
        { role: "assistant", content: first.text },
        { role: "user", content: "Where is it located?" },
      ],
      "ANALYST",
    );
    const theirConversation = await conversationOf(theirs.runId, "ANALYST");
    expect(theirConversation).toBeTruthy();
    expect(theirConversation).not.toBe(conversation);
    const owner = await prisma.conversation.findUniqueOrThrow({ where: { id: theirConversation! }, select: { userId: true } });
    const analyst = await prisma.user.findFirstOrThrow({ where: { role: "ANALYST" } });
    expect(owner.userId).toBe(analyst.id);
    // And each turn keyed for the first user stays theirs.
    const threads = await prisma.chatThread.findMany({ where: { conversationId: conversation! } });
    expect(threads.length).toBeGreaterThanOrEqual(3);
    expect(new Set(threads.map((t) => t.userId)).size).toBe(1);
  }, 120_000);
});
