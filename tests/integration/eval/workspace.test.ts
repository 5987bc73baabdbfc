import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeAllBackends } from "@/lib/backends/registry";
import type { CatalogDeps } from "@/lib/deps";
import { openAndBootstrap } from "@/lib/db/bootstrap";
import type { DatabaseHandle } from "@/lib/db/connect";
import { DEMO_KB_NAMES, seedDemoCatalogOnce } from "@/lib/demo/seed-catalog";
import { createAuthoredSuite, deleteAuthoredSuite, listAuthoredSuites, listAuthoringSources } from "@/lib/eval/authoring";
import { waitForEvalRun } from "@/lib/eval/background";
import { executeEvalRun, openReport, planEvalRun } from "@/lib/eval/runner";
import {
  cancelReport,
  compareStoredReports,
  deleteReport,
  exportReport,
  getReport,
  listReportQuestions,
  listReports,
  listSuiteOptions,
  resumeReport,
  startReport,
} from "@/lib/eval/reports";
import { runPipeline } from "@/lib/runs/run-pipeline";
import { createTestDatabase, type TestDatabase } from "../support/test-database";

type Subject = { id: string; role: "ADMIN" | "ANALYST" | "USER"; groupIds: string[] };

/** Suites authored from guides and feedback, and reports as the dashboard serves them, with access rules. */
describe("evaluation in the workspace: authored suites and reports", () => {
  let db: TestDatabase;
  let handle: DatabaseHandle;
  let deps: CatalogDeps;
  let admin: Subject;
  let analyst: Subject;
  let secondAnalyst: Subject;
  const ids = { sqlKb: "", rdfKb: "", guide: "", noAnswerGuide: "", secretGuide: "", wrongFeedback: "", helpfulFeedback: "" };

  const subject = async (email: string): Promise<Subject> => {
    const u = await handle.prisma.user.findUniqueOrThrow({ where: { email }, include: { memberships: true } });
    return { id: u.id, role: u.role, groupIds: u.memberships.map((m) => m.groupId) };
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    handle = (await openAndBootstrap(db.env)).handle;
    deps = {
      dataDir: mkdtempSync(path.join(tmpdir(), "mosaic-eval-ws-")),
      encryptionKey: Buffer.alloc(32, 4),
      datasetsDir: "../shared/datasets",
    };
    await seedDemoCatalogOnce(handle.prisma, deps);
    admin = await subject("admin@mosaic.local");
    analyst = await subject("analyst@mosaic.local");
    const p = handle.prisma;
    const second = await p.user.create({
      data: { email: "second@mosaic.local", name: "Second Analyst", role: "ANALYST", passwordHash: "x" },
    });
    secondAnalyst = { id: second.id, role: "ANALYST", groupIds: [] };
    ids.sqlKb = (await p.knowledgeBase.findUniqueOrThrow({ where: { name: DEMO_KB_NAMES.sql } })).id;
    ids.rdfKb = (await p.knowledgeBase.findUniqueOrThrow({ where: { name: DEMO_KB_NAMES.sparql } })).id;

    const guide = (question: string, answer: string | null, kbId: string) =>
      p.extractionGuide.create({
        data: {
          question,
          answer,
          createdById: admin.id,
          sources: { create: [{ kbId, actions: { create: [{ kind: "NATIVE_QUERY", params: { language: "sql", text: "SELECT 1" } }] } }] },
        },
      });
    ids.guide = (await guide("How many orders were returned?", "7", ids.sqlKb)).id;
    ids.noAnswerGuide = (await guide("How many customers are there?", null, ids.sqlKb)).id;

    // Feedback resolved two ways: a wrong answer corrected into a guide, and a confirmed answer.
    const wrongRun = await runPipeline(p, deps, { question: "How many orders were shipped?", user: analyst });
    const helpfulRun = await runPipeline(p, deps, { question: "Who is the chief executive of Aurora Outfitters GmbH?", user: analyst });
    const resolved = { status: "RESOLVED" as const, resolvedById: admin.id, resolvedAt: new Date() };
    ids.wrongFeedback = (
      await p.feedback.create({
        data: {
          runId: wrongRun.runId,
          userId: analyst.id,
          verdict: "WRONG",
          correctAnswer: "113",
          ...resolved,
          resolvedGuideId: ids.guide,
        },
      })
    ).id;
    ids.helpfulFeedback = (
      await p.feedback.create({ data: { runId: helpfulRun.runId, userId: analyst.id, verdict: "HELPFUL", ...resolved } })
    ).id;
    await p.feedback.create({ data: { runId: wrongRun.runId, userId: analyst.id, verdict: "WRONG", correctAnswer: "open, not resolved" } });

    // The RDF KB becomes restricted to a group the analysts are not in; a guide on it must stay hidden from them.
    const secret = await p.group.create({ data: { name: "Board" } });
    await p.kbGroupAccess.create({ data: { kbId: ids.rdfKb, groupId: secret.id } });
    // The demo knowledge bases are open to everyone: restricting one to a group also closes it.
    await p.knowledgeBase.update({ where: { id: ids.rdfKb }, data: { openToEveryone: false } });
    ids.secretGuide = (await guide("Who is the chief executive of Aurora Outfitters AB?", "Maria Lindqvist", ids.rdfKb)).id;
  }, 180_000);
  afterAll(async () => {
    await closeAllBackends();
    await handle.close();
    await db.cleanup();
  });

  it("lists guides and resolved feedback within the author's access", async () => {
    const sources = await listAuthoringSources(handle.prisma, analyst);
    expect(sources.guides.map((g) => g.id).sort()).toEqual([ids.guide, ids.noAnswerGuide].sort());
    const wrong = sources.feedback.find((f) => f.id === ids.wrongFeedback)!;
    expect(wrong).toMatchObject({ verdict: "WRONG", answer: "113", kbNames: [DEMO_KB_NAMES.sql] });
    // Only resolved feedback; the confirmed answer on the (now restricted) RDF KB is hidden from the analyst.
    expect(sources.feedback.map((f) => f.id)).toEqual([ids.wrongFeedback]);
    const all = await listAuthoringSources(handle.prisma, admin);
    expect(all.guides.map((g) => g.id)).toContain(ids.secretGuide);
    expect(all.feedback.find((f) => f.id === ids.helpfulFeedback)).toMatchObject({ verdict: "HELPFUL", kbNames: [DEMO_KB_NAMES.sparql] });
  });

  it("authors a suite: gold from the guide or feedback as stored, not from the browser", async () => {
    const created = await createAuthoredSuite(handle.prisma, analyst, {
      name: "Sales regression",
      items: [
        { kind: "guide", id: ids.guide },
        { kind: "guide", id: ids.noAnswerGuide },
        { kind: "feedback", id: ids.wrongFeedback },
        { kind: "manual", question: "What is the warranty of the Quantum Flux Capacitor?", unanswerable: true },
      ],
    });
    expect(created.questions).toBe(3);
    expect(created.skipped.join(" ")).toMatch(/no answer/);
    const questions = await handle.prisma.evalQuestion.findMany({ where: { suiteId: created.id }, orderBy: { position: "asc" } });
    expect(questions.map((q) => [q.question, q.goldAnswers, q.goldKbIds, q.unanswerable, q.origin])).toEqual([
      ["How many orders were returned?", ["7"], [ids.sqlKb], false, "guide"],
      ["How many orders were shipped?", ["113"], [ids.sqlKb], false, "feedback"],
      ["What is the warranty of the Quantum Flux Capacitor?", [], [], true, "manual"],
    ]);
    await expect(
      createAuthoredSuite(handle.prisma, analyst, { name: "Sales regression", items: [{ kind: "guide", id: ids.guide }] }),
    ).rejects.toMatchObject({ code: "CONFLICT" });
    await expect(
      createAuthoredSuite(handle.prisma, analyst, { name: "Peek", items: [{ kind: "guide", id: ids.secretGuide }] }),
    ).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(
      createAuthoredSuite(handle.prisma, analyst, { name: "Empty", items: [{ kind: "manual", question: "Anything?" }] }),
    ).rejects.toMatchObject({ name: "ZodError" });

    const options = await listSuiteOptions(handle.prisma, analyst, { datasetsDir: deps.datasetsDir, neo4jConfigured: false });
    expect(options.find((o) => o.key === `custom:${created.id}`)).toMatchObject({
      label: "Sales regression",
      questions: 3,
      authored: true,
      canDelete: true,
    });
    expect(options.find((o) => o.key === "demo")!.unavailable).toBeNull();
    // Without the benchmark datasets the suites say where they were looked for; with them, that the catalog is not loaded.
    const withoutDatasets = await listSuiteOptions(handle.prisma, analyst, {
      datasetsDir: path.join(deps.dataDir, "no-datasets-here"),
      neo4jConfigured: false,
    });
    expect(withoutDatasets.find((o) => o.key === "spider")!.unavailable).toMatchObject({ short: "datasets not found", loadable: false });
    expect(withoutDatasets.find((o) => o.key === "spider")!.unavailable!.reason).toContain(path.join(deps.dataDir, "no-datasets-here"));
    expect(withoutDatasets.find((o) => o.key === "demo")!.unavailable).toBeNull();
    if (existsSync(deps.datasetsDir)) {
      expect(options.find((o) => o.key === "spider")!.unavailable).toMatchObject({ short: "not loaded yet", loadable: true });
      expect(options.find((o) => o.key === "spider")!.unavailable!.fix).toMatch(/Ask an admin to load the benchmark catalog/);
      expect(options.find((o) => o.key === "text2cypher")!.unavailable).toMatchObject({ short: "no Neo4j server", loadable: false });
    }
    await expect(deleteAuthoredSuite(handle.prisma, secondAnalyst, created.id)).rejects.toMatchObject({ code: "FORBIDDEN" });
  });

  it("runs a suite in the background and serves its report, questions, export and comparison", async () => {
    const suite = (await listAuthoredSuites(handle.prisma, analyst)).find((s) => s.name === "Sales regression")!;
    const first = await startReport(handle.prisma, deps, analyst, {
      suite: `custom:${suite.id}`,
      limit: null,
      seed: 1,
      concurrency: 2,
      label: "before",
    });
    expect(first.total).toBe(3);
    await waitForEvalRun(first.reportId);
    const report = await getReport(handle.prisma, analyst, first.reportId);
    expect(report).toMatchObject({ status: "DONE", done: 3, total: 3, label: "before", canManage: true, canOpenRuns: true });
    expect(report.metrics!.refrain.values.unanswerableRefrained).not.toBeUndefined();

    const wrong = await listReportQuestions(handle.prisma, analyst, first.reportId, { filter: "all", q: "shipped", offset: 0, limit: 50 });
    expect(wrong.total).toBe(1);
    expect(wrong.rows[0].gold.answers).toEqual(["113"]);
    const exported = await exportReport(handle.prisma, analyst, first.reportId);
    expect(exported).toMatchObject({ suite: `custom:${suite.id}`, n: 3, status: "DONE" });

    // A second run with a stricter threshold, compared with the first.
    const second = await startReport(handle.prisma, deps, analyst, {
      suite: `custom:${suite.id}`,
      limit: null,
      seed: 1,
      concurrency: 1,
      label: "after",
      config: '{"answerThreshold": 0.99}',
    });
    await waitForEvalRun(second.reportId);
    const cmp = await compareStoredReports(handle.prisma, analyst, first.reportId, second.reportId);
    expect(cmp.counts.common).toBe(3);
    expect(cmp.metrics.find((m) => m.key === "refrain.rate")).toBeTruthy();

    // Finished: resume refuses, cancel changes nothing; another analyst may not delete it.
    await expect(resumeReport(handle.prisma, deps, analyst, first.reportId)).rejects.toMatchObject({ code: "CONFLICT" });
    await cancelReport(handle.prisma, analyst, first.reportId);
    expect((await getReport(handle.prisma, analyst, first.reportId)).status).toBe("DONE");
    await expect(deleteReport(handle.prisma, secondAnalyst, second.reportId)).rejects.toMatchObject({ code: "FORBIDDEN" });
    await deleteReport(handle.prisma, analyst, second.reportId);
    await expect(getReport(handle.prisma, analyst, second.reportId)).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("stops a run when another instance on the same database cancels it", async () => {
    const suite = (await listAuthoredSuites(handle.prisma, analyst)).find((s) => s.name === "Sales regression")!;
    const plan = await planEvalRun(handle.prisma, deps, analyst, {
      suite: `custom:${suite.id}`,
      limit: null,
      seed: 1,
      configInput: {},
      concurrency: 1,
      origin: "app",
      fresh: true,
    });
    const { reportId } = await openReport(handle.prisma, analyst, plan, { sharedDatabase: true });
    // cancelReport on an instance that is not running it only marks the row (its cancelEvalRun finds nothing there).
    await handle.prisma.evalReport.update({ where: { id: reportId }, data: { status: "CANCELLED", finishedAt: new Date() } });
    const report = await executeEvalRun(handle.prisma, deps, analyst, plan, reportId, { sharedDatabase: true });
    // The question under way when it noticed is kept; the others are left for a resume.
    expect(report.status).toBe("CANCELLED");
    expect(report.n).toBe(1);
    expect((await getReport(handle.prisma, analyst, reportId)).status).toBe("CANCELLED");
  });

  it("hides a report that ran on a knowledge base the viewer may not use", async () => {
    // The admin's demo run includes the restricted RDF KB.
    const run = await startReport(handle.prisma, deps, admin, { suite: "demo", limit: 2, seed: 1, concurrency: 2 });
    await waitForEvalRun(run.reportId);
    expect((await listReports(handle.prisma, admin)).map((r) => r.id)).toContain(run.reportId);
    expect((await listReports(handle.prisma, analyst)).map((r) => r.id)).not.toContain(run.reportId);
    await expect(getReport(handle.prisma, analyst, run.reportId)).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(
      listReportQuestions(handle.prisma, analyst, run.reportId, { filter: "all", q: "", offset: 0, limit: 10 }),
    ).rejects.toMatchObject({ code: "NOT_FOUND" });
    // The analyst's own demo run excludes that KB (runs use the runner's access), so it is visible to the analyst.
    const own = await startReport(handle.prisma, deps, analyst, { suite: "demo", limit: 2, seed: 1, concurrency: 2 });
    await waitForEvalRun(own.reportId);
    const mine = await getReport(handle.prisma, analyst, own.reportId);
    expect(mine.kbCount).toBe(2);
    // A bad config never starts a run.
    await expect(startReport(handle.prisma, deps, analyst, { suite: "demo", config: "{not json" })).rejects.toMatchObject({
      code: "VALIDATION",
      fields: { config: expect.any(String) },
    });
    await expect(startReport(handle.prisma, deps, analyst, { suite: "demo", config: '{"poolLimit": 3}' })).rejects.toMatchObject({
      code: "VALIDATION",
    });
  });
});
