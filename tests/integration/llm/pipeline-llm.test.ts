import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { closeAllBackends } from "@/lib/backends/registry";
import { forgetEndpointQuirks } from "@/lib/llm/client";
import { type LlmConfig, llmConfig } from "@/lib/llm/config";
import { parseLlmEnv } from "@/lib/env";
import { createGuide } from "@/lib/guides/create";
import { LLM_FAILURE_KEY, LLM_SETTING_KEY, getLlmSettingsView, saveLlmSettings } from "@/lib/settings/llm-settings";
import { type RunOutcome, outcomeToJson } from "@/lib/pipeline/run";
import { runPipeline } from "@/lib/runs/run-pipeline";
import { type FakeOpenAi, type FakeReply, type FakeRequest, startFakeOpenAi } from "../../support/fake-openai/server";
import {
  DOCS,
  type DemoWorkspace,
  GRAPH,
  SALES,
  blocks,
  catalogId,
  evidenceIds,
  openDemoWorkspace,
  returnedOrdersScript,
} from "./demo-fixture";

/**
 * The LLM strategies in whole runs on the demo catalog (real PGlite, SQLite, FTS5, Oxigraph), with the
 * fake OpenAI-compatible server as the endpoint. These check Mosaic's own logic (what it sends, what it
 * accepts, how it falls back); they say nothing about answer quality with a real model.
 */

const LLM_STAGES = ["understand", "select", "formulate", "select-evidence", "answer", "critique"];
/** A SQL answer query committed (select-evidence/commit.ts): its result is the answer, so select-evidence has nothing to ask the model. */
const COMMITTED = "classical (an answer query committed)";
const expectLlmStages = (o: RunOutcome) => {
  for (const stage of LLM_STAGES) expect(strategyOf(o, stage), stage).toEqual([stage === "select-evidence" ? COMMITTED : "llm"]);
};
const QUESTION = "How many orders were returned?";

let ws: DemoWorkspace;
let fake: FakeOpenAi;
let guideId: string;

beforeAll(async () => {
  ws = await openDemoWorkspace();
  fake = await startFakeOpenAi();
  const sales = await ws.kbId(SALES);
  // A guide near the question: its query is a demonstration for formulate, its correction a few-shot for the critic.
  guideId = (
    await createGuide(ws.handle.prisma, ws.admin, {
      question: "How many orders were shipped?",
      answer: "113",
      corrections: [{ runAnswer: "120", correctAnswer: "113" }],
      sources: [
        {
          kbId: sales,
          actions: [
            {
              kind: "NATIVE_QUERY",
              params: { query: { language: "sql", text: "SELECT COUNT(*) AS shipped_orders FROM orders WHERE status = 'shipped'" } },
            },
          ],
        },
      ],
    })
  ).id;
}, 120_000);

afterAll(async () => {
  await fake?.close();
  await closeAllBackends();
  await ws?.handle.close();
  await ws?.db.cleanup();
});

beforeEach(() => {
  fake.reset();
  forgetEndpointQuirks();
});

function config(overrides: Partial<LlmConfig> = {}): LlmConfig {
  return llmConfig({ baseUrl: fake.url, model: "gpt-4o-mini", apiKey: "sk-test", timeoutMs: 3_000, maxRetries: 1, ...overrides });
}

function script(replies: Record<string, (req: FakeRequest) => FakeReply>) {
  for (const [task, s] of Object.entries(replies)) fake.on(task, s);
}

/** `llm` undefined: the run resolves the workspace's settings, as the app does. */
const ask = (question: string, llm: LlmConfig | null | undefined, extra: Partial<Parameters<typeof runPipeline>[2]> = {}) =>
  runPipeline(ws.handle.prisma, ws.deps, { question, user: ws.user, llm, ...extra });

const strategyOf = (o: RunOutcome, stage: string) => o.trace.filter((t) => t.stage === stage).map((t) => t.strategy);
const cited = (o: RunOutcome) => o.evidence.filter((e) => o.answer.citations.includes(e.piece.id));

