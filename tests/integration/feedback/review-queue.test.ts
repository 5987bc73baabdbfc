import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeAllBackends } from "@/lib/backends/registry";
import type { AccessSubject } from "@/lib/catalog/access";
import type { CatalogDeps } from "@/lib/deps";
import { openAndBootstrap } from "@/lib/db/bootstrap";
import type { DatabaseHandle } from "@/lib/db/connect";
import { DEMO_KB_NAMES, seedDemoCatalogOnce } from "@/lib/demo/seed-catalog";
import { listReviewQueue } from "@/lib/feedback/queue";
import { dismissReport, draftFromReport, resolveWithExistingGuide, resolveWithNewGuide } from "@/lib/feedback/resolve";
import { getGuide } from "@/lib/guides/get";
import { runPipeline } from "@/lib/runs/run-pipeline";
import { TARGET_ENGINE, createTestDatabase, type TestDatabase } from "../support/test-database";

/** Wrong-answer reports reaching analysts: listing, scoping by KB access, resolving into guides, dismissing. */
describe(`feedback review queue (${TARGET_ENGINE})`, () => {
  let db: TestDatabase;
  let handle: DatabaseHandle;
  let deps: CatalogDeps;
  let admin: AccessSubject;
  let analyst: AccessSubject;
  let user: AccessSubject;
  const kb = { documents: "", sql: "", sparql: "" };
  const report = { documents: "", sql: "", failed: "", helpful: "" };
  let documentsRunId = "";

  const subject = async (email: string): Promise<AccessSubject> => {
    const u = await handle.prisma.user.findUniqueOrThrow({ where: { email }, include: { memberships: true } });
    return { id: u.id, role: u.role, groupIds: u.memberships.map((m) => m.groupId) };
  };
  const questions = async (who: AccessSubject, status: "OPEN" | "RESOLVED" = "OPEN") =>
    (await listReviewQueue(handle.prisma, who, { status })).items.map((i) => i.run.question);

  beforeAll(async () => {
    db = await createTestDatabase();
    handle = (await openAndBootstrap(db.env)).handle;
    deps = {
      dataDir: mkdtempSync(path.join(tmpdir(), "mosaic-feedback-")),
      encryptionKey: Buffer.alloc(32, 8),
      datasetsDir: "../shared/datasets",
    };
    await seedDemoCatalogOnce(handle.prisma, deps);
    for (const [k, name] of Object.entries(DEMO_KB_NAMES))
      kb[k as keyof typeof kb] = (await handle.prisma.knowledgeBase.findFirstOrThrow({ where: { name } })).id;
    admin = await subject("admin@mosaic.local");
    analyst = await subject("analyst@mosaic.local");
    user = await subject("user@mosaic.local");
    // From here on only "Finance" may use the SQL KB: the user is in it, the analyst is not.
    const finance = await handle.prisma.group.create({ data: { name: "Finance" } });
    await handle.prisma.kbGroupAccess.create({ data: { kbId: kb.sql, groupId: finance.id } });
    // The demo knowledge bases are open to everyone: restricting one to a group also closes it.
    await handle.prisma.knowledgeBase.update({ where: { id: kb.sql }, data: { openToEveryone: false } });
    await handle.prisma.groupMembership.create({ data: { userId: user.id, groupId: finance.id } });
    user.groupIds.push(finance.id);

    const onDocs = await runPipeline(handle.prisma, deps, {
      question: "What is the hotel cap per night in Oslo?",
      user,
      kbIds: [kb.documents],
    });
    documentsRunId = onDocs.runId;
    const onSql = await runPipeline(handle.prisma, deps, { question: "How many orders were returned?", user });
    expect(onSql.queries.some((q) => q.kbId === kb.sql)).toBe(true);
    const failed = await handle.prisma.run.create({
      data: { userId: user.id, question: "Why did the run fail?", status: "FAILED", error: "boom" },
    });
    const wrong = (runId: string, correctAnswer: string | null, comment: string | null) =>
      handle.prisma.feedback.create({ data: { runId, userId: user.id, verdict: "WRONG", correctAnswer, comment }, select: { id: true } });
    report.documents = (await wrong(onDocs.runId, "230 EUR", "The cap was raised in 2026.")).id;
    report.sql = (await wrong(onSql.runId, "8", null)).id;
    report.failed = (await wrong(failed.id, null, "It just failed.")).id;
    report.helpful = (await handle.prisma.feedback.create({ data: { runId: onDocs.runId, userId: user.id, verdict: "HELPFUL" } })).id;
  }, 120_000);
  afterAll(async () => {
    await closeAllBackends();
    await handle.close();
    await db.cleanup();
  });

  it("lists open wrong-answer reports, oldest first, only for runs over KBs the reviewer may use", async () => {
    expect(await questions(admin)).toEqual([
      "What is the hotel cap per night in Oslo?",
      "How many orders were returned?",
      "Why did the run fail?",
    ]);
    // The SQL run is hidden from the analyst (not in Finance); the run without a result is not lost.
    expect(await questions(analyst)).toEqual(["What is the hotel cap per night in Oslo?", "Why did the run fail?"]);
    const { items, open } = await listReviewQueue(handle.prisma, analyst);
    expect(open).toBe(2);
    expect(items[0]).toMatchObject({
      id: report.documents,
      correctAnswer: "230 EUR",
      comment: "The cap was raised in 2026.",
      reporter: { email: "user@mosaic.local" },
      run: { id: documentsRunId, answer: expect.stringContaining("210") },
      runGuide: null,
      resolution: null,
    });
  });

  it("drafts a guide from a report: the run's sources, the reporter's correct answer", async () => {
    const { draft, note } = await draftFromReport(handle.prisma, analyst, report.documents);
    expect(note).toBeNull();
    expect(draft).toMatchObject({
      question: "What is the hotel cap per night in Oslo?",
      answer: "230 EUR",
      fromRunId: documentsRunId,
      sources: [{ kbId: kb.documents }],
    });
    const failed = await draftFromReport(handle.prisma, analyst, report.failed);
    expect(failed.draft).toMatchObject({ question: "Why did the run fail?", sources: [] });
    expect(failed.note).toMatch(/no stored result/);
    await expect(draftFromReport(handle.prisma, analyst, report.sql)).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(draftFromReport(handle.prisma, analyst, report.helpful)).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("resolves a report by turning its run into a guide with the correct answer and a correction", async () => {
    const { draft } = await draftFromReport(handle.prisma, analyst, report.documents);
    await expect(resolveWithNewGuide(handle.prisma, deps, analyst, report.documents, { ...draft, answer: "" })).rejects.toMatchObject({
      code: "VALIDATION",
      fields: { answer: expect.any(String) },
    });
    const { guideId } = await resolveWithNewGuide(handle.prisma, deps, analyst, report.documents, draft);

    const guide = await getGuide(handle.prisma, analyst, guideId);
    expect(guide).toMatchObject({
      question: "What is the hotel cap per night in Oslo?",
      answer: "230 EUR",
      fromRunId: documentsRunId,
      resolvedReports: 1,
    });
    expect(guide.corrections).toEqual([
      {
        runAnswer: expect.stringContaining("210"),
        correctAnswer: "230 EUR",
        feedbackId: report.documents,
        comment: "The cap was raised in 2026.",
      },
    ]);
    expect(guide.sources[0].actions[0].context).toContain("210");

    const stored = await handle.prisma.feedback.findUniqueOrThrow({ where: { id: report.documents } });
    expect(stored).toMatchObject({ status: "RESOLVED", resolvedGuideId: guideId, resolvedById: analyst.id });
    expect(stored.resolvedAt).toBeInstanceOf(Date);
    expect(await questions(analyst)).toEqual(["Why did the run fail?"]);
    const resolved = (await listReviewQueue(handle.prisma, analyst, { status: "RESOLVED" })).items;
    expect(resolved).toEqual([
      expect.objectContaining({
        id: report.documents,
        resolution: { at: expect.any(String), by: "Ana Analyst", guide: { id: guideId, question: guide.question } },
      }),
    ]);

    await expect(resolveWithNewGuide(handle.prisma, deps, analyst, report.documents, draft)).rejects.toMatchObject({ code: "CONFLICT" });
  });

  it("a second report on a run already saved as a guide is resolved with that guide", async () => {
    const again = await handle.prisma.feedback.create({
      data: { runId: documentsRunId, userId: admin.id, verdict: "WRONG", correctAnswer: "230 EUR (from 2026)" },
    });
    const item = (await listReviewQueue(handle.prisma, analyst)).items.find((i) => i.id === again.id)!;
    expect(item.runGuide?.question).toBe("What is the hotel cap per night in Oslo?");
    await resolveWithExistingGuide(handle.prisma, analyst, again.id, item.runGuide!.id);
    const guide = await getGuide(handle.prisma, analyst, item.runGuide!.id);
    expect(guide.corrections.map((c) => c.correctAnswer)).toEqual(["230 EUR", "230 EUR (from 2026)"]);
    expect(guide.resolvedReports).toBe(2);
  });

  it("dismisses a report without a guide, and only the reviewer's scope can be acted on", async () => {
    await expect(dismissReport(handle.prisma, analyst, report.sql)).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(listReviewQueue(handle.prisma, user)).rejects.toMatchObject({ code: "FORBIDDEN" });
    await dismissReport(handle.prisma, analyst, report.failed);
    expect(await handle.prisma.feedback.findUniqueOrThrow({ where: { id: report.failed } })).toMatchObject({
      status: "RESOLVED",
      resolvedGuideId: null,
      resolvedById: analyst.id,
    });
    await expect(dismissReport(handle.prisma, analyst, report.failed)).rejects.toMatchObject({ code: "CONFLICT" });
    expect(await questions(analyst)).toEqual([]);
    expect(await questions(admin)).toEqual(["How many orders were returned?"]);
  });

  it("a resolution that fails leaves the report open and no guide behind", async () => {
    const guides = await handle.prisma.extractionGuide.count();
    const broken = {
      question: "How many orders were returned?",
      answer: "8",
      sources: [{ kbId: kb.sql, actions: [{ kind: "NATIVE_QUERY", params: { query: { language: "sql", text: "DROP TABLE orders" } } }] }],
    };
    await expect(resolveWithNewGuide(handle.prisma, deps, admin, report.sql, broken)).rejects.toMatchObject({ code: "VALIDATION" });
    expect(await handle.prisma.extractionGuide.count()).toBe(guides);
    expect((await handle.prisma.feedback.findUniqueOrThrow({ where: { id: report.sql } })).status).toBe("OPEN");
  });
});
