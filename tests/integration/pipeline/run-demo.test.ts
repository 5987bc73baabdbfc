import { createServer } from "node:http";
import { beforeAll, describe, expect, it } from "vitest";
import type { RunOutcome } from "@/lib/pipeline/run";
import { runPipeline } from "@/lib/runs/run-pipeline";
import { useDemoWorkspace } from "../support/demo-workspace";
import { TARGET_ENGINE } from "../support/test-database";

/** End-to-end runs of the classical pipeline on the demo catalog (real PGlite, SQLite, FTS5, Oxigraph). */
describe(`answering pipeline on the demo catalog (${TARGET_ENGINE})`, () => {
  const ws = useDemoWorkspace("mosaic-run-");
  const { ask } = ws;
  const cited = (o: RunOutcome) => o.evidence.filter((e) => o.answer.citations.includes(e.piece.id));

  it("answers from a document sentence and cites the passage", async () => {
    const o = await ask("What percentage of products contained recycled or certified materials in 2025?");
    expect(o.answer.refrained).toBe(false);
    expect(o.answer.text).toMatch(/68\s*(percent|%)/);
    expect(cited(o).some((e) => e.piece.kind === "passage" && e.piece.provenance.kbName === "Aurora policies and reports")).toBe(true);
    expect(cited(o).some((e) => e.piece.provenance.kbName === "Aurora policies and reports")).toBe(true);
  });

  it("answers from a table cell in a document", async () => {
    const o = await ask("What is the hotel cap per night in Oslo?");
    expect(o.answer.text).toContain("210");
    expect(cited(o).some((e) => e.piece.kind === "row")).toBe(true);
  });

  it("answers an SQL aggregate", async () => {
    const o = await ask("How many orders were returned?");
    expect(o.answer.text).toMatch(/\b7\b/);
    expect(o.winner?.kbName).toBe("Aurora sales database");
    expect(o.queries.some((q) => /count\(/i.test(q.query.text))).toBe(true);
  });

  it("answers an RDF fact with a triple", async () => {
    const o = await ask("Who is the chief executive of Aurora Outfitters GmbH?");
    expect(o.answer.text).toContain("Anke Vogel");
    expect(cited(o).some((e) => e.piece.kind === "triple")).toBe(true);
  });

  it("answers two hops in the RDF graph with the SPARQL answer query along both predicates, the path among the evidence", async () => {
    const o = await ask("In which city is the company that makes the Fjord Down Jacket located?");
    expect(o.answer.refrained).toBe(false);
    expect(o.answer.text).toBe("Oslo");
    expect(o.answer.shape?.kind).toBe("scalar");
    const [first] = cited(o);
    expect(first.piece.provenance.kbName).toBe("Aurora product and organisation graph");
    // The answer query joins product → organisation → city along "made by" and "located in".
    expect(first.piece.provenance.query).toMatch(/madeBy/);
    expect(first.piece.provenance.query).toMatch(/locatedIn/);
    // The 2-hop path query still runs for the evidence.
    expect(o.queries.some((q) => q.query.language === "sparql" && /\?n0 \?p1 \?d1 \?n1 \?p2 \?d2 \?n2/.test(q.query.text))).toBe(true);
  });

  it("answers a question that needs two kinds of source: a graph fact leads to a document table row", async () => {
    const o = await ask("What is the hotel cap per night in the city where Fjelltex Textiles is located?");
    expect(o.answer.refrained).toBe(false);
    expect(o.answer.text).toMatch(/^210\b/);
    const kinds = new Set(cited(o).map((e) => `${e.piece.kind}@${e.piece.provenance.kbName}`));
    expect(kinds).toContain("triple@Aurora product and organisation graph");
    expect(kinds).toContain("row@Aurora policies and reports");
    expect(cited(o).find((e) => e.piece.kind === "triple")?.piece.text).toBe("Fjelltex Textiles located in Oslo");
    expect(o.iterations[0].accepted).toBe(true);
  });

  it("answers a relation phrased as a verb the schema names differently ('makes' → 'made by')", async () => {
    const o = await ask("Who makes the Fjord Down Jacket?");
    expect(o.answer.text).toBe("Fjelltex Textiles");
    expect(cited(o)[0].piece.text).toBe("Fjord Down Jacket made by Fjelltex Textiles");
  });

  it("answers a breakdown per group with a table and a chart, not the total ('total revenue in 2024 by region')", async () => {
    const o = await ask("What was total revenue in 2024 by region?");
    expect(o.answer.refrained).toBe(false);
    expect(o.answer.shape).toMatchObject({
      kind: "table",
      columns: ["Region", "Revenue 2024 (EUR million)"],
      chart: { kind: "bar", x: 0, y: [1] },
    });
    expect(o.answer.shape?.rows).toEqual([
      ["Nordics", "24.1"],
      ["Central Europe", "11.0"],
      ["United Kingdom", "7.9"],
    ]);
    expect(o.answer.text).not.toMatch(/43\.0/);
    expect(cited(o).every((e) => e.piece.kind === "row")).toBe(true);
  });

  it("answers a list question with every value, not a refusal ('Which products are in the Tents category?')", async () => {
    const o = await ask("Which products are in the Tents category?");
    expect(o.answer.refrained).toBe(false);
    expect(o.answer.shape?.kind).toBe("list");
    expect(o.answer.shape?.rows.map((r) => r[0]).sort()).toEqual(["Basecamp 4 Tent", "Summit 2 Tent"]);
    expect(o.answer.text).toBe("Summit 2 Tent and Basecamp 4 Tent");
    expect(o.winner?.kbName).toBe("Aurora sales database");
  });

  it("answers a superlative from the ordered SQL query", async () => {
    const o = await ask("Which product has the highest list price?");
    expect(o.answer.refrained).toBe(false);
    expect(o.answer.text).toBe("Basecamp 4 Tent");
    expect(o.winner?.kbName).toBe("Aurora sales database");
  });

  it("refrains when the sources do not hold the answer, with the reason", async () => {
    const o = await ask("What is the warranty period of the Quantum Flux Capacitor?");
    expect(o.answer.refrained).toBe(true);
    expect(o.answer.reason).toBeTruthy();
    expect(o.status).toBe("REFRAINED");
  });

  it("completes a follow-up question from the conversation", async () => {
    const first = await ask("Who is the chief executive of Aurora Outfitters AB?");
    expect(first.answer.text).toContain("Maria Lindqvist");
    const follow = await ask("Where is it located?", { conversationId: first.conversationId });
    expect(follow.intent?.completed).toMatch(/Aurora Outfitters AB/);
    expect(follow.answer.text).toContain("Stockholm");
  });

  it("stores the run with its trace, timings and result", async () => {
    const o = await ask("How many customers are there?");
    const run = await ws.handle.prisma.run.findUniqueOrThrow({ where: { id: o.runId }, include: { traceEvents: true } });
    expect(run.status).toBe(o.status);
    expect(run.traceEvents.map((e) => e.stage)).toEqual(
      expect.arrayContaining(["understand", "select", "formulate", "execute", "pool", "rerank", "select-evidence", "answer", "critique"]),
    );
    expect(Object.keys(run.timings as object)).toEqual(expect.arrayContaining(["understand", "select", "total"]));
    expect((run.result as { runId: string }).runId).toBe(o.runId);
  });

  it("rejects an empty question and cuts a 10,000-character one with a recorded degradation", async () => {
    await expect(ask("   ")).rejects.toMatchObject({ code: "VALIDATION" });
    const o = await ask(`How many orders were returned? ${"very ".repeat(2000)}`);
    expect(o.degradations.join(" ")).toMatch(/only the first/);
    expect(["ANSWERED", "REFRAINED"]).toContain(o.status);
  });

  it("processes a question in another language and records the degradation", async () => {
    const o = await ask("Wie viele Bestellungen wurden zurückgeschickt?");
    expect(["ANSWERED", "REFRAINED"]).toContain(o.status);
    expect(o.intent?.language).toBe("de");
    expect(o.degradations.some((d) => /in German, not English/.test(d))).toBe(true);
  });

  it("records a knowledge base that hangs mid-run and answers from the others", async () => {
    // A SPARQL endpoint that accepts connections and never answers.
    const sockets = new Set<import("node:net").Socket>();
    const hanging = createServer(() => undefined);
    hanging.on("connection", (s) => sockets.add(s));
    await new Promise<void>((resolve) => hanging.listen(0, "127.0.0.1", resolve));
    const port = (hanging.address() as import("node:net").AddressInfo).port;
    const slow = await ws.handle.prisma.knowledgeBase.create({
      data: {
        name: "Partner graph (hanging)",
        kind: "SPARQL",
        description: "Orders returned by partners",
        config: { mode: "remote", endpoint: `http://127.0.0.1:${port}/sparql` },
        status: "HEALTHY",
        openToEveryone: true,
      },
    });
    try {
      const sales = await ws.handle.prisma.knowledgeBase.findFirstOrThrow({ where: { name: "Aurora sales database" } });
      const started = Date.now();
      const o = await runPipeline(ws.handle.prisma, ws.deps, {
        question: "How many orders were returned?",
        user: ws.user,
        kbIds: [sales.id, slow.id],
        config: { queryTimeoutMs: 1_000, timeBudgetMs: 12_000, maxRounds: 1 },
      });
      expect(Date.now() - started).toBeLessThan(12_000);
      expect(o.answer.text).toMatch(/\b7\b/);
      expect(o.degradations.some((d) => d.includes("Partner graph (hanging)"))).toBe(true);
      const stored = await ws.handle.prisma.run.findUniqueOrThrow({ where: { id: o.runId } });
      expect(stored.status).toBe("ANSWERED");
    } finally {
      await ws.handle.prisma.knowledgeBase.delete({ where: { id: slow.id } });
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => hanging.close(resolve));
    }
  });

  it("is cancellable", async () => {
    const controller = new AbortController();
    controller.abort();
    const o = await runPipeline(ws.handle.prisma, ws.deps, {
      question: "How many orders were returned?",
      user: ws.user,
      signal: controller.signal,
    });
    expect(o.status).toBe("CANCELLED");
  });
});