describe("every stage through the LLM", () => {
  it("runs each stage's LLM strategy, sends the descriptor and the guides, and accounts for tokens and cost", async () => {
    script(returnedOrdersScript());
    const o = await ask(QUESTION, config());

    expectLlmStages(o);
    expect(o.status).toBe("ANSWERED");
    expect(o.answer.text).toBe("7");
    expect(cited(o).map((e) => e.piece.provenance.kbName)).toEqual([SALES]);
    expect(o.winner?.kbName).toBe(SALES);
    expect(o.queries[0]).toMatchObject({
      kbName: SALES,
      status: "ok",
      query: { language: "sql", text: "SELECT COUNT(*) AS returned_orders FROM orders WHERE status = 'returned'" },
    });

    // What Mosaic sent: structured outputs, the catalog's descriptors and the nearest guide in select; the
    // full descriptor and the guide's question/query pair in formulate; the question quoted as data.
    const understand = fake.calls("understand")[0];
    expect(understand.responseFormat).toBe("json_schema");
    expect(understand.body?.response_format).toMatchObject({
      type: "json_schema",
      json_schema: { name: "mosaic_understand", strict: true },
    });
    expect(blocks(understand).question).toBe(QUESTION);
    const select = fake.calls("select")[0];
    const catalog = blocks(select).catalog as { name: string; descriptor: string }[];
    expect(catalog.map((c) => c.name).sort()).toEqual([SALES, DOCS, GRAPH].sort());
    expect(catalog.find((c) => c.name === SALES)!.descriptor).toMatch(/orders\(order_id/);
    expect(blocks(select).guides).toEqual([{ question: "How many orders were shipped?", answeredBy: [catalogId(select, SALES)] }]);
    const sql = fake.calls("formulate.sql")[0];
    expect(blocks(sql).descriptor).toMatch(/CREATE TABLE orders \(/);
    expect(blocks(sql).examples).toEqual([
      { question: "How many orders were shipped?", query: "SELECT COUNT(*) AS shipped_orders FROM orders WHERE status = 'shipped'" },
    ]);
    expect(fake.calls("formulate.search")).toHaveLength(1);
    expect(o.queries.some((q) => q.query.language === "search" && q.query.text.startsWith(`${QUESTION} In 2025 customers returned`))).toBe(
      true,
    );

    // Tokens and cost: 6 calls of 1,000 + 100 tokens at gpt-4o-mini's $0.15 / $0.60 per million.
    expect(o.llm).toMatchObject({ calls: 6, failed: 0, promptTokens: 6_000, completionTokens: 600, totalTokens: 6_600, priceUnknown: [] });
    expect(o.llm!.costUsd).toBeCloseTo(6 * 0.00021, 9);
    expect(o.llm!.byStage.formulate).toMatchObject({ calls: 2, promptTokens: 2_000 });
    expect(outcomeToJson(o).llm).toEqual(o.llm);
    const events = await ws.handle.prisma.traceEvent.findMany({ where: { runId: o.runId, costUsd: { not: null } } });
    expect(events).toHaveLength(6);
    expect(events.reduce((s, e) => s + (e.costUsd ?? 0), 0)).toBeCloseTo(o.llm!.costUsd, 9);
    expect(events[0].payload).toMatchObject({
      llm: { model: "gpt-4o-mini", promptTokens: 1000, completionTokens: 100, priceKnown: true, mode: "json_schema", ok: true },
    });
    const stored = await ws.handle.prisma.run.findUniqueOrThrow({ where: { id: o.runId } });
    expect((stored.result as { llm: { calls: number } }).llm.calls).toBe(6);
  });

  it("reports an unknown model's calls as cost 0 with the price unknown", async () => {
    script(returnedOrdersScript());
    const o = await ask(QUESTION, config({ model: "llama3.1:8b" }));
    expect(o.answer.text).toBe("7");
    expect(o.llm).toMatchObject({ calls: 6, costUsd: 0, priceUnknown: ["llama3.1:8b"] });
  });

  it("gives a follow-up the conversation so far and uses the model's completed question", async () => {
    script(returnedOrdersScript());
    const first = await ask(QUESTION, config());
    fake.reset();
    fake.on("understand", () => ({
      json: {
        completed: "How many orders were shipped?",
        wh: "how many",
        answerTypes: ["count"],
        entities: ["orders", "shipped"],
        relation: "number of orders",
        time: [],
        locations: [],
        aggregate: "count",
        superlative: null,
      },
    }));
    fake.otherwise({ content: "(no JSON here)" });
    const follow = await ask("and shipped?", config(), { conversationId: first.conversationId });
    expect(blocks(fake.calls("understand")[0]).conversation).toEqual([{ question: QUESTION, completed: QUESTION }]);
    expect(follow.intent?.completed).toBe("How many orders were shipped?");
    // "orders" came from the earlier turn, "shipped" from this one; both linked by Mosaic's entity linking.
    expect(follow.intent?.entities.find((e) => e.mention === "orders")).toMatchObject({
      fromContext: true,
      links: [expect.objectContaining({ kind: "table", ref: "orders" })],
    });
    expect(follow.intent?.entities.find((e) => e.mention === "shipped")).toMatchObject({
      fromContext: false,
      links: [expect.objectContaining({ ref: "orders.status=shipped" })],
    });
    expect(strategyOf(follow, "understand")).toEqual(["llm"]);
    expect(follow.answer.text).toMatch(/\b113\b/);
  });
});

describe("falling back to the classical strategies", () => {
  it("falls back per stage on output that is not JSON or does not match the schema", async () => {
    script(returnedOrdersScript());
    fake.on("understand", () => ({ content: "Sure! The question asks about returned orders." }));
    fake.on("answer", () => ({ json: { answer: 7, citations: "E1" } }));
    const o = await ask(QUESTION, config());
    expect(strategyOf(o, "understand")[0]).toMatch(/^classical \(fallback: the reply is not JSON/);
    expect(strategyOf(o, "answer")[0]).toMatch(/^classical \(fallback: the reply does not match the expected schema \(answer: /);
    for (const stage of ["select", "formulate", "critique"]) expect(strategyOf(o, stage), stage).toEqual(["llm"]);
    expect(strategyOf(o, "select-evidence")).toEqual([COMMITTED]);
    expect(o.answer.text).toBe("7");
    expect(o.llm).toMatchObject({ calls: 6, failed: 2 });
  });

  it("refuses an answer whose citations are not evidence of the run or do not state it", async () => {
    script(returnedOrdersScript());
    fake.once("answer", () => ({ json: { answer: "7", citations: ["E99"], confidence: 0.9, answerType: "count", refrainReason: null } }));
    const o = await ask(QUESTION, config());
    expect(strategyOf(o, "answer")[0]).toBe("classical (fallback: the model's answer '7' was rejected: it cites no evidence)");
    fake.reset();
    script(returnedOrdersScript());
    fake.once("answer", (req) => ({
      json: { answer: "12", citations: evidenceIds(req, /returned_orders: 7/), confidence: 0.9, answerType: "count", refrainReason: null },
    }));
    const p = await ask(QUESTION, config());
    expect(strategyOf(p, "answer")[0]).toMatch(/rejected: the cited evidence does not state '12'/);
    expect(p.answer.text).toBe("7");
  });

  it("an endpoint failing with 5xx: bounded retries, then every stage runs classically and the run answers", async () => {
    fake.otherwise({ status: 503, body: { error: { message: "The server is overloaded", type: "server_error" } } });
    const started = Date.now();
    const o = await ask(QUESTION, config({ maxRetries: 2 }));
    // 1 + 2 retries for understand; the breaker then spares every later stage the same failure.
    expect(fake.requests).toHaveLength(3);
    expect(strategyOf(o, "understand")[0]).toBe("classical (fallback: 503 server error: The server is overloaded (after 2 retries))");
    for (const stage of ["select", "formulate", "select-evidence", "answer", "critique"]) {
      expect(strategyOf(o, stage)[0], stage).toMatch(/^classical \(fallback: the endpoint failed earlier in this run: 503 server error/);
    }
    expect(o.status).toBe("ANSWERED");
    expect(o.answer.text).toBe("7");
    expect(o.llm).toMatchObject({ calls: 1, failed: 1, promptTokens: 0, costUsd: 0 });
    // Exponential backoff with jitter: two waits of 250–500 ms and 500–1000 ms.
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(fake.requests[2].at - fake.requests[0].at).toBeGreaterThanOrEqual(700);
  });

  it("a wrong key (401) is not retried and the run falls back with the reason", async () => {
    fake.setOptions({ apiKey: "sk-right" });
    script(returnedOrdersScript());
    const o = await ask(QUESTION, config({ apiKey: "sk-wrong" }));
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0].headers.authorization).toBe("Bearer sk-wrong");
    expect(strategyOf(o, "understand")[0]).toMatch(/^classical \(fallback: 401 unauthorized: the endpoint rejected the API key/);
    expect(strategyOf(o, "critique")[0]).toMatch(/the endpoint failed earlier in this run: 401 unauthorized/);
    expect(o.answer.text).toBe("7");
  });

  it("a wrong key saved in Settings: runs fall back, and Settings shows the failure until the settings are saved again", async () => {
    const prisma = ws.handle.prisma;
    const key = ws.deps.encryptionKey;
    const form = {
      enabled: true,
      baseUrl: fake.url,
      model: "gpt-4o-mini",
      stages: [],
      timeoutMs: null,
      maxRetries: 0,
      structuredOutputs: "auto" as const,
      prices: [],
    };
    fake.setOptions({ apiKey: "sk-right" });
    script(returnedOrdersScript());
    try {
      await saveLlmSettings(prisma, key, { ...form, apiKey: { action: "replace", value: "sk-wrong" } });
      const o = await ask(QUESTION, undefined);
      expect(strategyOf(o, "understand")[0]).toMatch(/^classical \(fallback: 401 unauthorized/);
      expect(o.answer.text).toBe("7");
      await expect
        .poll(async () => (await getLlmSettingsView(prisma, key, parseLlmEnv({}))).lastFailure?.message)
        .toMatch(/^401 unauthorized: the endpoint rejected the API key/);

      await saveLlmSettings(prisma, key, { ...form, apiKey: { action: "replace", value: "sk-right" } });
      expect((await getLlmSettingsView(prisma, key, parseLlmEnv({}))).lastFailure).toBeNull();
      const fixed = await ask(QUESTION, undefined);
      expectLlmStages(fixed);
    } finally {
      await prisma.setting.deleteMany({ where: { key: { in: [LLM_SETTING_KEY, LLM_FAILURE_KEY] } } });
    }
  });

  it("an unreachable endpoint falls back with a connection message", async () => {
    const gone = await startFakeOpenAi();
    const url = gone.url;
    await gone.close();
    const o = await ask(QUESTION, config({ baseUrl: url, maxRetries: 0 }));
    expect(strategyOf(o, "understand")[0]).toMatch(
      /^classical \(fallback: could not reach http:\/\/127\.0\.0\.1:\d+\/v1: nothing is listening there \(connection refused\)\)$/,
    );
    expect(o.answer.text).toBe("7");
  });

  it("times out a slow endpoint, retries within the bound, and keeps the run inside its budget", async () => {
    fake.otherwise({ hang: true });
    const started = Date.now();
    const o = await ask(QUESTION, config({ timeoutMs: 300, maxRetries: 1 }));
    const ms = Date.now() - started;
    expect(fake.requests).toHaveLength(2);
    expect(strategyOf(o, "understand")[0]).toBe("classical (fallback: no reply within 300 ms (after 1 retry))");
    expect(o.answer.text).toBe("7");
    expect(ms).toBeLessThan(8_000);
  });

  it("honours Retry-After on a 429 and then uses the reply", async () => {
    script(returnedOrdersScript());
    fake.once("understand", {
      status: 429,
      headers: { "retry-after": "0.6" },
      body: { error: { message: "Rate limit reached for gpt-4o-mini", type: "requests", code: "rate_limit_exceeded" } },
    });
    const o = await ask(QUESTION, config());
    const calls = fake.calls("understand");
    expect(calls).toHaveLength(2);
    expect(calls[1].at - calls[0].at).toBeGreaterThanOrEqual(600);
    expect(strategyOf(o, "understand")).toEqual(["llm"]);
    const event = await ws.handle.prisma.traceEvent.findFirstOrThrow({
      where: { runId: o.runId, stage: "understand", costUsd: { not: null } },
    });
    expect(event.payload).toMatchObject({ llm: { attempts: 2, ok: true } });
  });

  it("learns that an endpoint has no structured outputs and asks for JSON mode from then on", async () => {
    fake.setOptions({ rejectJsonSchema: true });
    script(returnedOrdersScript());
    const o = await ask(QUESTION, config());
    expectLlmStages(o);
    expect(fake.requests.map((r) => r.responseFormat)).toEqual(["json_schema", ...Array(6).fill("json_object")]);
    expect(fake.requests[1].system).toMatch(/It must match this JSON Schema:/);
  });

  it("a misconfigured run in the middle of a conversation never fails: no endpoint at all reads as classical", async () => {
    const o = await ask(QUESTION, null);
    for (const stage of LLM_STAGES) {
      expect(strategyOf(o, stage).length, stage).toBeGreaterThan(0);
      expect(new Set(strategyOf(o, stage)), stage).toEqual(new Set(["classical"]));
    }
    expect(o.llm).toBeNull();
    expect(fake.requests).toHaveLength(0);
  });
});

describe("generated queries", () => {
  it("retries a query that fails when it runs, once, with the engine's error message", async () => {
    script(returnedOrdersScript());
    fake.on("formulate.sql", () => ({
      json: { query: "SELECT COUNT(*) AS returned_orders FROM orders WHERE state = 'returned'", explanation: "Counts returned orders." },
    }));
    fake.on("formulate.repair", () => ({
      json: { query: "SELECT COUNT(*) AS returned_orders FROM orders WHERE status = 'returned'", explanation: "Uses the status column." },
    }));
    const o = await ask(QUESTION, config());
    const repair = fake.calls("formulate.repair");
    expect(repair).toHaveLength(1);
    expect(blocks(repair[0]).previous_query).toBe("SELECT COUNT(*) AS returned_orders FROM orders WHERE state = 'returned'");
    expect(blocks(repair[0]).error).toMatch(/no such column: state/);
    expect(strategyOf(o, "execute")).toEqual(["classical + llm repair (1 query)"]);
    const q = o.queries.find((x) => x.query.text.includes("returned_orders"))!;
    expect(q).toMatchObject({ status: "ok", rows: 1 });
    expect(q.explanation).toMatch(/^Rewritten by the model after the error ".*no such column: state/);
    expect(o.queries.some((x) => x.query.text.includes("state ="))).toBe(false);
    expect(o.answer.text).toBe("7");
  });

  it("rewrites a query that does not parse once, with the parser's message, before anything runs", async () => {
    script(returnedOrdersScript());
    fake.on("formulate.sql", () => ({
      json: { query: "SELECT COUNT(* FROM orders WHERE status = 'returned'", explanation: "Counts returned orders." },
    }));
    fake.on("formulate.repair", () => ({
      json: { query: "SELECT COUNT(*) AS returned_orders FROM orders WHERE status = 'returned'", explanation: "Fixed the parenthesis." },
    }));
    const o = await ask(QUESTION, config());
    const repair = fake.calls("formulate.repair");
    expect(repair).toHaveLength(1);
    expect(blocks(repair[0]).error).toMatch(/^The query could not be parsed/);
    expect(strategyOf(o, "execute")).toEqual(["classical"]);
    expect(o.queries[0]).toMatchObject({
      status: "ok",
      query: { text: "SELECT COUNT(*) AS returned_orders FROM orders WHERE status = 'returned'" },
    });
    expect(o.queries[0].explanation).toMatch(/after a parse error/);
  });

  it("refuses unsafe generated SQL without running or retrying it; the source keeps its classical queries", async () => {
    const file = path.join(ws.deps.dataDir, "kbs", await ws.kbId(SALES), "database.sqlite");
    for (const unsafe of [
      "DELETE FROM orders WHERE status = 'returned'",
      "SELECT 1; DROP TABLE orders",
      "WITH gone AS (DELETE FROM orders RETURNING *) SELECT * FROM gone",
    ]) {
      fake.reset();
      script(returnedOrdersScript());
      fake.on("formulate.sql", () => ({ json: { query: unsafe, explanation: "Trust me." } }));
      const o = await ask(QUESTION, config());
      expect(fake.calls("formulate.repair"), unsafe).toHaveLength(0);
      expect(
        o.queries.some((q) => q.query.text === unsafe || /DELETE|DROP/i.test(q.query.text)),
        unsafe,
      ).toBe(false);
      expect(o.queries.filter((q) => q.kbName === SALES).length, unsafe).toBeGreaterThan(0);
      const refused = await ws.handle.prisma.traceEvent.findFirst({
        where: { runId: o.runId, stage: "formulate", summary: { contains: "refused the generated SQL" } },
      });
      expect(refused?.payload, unsafe).toMatchObject({ refused: { kbName: SALES, language: "sql", query: unsafe } });
      expect(strategyOf(o, "formulate"), unsafe).toEqual(["llm"]);
      expect(o.answer.text).toBe("7");
    }
    const sqlite = new Database(file, { readonly: true });
    try {
      expect(sqlite.prepare("SELECT COUNT(*) AS n FROM orders WHERE status = 'returned'").get()).toEqual({ n: 7 });
    } finally {
      sqlite.close();
    }
  });

  it("refuses a SPARQL update", async () => {
    const question = "Who is the chief executive of Aurora Outfitters GmbH?";
    fake.on("understand", () => ({
      json: {
        completed: question,
        wh: "who",
        answerTypes: ["person"],
        entities: ["Aurora Outfitters GmbH"],
        relation: "chief executive",
        time: [],
        locations: [],
        aggregate: null,
        superlative: null,
      },
    }));
    fake.on("select", (req) => ({
      json: {
        candidates: [{ kb: catalogId(req, GRAPH), sourceObjects: [], reason: "The graph has the organisations and their executives." }],
      },
    }));
    fake.on("formulate.sparql", () => ({
      json: { query: 'INSERT DATA { <urn:x> <urn:ceo> "Mallory" }', explanation: "Records the answer." },
    }));
    fake.on("answer", (req) => ({
      json: {
        answer: "Anke Vogel",
        citations: evidenceIds(req, /Anke Vogel/).slice(0, 2),
        confidence: 0.85,
        answerType: "person",
        refrainReason: null,
      },
    }));
    fake.on("critique.validator", () => ({ json: { valid: true, reason: "Cited." } }));
    const o = await ask(question, config());
    expect(strategyOf(o, "formulate")[0]).toMatch(
      /^classical \(fallback: the generated SPARQL was refused by the safety checks \(SPARQL updates are not allowed/,
    );
    expect(o.queries.some((q) => /INSERT/i.test(q.query.text))).toBe(false);
    expect(o.answer.text).toBe("Anke Vogel");
    expect(cited(o).some((e) => e.piece.kind === "triple")).toBe(true);
  });
});

describe("source selection by the model", () => {
  it("rejects knowledge bases outside its catalog, including ones the run may not use", async () => {
    const docs = await ws.kbId(DOCS);
    const sales = await ws.kbId(SALES);
    script(returnedOrdersScript());
    fake.on("select", () => ({
      json: {
        candidates: [
          { kb: "K9", sourceObjects: [], reason: "made up" },
          { kb: docs, sourceObjects: [], reason: "not requested" },
        ],
      },
    }));
    const o = await ask(QUESTION, config(), { kbIds: [sales] });
    const select = fake.calls("select")[0];
    expect((blocks(select).catalog as { name: string }[]).map((c) => c.name)).toEqual([SALES]);
    expect(strategyOf(o, "select")[0]).toBe("classical (fallback: the model named only knowledge bases outside its catalog)");
    expect(o.candidates.map((c) => c.kbName)).toEqual([SALES]);
    const note = await ws.handle.prisma.traceEvent.findFirst({
      where: { runId: o.runId, stage: "select", summary: { startsWith: "Rejected knowledge bases" } },
    });
    expect(note?.summary).toContain('"K9"');
    expect(o.answer.text).toBe("7");
  });
});

describe("the critic loop", () => {
  it("validator no → commentor's wrong_source → the next round leaves that source out → validator yes", async () => {
    script(returnedOrdersScript());
    fake.on("select", (req) => {
      const names = (blocks(req).catalog as { name: string }[]).map((c) => c.name);
      return names.includes(DOCS)
        ? { json: { candidates: [{ kb: catalogId(req, DOCS), sourceObjects: [], reason: "The returns policy." }] } }
        : { json: { candidates: [{ kb: catalogId(req, SALES), sourceObjects: ["orders"], reason: "Orders with their status." }] } };
    });
    fake.on("answer", (req) => {
      const ids = evidenceIds(req, /returned_orders: 7\b/);
      return ids.length
        ? { json: { answer: "7", citations: ids, confidence: 0.9, answerType: "count", refrainReason: null } }
        : {
            json: { answer: "unknown", citations: [], confidence: 0, answerType: null, refrainReason: "The policy does not count orders." },
          };
    });
    fake.on("critique.commentor", () => ({
      json: { type: "wrong_source", target: DOCS, detail: "Policies cannot count orders; a database can." },
    }));
    const o = await ask(QUESTION, config());

    expect(o.iterations).toHaveLength(2);
    expect(o.iterations[0]).toMatchObject({
      round: 1,
      accepted: false,
      feedback: { type: "wrong_source", target: DOCS },
      candidates: [DOCS],
    });
    expect(o.iterations[0].answer).toMatch(/^refrained: The evidence does not hold the answer: The policy does not count orders/);
    expect(o.iterations[1]).toMatchObject({ round: 2, accepted: true, feedback: null, candidates: [SALES] });
    expect(o.answer.text).toBe("7");
    expect(strategyOf(o, "critique")).toEqual(["llm", "llm"]);
    // Round 2's catalog no longer holds the ruled-out source.
    const selects = fake.calls("select");
    expect((blocks(selects[1]).catalog as { name: string }[]).map((c) => c.name)).not.toContain(DOCS);
    // A refusal is not sent to the validator; the commentor gets the guides' corrections as few-shot examples.
    expect(fake.calls("critique.validator")).toHaveLength(1);
    const commentor = fake.calls("critique.commentor");
    expect(commentor).toHaveLength(1);
    expect(blocks(commentor[0]).corrections).toEqual([
      { question: "How many orders were shipped?", runAnswer: "120", correctAnswer: "113" },
    ]);
    expect(blocks(commentor[0]).sources).toEqual([DOCS]);
    expect(o.guides.map((g) => g.guideId)).toContain(guideId);
  });

  it("a feedback that names nothing of the round gives way to the classical commentor, which here has none: the answer stands", async () => {
    script(returnedOrdersScript());
    fake.on("critique.validator", () => ({ json: { valid: false, reason: "Not convinced." } }));
    fake.on("critique.commentor", () => ({ json: { type: "wrong_source", target: "Some other database", detail: "Use another source." } }));
    const o = await ask(QUESTION, config(), { config: { maxRounds: 2 } });
    // The classical rules find nothing to correct (every check passed), so another round would repeat itself.
    expect(o.iterations).toEqual([expect.objectContaining({ round: 1, accepted: true, feedback: null })]);
    const run = await ws.handle.prisma.traceEvent.findFirstOrThrow({ where: { runId: o.runId, stage: "critique", type: "END" } });
    const checks = (run.payload as { checks: { name: string; passed: boolean; detail: string }[] }).checks;
    expect(checks[0]).toEqual({ name: "model validator", passed: false, detail: "Not convinced." });
    expect(checks.at(-1)).toMatchObject({
      name: "corrective feedback",
      passed: true,
      detail: expect.stringMatching(/another round would repeat itself/),
    });
    expect(o.answer.text).toBe("7");
    const note = await ws.handle.prisma.traceEvent.findFirst({
      where: { runId: o.runId, stage: "critique", summary: { contains: "cannot be used" } },
    });
    expect(note?.summary).toMatch(/wrong_source names 'Some other database', which is not a source of this round/);
  });

  it("on the last round a 'no' ends the loop without asking the commentor", async () => {
    script(returnedOrdersScript());
    fake.on("critique.validator", () => ({ json: { valid: false, reason: "The count may include exchanges." } }));
    const o = await ask(QUESTION, config(), { config: { maxRounds: 1 } });
    expect(fake.calls("critique.commentor")).toHaveLength(0);
    expect(o.iterations).toEqual([expect.objectContaining({ round: 1, accepted: false, feedback: null })]);
    expect(o.answer.text).toBe("7");
  });
});
