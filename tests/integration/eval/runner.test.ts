import Database from "better-sqlite3";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeAllBackends, kbStorageDir } from "@/lib/backends/registry";
import type { CatalogDeps } from "@/lib/deps";
import { openAndBootstrap } from "@/lib/db/bootstrap";
import type { DatabaseHandle } from "@/lib/db/connect";
import { DEMO_KB_NAMES, seedDemoCatalogOnce } from "@/lib/demo/seed-catalog";
import { executionMatch } from "@/lib/eval/metrics/execution";
import { executeEvalRun, type EvalRunParams, openReport, planEvalRun } from "@/lib/eval/runner";
import { demoSuite } from "@/lib/eval/suites/demo";
import type { SuiteDefinition } from "@/lib/eval/types";
import { createTestDatabase, type TestDatabase } from "../support/test-database";

/** The evaluation runner on the demo catalog: real PGlite, SQLite, FTS5 and Oxigraph, real pipeline runs. */
describe("evaluation runner (demo catalog)", () => {
  let db: TestDatabase;
  let handle: DatabaseHandle;
  let deps: CatalogDeps;
  let admin: { id: string; role: "ADMIN"; groupIds: string[] };

  beforeAll(async () => {
    db = await createTestDatabase();
    handle = (await openAndBootstrap(db.env)).handle;
    deps = {
      dataDir: mkdtempSync(path.join(tmpdir(), "mosaic-eval-")),
      encryptionKey: Buffer.alloc(32, 7),
      datasetsDir: "../shared/datasets",
    };
    await seedDemoCatalogOnce(handle.prisma, deps);
    const a = await handle.prisma.user.findUniqueOrThrow({ where: { email: "admin@mosaic.local" } });
    admin = { id: a.id, role: "ADMIN", groupIds: [] };
  }, 120_000);
  afterAll(async () => {
    await closeAllBackends();
    await handle.close();
    await db.cleanup();
  });

  const params = (over: Partial<EvalRunParams> = {}): EvalRunParams => ({
    suite: "demo",
    seed: 3,
    limit: null,
    configInput: {},
    concurrency: 2,
    origin: "cli",
    ...over,
  });
  /** The demo suite narrowed to some of its questions (by position in the suite), in that order. */
  const subset = (...ids: number[]): SuiteDefinition => {
    const s = demoSuite();
    return { ...s, questions: ids.map((i) => s.questions.find((q) => q.id === `demo:${i}`)!), order: (qs) => qs };
  };

  async function run(p: EvalRunParams, suite?: SuiteDefinition, signal?: AbortSignal, onQuestion?: () => void) {
    const plan = await planEvalRun(handle.prisma, deps, admin, p, suite);
    const opened = await openReport(handle.prisma, admin, plan);
    const report = await executeEvalRun(handle.prisma, deps, admin, plan, opened.reportId, { signal, onQuestion });
    return { plan, opened, report };
  }

  it("scores every question, stores the report, and judges execution match against the gold SQL's result", async () => {
    // 12: returned orders (SQL gold), 14: customers (SQL gold), 19: CEO of GmbH (answer gold), 25: unanswerable.
    const { report } = await run(params(), subset(12, 14, 19, 25));
    expect(report.status).toBe("DONE");
    expect(report.n).toBe(4);
    const byId = new Map(report.perQuestion.map((r) => [r.id, r]));

    // Gold computed on the demo KB: 7 returned orders, 12 customers.
    expect(byId.get("demo:12")!.gold.answers).toEqual(["7"]);
    expect(byId.get("demo:14")!.gold.answers).toEqual(["12"]);
    expect(byId.get("demo:19")!.gold.answers).toEqual(["Anke Vogel"]);
    expect(byId.get("demo:25")!.gold.unanswerable).toBe(true);

    // Execution match agrees with an independent check: the recorded query and the gold SQL run on the KB's file.
    const kb = await handle.prisma.knowledgeBase.findUniqueOrThrow({ where: { name: DEMO_KB_NAMES.sql } });
    const file = path.join(kbStorageDir(deps.dataDir, kb.id), "database.sqlite");
    const sqlite = new Database(file, { readonly: true });
    try {
      for (const [id, gold] of [
        ["demo:12", "SELECT count(*) FROM orders WHERE status = 'returned'"],
        ["demo:14", "SELECT count(*) FROM customers"],
      ] as const) {
        const ex = byId.get(id)!.execution!;
        expect(ex).not.toBeNull();
        if (ex.language !== "sql" || ex.kbName !== DEMO_KB_NAMES.sql) {
          expect(ex.match).toBe(false);
          continue;
        }
        const table = (sql: string) => {
          const stmt = sqlite.prepare(sql).raw(true);
          return { columns: stmt.columns().map((c) => c.name), rows: stmt.all() as unknown[][], truncated: false };
        };
        expect(ex.match).toBe(executionMatch(table(gold), table(ex.query), false));
        expect(ex.matchColumns).toBe(executionMatch(table(gold), table(ex.query), false, { extraColumns: true }));
      }
    } finally {
      sqlite.close();
    }

    // The unanswerable question: the decision is right exactly when the run refrained.
    const none = byId.get("demo:25")!;
    expect(none.refrain.correctDecision).toBe(none.refrain.refrained);
    expect(none.scores.p1).toBeNull();

    // Source selection is scored where the suite names a gold KB; answer presence was observed on the pool and each re-rank round.
    const ceo = byId.get("demo:19")!;
    expect(ceo.source.inCandidates).not.toBeNull();
    expect(Object.keys(ceo.presence!)).toEqual(expect.arrayContaining(["pool", "evidence"]));
    expect(Object.keys(ceo.presence!).some((k) => k.startsWith("rerank:1:"))).toBe(true);
    expect(ceo.runId).toBeTruthy();
    expect(await handle.prisma.run.count({ where: { id: ceo.runId! } })).toBe(1);

    // The report and its journal are in the database.
    const stored = await handle.prisma.evalReport.findUniqueOrThrow({ where: { id: report.reportId }, include: { results: true } });
    expect(stored.status).toBe("DONE");
    expect(stored.results).toHaveLength(4);
    expect((stored.metrics as { n: number }).n).toBe(4);
    expect(report.metrics.counts.answered + report.metrics.counts.refrained + report.metrics.counts.failed).toBe(4);
    expect(report.metrics.latency.total.n).toBe(4);
  });

  it("resumes a cancelled run: finished questions are kept and not asked again", async () => {
    const suite = subset(1, 2, 3, 4, 5, 6, 7, 8);
    const p = params({ seed: 11, concurrency: 1 });
    const controller = new AbortController();
    let seen = 0;
    const first = await run(p, suite, controller.signal, () => {
      if (++seen === 3) controller.abort();
    });
    expect(first.report.status).toBe("CANCELLED");
    expect(first.report.n).toBe(3);

    const runsBefore = await handle.prisma.run.count();
    const second = await run(p, suite);
    expect(second.opened.reportId).toBe(first.report.reportId);
    expect(second.opened.resumedFrom).toBe(3);
    expect(second.report.status).toBe("DONE");
    expect(second.report.n).toBe(8);
    // Only the five questions left were run.
    expect((await handle.prisma.run.count()) - runsBefore).toBe(5);
    expect(new Set(second.report.perQuestion.map((r) => r.position))).toEqual(new Set([0, 1, 2, 3, 4, 5, 6, 7]));

    // A finished report is not resumed: the same command measures again in a new report.
    const third = await run(p, subset(1));
    expect(third.opened.reportId).not.toBe(first.report.reportId);
  });

  it("asks a follow-up in its earlier question's conversation, after it, whatever the draw and concurrency", async () => {
    // 16: customers in Munich; 75: "And in Berlin?" (follows 16); 76: "And in Vienna?" (follows 75); 14: on its own.
    // Listed follow-ups first: the plan moves each right after the question it follows up.
    const { plan, report } = await run(params({ concurrency: 3, fresh: true }), subset(76, 75, 14, 16));
    expect(plan.questions.map((q) => q.id)).toEqual(["demo:14", "demo:16", "demo:75", "demo:76"]);
    expect(report.status).toBe("DONE");
    const byId = new Map(report.perQuestion.map((r) => [r.id, r]));
    const munich = byId.get("demo:16")!;
    expect(munich.conversationId).toBeTruthy();
    expect(byId.get("demo:75")!.followUpOf).toBe("demo:16");
    expect(byId.get("demo:75")!.conversationId).toBe(munich.conversationId);
    expect(byId.get("demo:76")!.conversationId).toBe(munich.conversationId);
    expect(byId.get("demo:14")!.conversationId).not.toBe(munich.conversationId);
    // The conversation holds the three turns in order, as the Ask page would have asked them.
    const turns = await handle.prisma.run.findMany({
      where: { conversationId: munich.conversationId! },
      orderBy: { createdAt: "asc" },
      select: { question: true },
    });
    expect(turns.map((t) => t.question)).toEqual(["Which customers are located in Munich?", "And in Berlin?", "And in Vienna?"]);
    // Each result carries its category as a tag, and the report breaks the metrics down by it.
    expect(munich.tags).toContain("category:sales-lookup");
    expect(Object.keys(report.metrics.breakdowns?.category ?? {}).sort()).toEqual(["follow-up", "sales-lookup"]);
  });

  it("keys the journal by suite, config and seed; --fresh starts over", async () => {
    const controller = new AbortController();
    controller.abort();
    const a = await run(params({ seed: 21 }), subset(1, 2), controller.signal);
    expect(a.report.status).toBe("CANCELLED");
    const otherConfig = await run(params({ seed: 21, configInput: { candidates: 2 } }), subset(1));
    expect(otherConfig.opened.reportId).not.toBe(a.report.reportId);
    const fresh = await run(params({ seed: 21, fresh: true }), subset(1));
    expect(fresh.opened.reportId).not.toBe(a.report.reportId);
    expect(fresh.report.config).toMatchObject({ candidates: 3, llm: "default" });
    expect(otherConfig.report.configInput).toEqual({ candidates: 2 });
  });

  it("refuses a config it does not know, naming the settings", async () => {
    await expect(planEvalRun(handle.prisma, deps, admin, params({ configInput: { candidate: 5 } }))).rejects.toMatchObject({
      code: "VALIDATION",
      message: expect.stringMatching(/candidates/),
    });
    await expect(planEvalRun(handle.prisma, deps, admin, params({ configInput: { candidates: 0 } }))).rejects.toMatchObject({
      code: "VALIDATION",
    });
  });

  it("draws the same questions for the same seed, and a limit takes the first of that order", async () => {
    const a = await planEvalRun(handle.prisma, deps, admin, params({ seed: 5, limit: 6 }));
    const b = await planEvalRun(handle.prisma, deps, admin, params({ seed: 5, limit: 10 }));
    const c = await planEvalRun(handle.prisma, deps, admin, params({ seed: 6, limit: 6 }));
    expect(b.questions.slice(0, 6).map((q) => q.id)).toEqual(a.questions.map((q) => q.id));
    expect(c.questions.map((q) => q.id)).not.toEqual(a.questions.map((q) => q.id));
    expect(a.journalKey).toBe(b.journalKey);
  });

  it("says how to get the suite's knowledge bases when they are missing", async () => {
    await expect(planEvalRun(handle.prisma, deps, admin, params({ suite: "text2cypher" }))).rejects.toMatchObject({
      code: "UNAVAILABLE",
      message: expect.stringMatching(/NEO4J_URI/),
    });
    await expect(planEvalRun(handle.prisma, deps, admin, params({ suite: "spider" }))).rejects.toMatchObject({
      code: "UNAVAILABLE",
      message: expect.stringMatching(/catalog:load-benchmarks/),
    });
    await expect(planEvalRun(handle.prisma, deps, admin, params({ suite: "nope" }))).rejects.toMatchObject({ code: "NOT_FOUND" });
  });
});