describe("extraction guides at run time", () => {
  const ws = useDemoWorkspace("mosaic-guide-");
  let analyst: { id: string; role: "ANALYST"; groupIds: string[] };

  beforeAll(async () => {
    const a = await ws.handle.prisma.user.findUniqueOrThrow({ where: { email: "analyst@mosaic.local" }, include: { memberships: true } });
    analyst = { id: a.id, role: "ANALYST", groupIds: a.memberships.map((m) => m.groupId) };
  });

  it("saves a run as a guide and the next similar question retrieves and uses it", async () => {
    const first = await runPipeline(ws.handle.prisma, ws.deps, { question: "How many orders were returned?", user: analyst });
    const { saveRunAsGuide } = await import("@/lib/guides/from-run");
    const guide = await saveRunAsGuide(ws.handle.prisma, analyst, first.runId);
    const stored = await ws.handle.prisma.extractionGuide.findUniqueOrThrow({
      where: { id: guide.id },
      include: { sources: { include: { actions: true } } },
    });
    expect(stored.question).toBe("How many orders were returned?");
    expect(stored.sources[0].actions[0]).toMatchObject({ kind: "NATIVE_QUERY" });
    expect(stored.sources[0].actions[0].context).toMatch(/7/);
    await expect(saveRunAsGuide(ws.handle.prisma, analyst, first.runId)).rejects.toMatchObject({ code: "CONFLICT" });

    const next = await runPipeline(ws.handle.prisma, ws.deps, { question: "How many orders were shipped?", user: analyst });
    expect(next.guides.map((g) => g.guideId)).toContain(guide.id);
    expect(await ws.handle.prisma.runGuideUse.count({ where: { guideId: guide.id, runId: next.runId } })).toBe(1);
    expect(next.candidates[0]?.reasons.some((r) => r.type === "guide")).toBe(true);
    expect(next.answer.text).toMatch(/\b113\b/);
  });

  it("a malformed guide is reported and skipped, never crashing the run", async () => {
    const kb = await ws.handle.prisma.knowledgeBase.findFirstOrThrow({ where: { kind: "SQL" } });
    await ws.handle.prisma.extractionGuide.create({
      data: {
        question: "How many customers are there?",
        sources: { create: [{ kbId: kb.id, actions: { create: [{ kind: "NATIVE_QUERY", params: { nonsense: true } }] } }] },
      },
    });
    const o = await runPipeline(ws.handle.prisma, ws.deps, { question: "How many customers are there?", user: analyst });
    expect(o.degradations.join(" ")).toMatch(/malformed/);
    expect(o.answer.text).toMatch(/\b12\b/);
  });
});
