// npm run bench -- api [--rounds N]: ask latency through /api/v1 (an API key; JSON, and SSE) and through the MCP
// server (/api/mcp: the SDK's own client, one tools/call `ask` per question on a connected client) against the
// Ask page's own route (/api/runs, the session's NDJSON stream) on the same demo questions, against the built
// app with a fresh embedded database. Prints p50/p95 per path and the overhead of each over the page's path;
// also the MCP handshake (initialize + initialized), paid once per client connection, not per question.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { AppClient } from "../tests/support/app-client";
import { startAppServer } from "../tests/support/app-server";
import { DEMO_USERS } from "../lib/db/seed";
import { buildIfNeeded } from "./build-if-needed";
import os from "node:os";

const QUESTIONS = [
  "How many orders were returned?",
  "Who is the chief executive of Aurora Outfitters GmbH?",
  "Which customers are in Munich?",
  "What is the daily meal allowance for travel?",
  "Which products are in the Tents category?",
];

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
};

export async function benchApi(args: string[]) {
  const rounds = Number(args[args.indexOf("--rounds") + 1] ?? 4) || 4;
  if (!buildIfNeeded()) throw new Error("next build failed");
  const server = await startAppServer();
  try {
    const client = new AppClient(server.baseUrl);
    const demo = DEMO_USERS.find((u) => u.role === "USER")!;
    const cookie = await client.signIn(demo.email, demo.password);
    const made = await client.action(cookie, "createApiKeyAction", { name: "bench", scopes: ["ask"], expiresInDays: "30" });
    const token = (made.data as { token: string }).token;
    // MCP gets a key of its own: each path draws on its own request allowance.
    const mcpMade = await client.action(cookie, "createApiKeyAction", { name: "bench mcp", scopes: ["ask"], expiresInDays: "30" });
    const mcpToken = (mcpMade.data as { token: string }).token;
    const connectMcp = async () => {
      const mcp = new Client({ name: "mosaic-bench", version: "1.0.0" });
      await mcp.connect(
        new StreamableHTTPClientTransport(new URL(`${server.baseUrl}/api/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${mcpToken}` } },
        }),
      );
      return mcp;
    };
    const handshakes: number[] = [];
    const mcp = await connectMcp();
    const times: Record<
      "page (NDJSON, session)" | "/api/v1/ask (JSON, key)" | "/api/v1/ask (SSE, key)" | "/api/mcp tools/call ask",
      number[]
    > = {
      "page (NDJSON, session)": [],
      "/api/v1/ask (JSON, key)": [],
      "/api/v1/ask (SSE, key)": [],
      "/api/mcp tools/call ask": [],
    };
    let counting = false;
    const time = async (label: keyof typeof times, send: () => Promise<Response>, done: (text: string) => boolean) => {
      const t0 = performance.now();
      const res = await send();
      const text = await res.text();
      const ms = performance.now() - t0;
      if (res.status !== 200 || !done(text)) throw new Error(`${label}: ${res.status} ${text.slice(0, 300)}`);
      if (counting) times[label].push(ms);
    };
    const body = (q: string) => JSON.stringify({ question: q });
    // One warm-up pass of each path (first compiles and caches), not counted.
    for (let r = -1; r < rounds; r++) {
      counting = r >= 0;
      for (const q of QUESTIONS) {
        await time(
          "page (NDJSON, session)",
          () =>
            fetch(`${server.baseUrl}/api/runs`, { method: "POST", headers: { cookie, "content-type": "application/json" }, body: body(q) }),
          (t) => t.includes('"result"'),
        );
        await time(
          "/api/v1/ask (JSON, key)",
          () =>
            fetch(`${server.baseUrl}/api/v1/ask`, {
              method: "POST",
              headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
              body: body(q),
            }),
          (t) => t.includes('"runId"'),
        );
        await time(
          "/api/v1/ask (SSE, key)",
          () =>
            fetch(`${server.baseUrl}/api/v1/ask`, {
              method: "POST",
              headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "text/event-stream" },
              body: body(q),
            }),
          (t) => t.includes("event: answer"),
        );
        const t0 = performance.now();
        const answered = (await mcp.callTool({ name: "ask", arguments: { question: q } })) as {
          isError?: boolean;
          structuredContent?: unknown;
        };
        const ms = performance.now() - t0;
        if (answered.isError || !(answered.structuredContent as { runId?: string } | undefined)?.runId)
          throw new Error(`/api/mcp tools/call ask: ${JSON.stringify(answered).slice(0, 300)}`);
        if (counting) times["/api/mcp tools/call ask"].push(ms);
      }
      if (counting) {
        const t0 = performance.now();
        await (await connectMcp()).close();
        handshakes.push(performance.now() - t0);
      }
      // Stay inside the key's request allowance (60, one more per second).
      await new Promise((res) => setTimeout(res, 1_000));
    }
    console.log(
      `\nask latency, ${QUESTIONS.length} demo questions × ${rounds} rounds, one at a time (load ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")})`,
    );
    console.log("path                          p50 ms   p95 ms");
    for (const [label, xs] of Object.entries(times))
      console.log(`${label.padEnd(28)} ${pct(xs, 50).toFixed(0).padStart(7)} ${pct(xs, 95).toFixed(0).padStart(8)}`);
    const page = pct(times["page (NDJSON, session)"], 50);
    console.log(
      `overhead of /api/v1 JSON over the page's path at p50: ${(pct(times["/api/v1/ask (JSON, key)"], 50) - page).toFixed(0)} ms`,
    );
    console.log(`overhead of /api/v1 SSE over the page's path at p50: ${(pct(times["/api/v1/ask (SSE, key)"], 50) - page).toFixed(0)} ms`);
    console.log(
      `overhead of MCP tools/call over the page's path at p50: ${(pct(times["/api/mcp tools/call ask"], 50) - page).toFixed(0)} ms`,
    );
    console.log(
      `MCP handshake (initialize + initialized, once per connection), ${handshakes.length} connections: p50 ${pct(handshakes, 50).toFixed(0)} ms, p95 ${pct(handshakes, 95).toFixed(0)} ms`,
    );
    await mcp.close();
  } finally {
    await server.stop();
  }
}
