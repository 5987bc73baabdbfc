import { describe, expect, it } from "vitest";
import { priorMessages, threadKey } from "@/lib/server/api-v1/chat-threads";

type Messages = Parameters<typeof threadKey>[2];

describe("the key of a chat history", () => {
  const history: Messages = [
    { role: "system", content: "Be brief." },
    { role: "user", content: "Who is the chief executive of Aurora Outfitters AB?" },
    { role: "assistant", content: "Maria Lindqvist. [1]\n\nSources:\n[1] Companies: …" },
  ];
  const key = threadKey("user-1", "mosaic", history);

  it("is the same for the same user, model and messages, whatever the layout of their text", () => {
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(
      threadKey("user-1", "mosaic", [
        { role: "system", content: [{ type: "text", text: "Be brief.  " }] },
        { role: "user", content: "  Who is the chief executive of Aurora Outfitters AB?\r\n" },
        { role: "assistant", content: "Maria Lindqvist. [1]\r\n\r\nSources:\r\n[1] Companies: …" },
      ]),
    ).toBe(key);
  });

  it("changes with the user, the model, a role, the system prompt, the answer's text or a message more or less", () => {
    const others = [
      threadKey("user-2", "mosaic", history),
      threadKey("user-1", "mosaic/kb-1", history),
      threadKey("user-1", "mosaic", history.slice(1)),
      threadKey("user-1", "mosaic", [{ role: "system", content: "Be long." }, ...history.slice(1)]),
      threadKey("user-1", "mosaic", [...history.slice(0, 2), { role: "assistant", content: "Maria Lindqvist." }]),
      threadKey("user-1", "mosaic", [{ role: "developer", content: "Be brief." }, ...history.slice(1)]),
      threadKey("user-1", "mosaic", [...history, { role: "user", content: "Where is it located?" }]),
    ];
    expect(new Set([key, ...others]).size).toBe(others.length + 1);
  });

  it("keys the messages before the last user message", () => {
    const next: Messages = [...history, { role: "user", content: "Where is it located?" }];
    expect(priorMessages(next)).toEqual(history);
    expect(priorMessages([{ role: "user", content: "Hello" }])).toEqual([]);
  });
});
