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
import type { RunOutcome } from "@/lib/pipeline/run";
import { runPipeline } from "@/lib/runs/run-pipeline";
import { listAskableKbs } from "@/lib/runs/askable-kbs";
import { submitFeedback } from "@/lib/runs/feedback";
import { searchConversations, searchRuns } from "@/lib/runs/history";
import { conversationTurns, loadRunView } from "@/lib/runs/load-run";
import { TARGET_ENGINE, createTestDatabase, type TestDatabase } from "../support/test-database";

/** lib/runs on real PGlite with the demo catalog: history search, reopening with access checks, feedback. */
describe(`runs: history, reopening and feedback (${TARGET_ENGINE})`, () => {
  let db: TestDatabase;
  let handle: DatabaseHandle;
  let deps: CatalogDeps;
  const people: Record<"admin" | "analyst" | "user" | "other", AccessSubject> = {} as never;
  let graphAnswer: RunOutcome;
  let sqlAnswer: RunOutcome;

  const subject = async (email: string): Promise<AccessSubject> => {
    const u = await handle.prisma.user.findUniqueOrThrow({ where: { email }, include: { memberships: true } });
    return { id: u.id, role: u.role, groupIds: u.memberships.map((m) => m.groupId) };
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    handle = (await openAndBootstrap(db.env)).handle;
    deps = {
      dataDir: mkdtempSync(path.join(tmpdir(), "mosaic-runs-")),
      encryptionKey: Buffer.alloc(32, 7),
      datasetsDir: "../shared/datasets",
    };
    await seedDemoCatalogOnce(handle.prisma, deps);
    people.admin = await subject("admin@mosaic.local");
    people.analyst = await subject("analyst@mosaic.local");
    people.user = await subject("user@mosaic.local");
    const everyone = await handle.prisma.group.findUniqueOrThrow({ where: { name: "Everyone" } });
    const other = await handle.prisma.user.create({
      data: {
        email: "other@example.com",
        name: "Olga Other",
        passwordHash: "x",
        role: "USER",
        memberships: { create: [{ groupId: everyone.id }] },
      },
    });
    people.other = { id: other.id, role: "USER", groupIds: [everyone.id] };

    graphAnswer = await runPipeline(handle.prisma, deps, {
      question: "Who is the chief executive of Aurora Outfitters GmbH?",
      user: people.user,
    });
    sqlAnswer = await runPipeline(handle.prisma, deps, {
      question: "How many orders were returned?",
      user: people.user,
      conversationId: graphAnswer.conversationId,
    });
    expect(graphAnswer.answer.text).toContain("Anke Vogel");
    expect(sqlAnswer.answer.text).toMatch(/\b7\b/);
  }, 180_000);

  afterAll(async () => {
    await closeAllBackends();
    await handle?.close();
    await db?.cleanup();
  });

  describe("reopening a run", () => {
    it("gives the owner the whole stored outcome and trace", async () => {
      const view = await loadRunView(handle.prisma, people.user, graphAnswer.runId);
      expect(view.viewerIsOwner).toBe(true);
      expect(view.status).toBe("ANSWERED");
      expect(view.outcome?.answer.text).toBe(graphAnswer.answer.text);
      const cited = view.outcome!.evidence.filter((e) => view.outcome!.answer.citations.includes(e.piece.id));
      expect(cited.some((e) => e.piece.kind === "triple")).toBe(true);
      expect(view.outcome!.iterations.length).toBe(graphAnswer.iterations.length);
      expect(view.outcome!.candidates.map((c) => c.kbName)).toEqual(graphAnswer.candidates.map((c) => c.kbName));
      expect(view.trace.map((t) => t.stage)).toEqual(
        expect.arrayContaining(["understand", "select", "formulate", "execute", "answer", "critique", "run"]),
      );
      expect(view.trace.every((t, i, all) => i === 0 || all[i - 1].seq < t.seq)).toBe(true);
      expect(view.hidden).toBeNull();
      expect(view.laterTurns).toBe(1);
      expect(view.conversationId).toBe(graphAnswer.conversationId);
    });

    it("refuses another user's run, and the same for an id that does not exist", async () => {
      await expect(loadRunView(handle.prisma, people.other, graphAnswer.runId)).rejects.toMatchObject({ code: "NOT_FOUND" });
      await expect(loadRunView(handle.prisma, people.user, "no-such-run")).rejects.toMatchObject({ code: "NOT_FOUND" });
    });

    it("lets an admin open any run, without continuing the owner's conversation", async () => {
      const view = await loadRunView(handle.prisma, people.admin, sqlAnswer.runId);
      expect(view.viewerIsOwner).toBe(false);
      expect(view.ownerName).toBe("Bo User");
      expect(view.outcome?.answer.text).toBe(sqlAnswer.answer.text);
      expect(view.conversationId).toBeNull();
    });

    it("lets an analyst open someone's run only once it carries feedback (the review queue)", async () => {
      const run = await runPipeline(handle.prisma, deps, { question: "How many customers are there?", user: people.other });
      await expect(loadRunView(handle.prisma, people.analyst, run.runId)).rejects.toMatchObject({ code: "NOT_FOUND" });
      await submitFeedback(handle.prisma, people.other, { runId: run.runId, verdict: "WRONG", correctAnswer: "13" });
      const view = await loadRunView(handle.prisma, people.analyst, run.runId);
      expect(view.outcome?.answer.text).toBe(run.answer.text);
      expect(view.feedback).toBeNull(); // the analyst's own feedback, not the reporter's
    });

    it("withholds a run that read a KB the viewer may no longer use, and drops entity links into such KBs", async () => {
      const graph = await handle.prisma.knowledgeBase.findFirstOrThrow({ where: { name: DEMO_KB_NAMES.sparql } });
      const analysts = await handle.prisma.group.findUniqueOrThrow({ where: { name: "Analysts" } });
      // Restricted to the analysts (no longer open to everyone).
      await handle.prisma.knowledgeBase.update({
        where: { id: graph.id },
        data: { openToEveryone: false, groupAccess: { create: [{ groupId: analysts.id }] } },
      });
      try {
        const hidden = await loadRunView(handle.prisma, people.user, graphAnswer.runId);
        expect(hidden.hidden).toEqual({ wholeResult: true, entityLinks: 0 });
        expect(hidden.outcome).toBeNull();
        expect(hidden.trace.every((t) => t.summary === "")).toBe(true);
        expect(hidden.question).toBe(graphAnswer.question);

        const analystView = await loadRunView(handle.prisma, people.analyst, graphAnswer.runId).catch((e) => e);
        expect(analystView).toMatchObject({ code: "NOT_FOUND" }); // no feedback on it: not in the queue

        // The SQL run read only the sales database; its intent may still link names into the graph.
        const sql = await loadRunView(handle.prisma, people.user, sqlAnswer.runId);
        expect(sql.outcome?.answer.text).toBe(sqlAnswer.answer.text);
        const links = sql.outcome!.intent!.entities.flatMap((e) => e.links);
        expect(links.some((l) => l.kbId === graph.id)).toBe(false);
        const hadGraphLinks = sqlAnswer.intent!.entities.some((e) => e.links.some((l) => l.kbId === graph.id));
        expect(sql.hidden === null).toBe(!hadGraphLinks);

        const adminView = await loadRunView(handle.prisma, people.admin, graphAnswer.runId);
        expect(adminView.outcome?.answer.text).toContain("Anke Vogel");
      } finally {
        await handle.prisma.kbGroupAccess.deleteMany({ where: { kbId: graph.id } });
        await handle.prisma.knowledgeBase.update({ where: { id: graph.id }, data: { openToEveryone: true } });
      }
    });
  });

  describe("conversations", () => {
    it("lists a conversation's turns in order, optionally only those before a run, for its owner only", async () => {
      const turns = await conversationTurns(handle.prisma, people.user, graphAnswer.conversationId);
      expect(turns.map((t) => t.id)).toEqual([graphAnswer.runId, sqlAnswer.runId]);
      expect(turns[0].answer).toContain("Anke Vogel");
      const before = await conversationTurns(handle.prisma, people.user, graphAnswer.conversationId, { runId: sqlAnswer.runId });
      expect(before.map((t) => t.id)).toEqual([graphAnswer.runId]);
      await expect(conversationTurns(handle.prisma, people.other, graphAnswer.conversationId)).rejects.toMatchObject({ code: "NOT_FOUND" });
    });
  });

  describe("history search", () => {
    let ownIds: string[];
    beforeAll(async () => {
      const conv = await handle.prisma.conversation.create({ data: { userId: people.other.id, title: "Budget questions" } });
      ownIds = [];
      for (let i = 0; i < 25; i++) {
        const r = await handle.prisma.run.create({
          data: {
            userId: people.other.id,
            conversationId: conv.id,
            question: i === 3 ? "What share grew by 50% in Q2?" : `Budget line ${String(i).padStart(2, "0")} for Travel`,
            status: "ANSWERED",
            answer: `${i}`,
            createdAt: new Date(Date.UTC(2025, 0, 1, 0, i)),
          },
        });
        ownIds.push(r.id);
      }
    });

    it("lists only the person's own runs, newest first, paginated", async () => {
      const first = await searchRuns(handle.prisma, people.other, { pageSize: 10 });
      expect(first.rows.every((r) => ownIds.includes(r.id) || r.question === "How many customers are there?")).toBe(true);
      expect(first.total).toBe(26);
      expect(first.pages).toBe(3);
      const times = first.rows.map((r) => r.createdAt);
      expect([...times].sort().reverse()).toEqual(times);
      const third = await searchRuns(handle.prisma, people.other, { pageSize: 10, page: 3 });
      expect(third.rows).toHaveLength(6);
      const all = [...first.rows, ...(await searchRuns(handle.prisma, people.other, { pageSize: 10, page: 2 })).rows, ...third.rows].map(
        (r) => r.id,
      );
      expect(new Set(all).size).toBe(26);
      const userRuns = await searchRuns(handle.prisma, people.user, {});
      expect(userRuns.rows.map((r) => r.id).sort()).toEqual([graphAnswer.runId, sqlAnswer.runId].sort());
      // A query result's shape comes with the row, so that History writes its figures as the answer card did.
      expect(sqlAnswer.answer.shape).toBeDefined();
      expect(userRuns.rows.find((r) => r.id === sqlAnswer.runId)?.shape).toEqual(sqlAnswer.answer.shape);
      expect(userRuns.rows.find((r) => r.id === graphAnswer.runId)?.shape).toEqual(graphAnswer.answer.shape ?? null);
    });

    it("matches question text case-insensitively and takes LIKE wildcards literally", async () => {
      const travel = await searchRuns(handle.prisma, people.other, { q: "travel", pageSize: 100 });
      expect(travel.total).toBe(24);
      const exact = await searchRuns(handle.prisma, people.other, { q: "LINE 07" });
      expect(exact.rows.map((r) => r.question)).toEqual(["Budget line 07 for Travel"]);
      const percent = await searchRuns(handle.prisma, people.other, { q: "50%" });
      expect(percent.rows.map((r) => r.question)).toEqual(["What share grew by 50% in Q2?"]);
      expect((await searchRuns(handle.prisma, people.other, { q: "%" })).total).toBe(1);
      expect((await searchRuns(handle.prisma, people.other, { q: "_" })).total).toBe(0);
      expect((await searchRuns(handle.prisma, people.other, { q: "Anke" })).total).toBe(0);
    });

    it("shows the person's feedback verdict on each run", async () => {
      const customers = await searchRuns(handle.prisma, people.other, { q: "customers" });
      expect(customers.rows[0].feedback).toBe("WRONG");
    });

    it("finds conversations by title or by any of their questions, with turn counts and the latest turn", async () => {
      const all = await searchConversations(handle.prisma, people.other, {});
      expect(all.total).toBe(2);
      const byTitle = await searchConversations(handle.prisma, people.other, { q: "budget questions" });
      expect(byTitle.rows).toHaveLength(1);
      expect(byTitle.rows[0].turns).toBe(25);
      expect(byTitle.rows[0].last?.question).toBe("Budget line 24 for Travel");
      const byQuestion = await searchConversations(handle.prisma, people.other, { q: "customers" });
      expect(byQuestion.rows.map((c) => c.title)).toEqual(["How many customers are there?"]);
      const returned = await searchConversations(handle.prisma, people.user, { q: "returned" });
      expect(returned.rows.map((c) => c.id)).toEqual([graphAnswer.conversationId]);
      expect(returned.rows[0].last?.shape).toEqual(sqlAnswer.answer.shape);
      const turns = await conversationTurns(handle.prisma, people.user, graphAnswer.conversationId);
      expect(turns.find((t) => t.id === sqlAnswer.runId)?.shape).toEqual(sqlAnswer.answer.shape);
    });

    it("rejects a malformed query", async () => {
      await expect(searchRuns(handle.prisma, people.other, { page: 0 })).rejects.toThrow();
      await expect(searchRuns(handle.prisma, people.other, { q: "x".repeat(201) })).rejects.toThrow();
    });
  });

  describe("feedback", () => {
    it("stores one verdict per person per run, updates it on resubmit and reopens a resolved report when it changes", async () => {
      const first = await submitFeedback(handle.prisma, people.user, {
        runId: sqlAnswer.runId,
        verdict: "HELPFUL",
        correctAnswer: "ignored on helpful",
        comment: "  ",
      });
      expect(first).toMatchObject({ created: true, changed: true, verdict: "HELPFUL", correctAnswer: null, comment: null, status: "OPEN" });

      const same = await submitFeedback(handle.prisma, people.user, { runId: sqlAnswer.runId, verdict: "HELPFUL" });
      expect(same).toMatchObject({ id: first.id, created: false, changed: false });

      await handle.prisma.feedback.update({
        where: { id: first.id },
        data: { status: "RESOLVED", resolvedAt: new Date(), resolvedById: people.analyst.id },
      });
      const wrong = await submitFeedback(handle.prisma, people.user, {
        runId: sqlAnswer.runId,
        verdict: "WRONG",
        correctAnswer: "8",
        comment: "One return was logged late.",
      });
      expect(wrong).toMatchObject({ id: first.id, created: false, changed: true, verdict: "WRONG", correctAnswer: "8", status: "OPEN" });

      const rows = await handle.prisma.feedback.findMany({ where: { runId: sqlAnswer.runId, userId: people.user.id } });
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({
        verdict: "WRONG",
        correctAnswer: "8",
        comment: "One return was logged late.",
        status: "OPEN",
        resolvedAt: null,
        resolvedById: null,
      });

      const view = await loadRunView(handle.prisma, people.user, sqlAnswer.runId);
      expect(view.feedback).toMatchObject({ verdict: "WRONG", correctAnswer: "8" });
    });

    it("keeps one row under concurrent submissions", async () => {
      await Promise.all([
        submitFeedback(handle.prisma, people.user, { runId: graphAnswer.runId, verdict: "HELPFUL" }),
        submitFeedback(handle.prisma, people.user, { runId: graphAnswer.runId, verdict: "WRONG", correctAnswer: "Someone else" }),
        submitFeedback(handle.prisma, people.user, { runId: graphAnswer.runId, verdict: "HELPFUL", comment: "ok" }),
      ]);
      expect(await handle.prisma.feedback.count({ where: { runId: graphAnswer.runId, userId: people.user.id } })).toBe(1);
    });

    it("refuses feedback on someone else's run, on an unfinished run, and without a verdict", async () => {
      await expect(submitFeedback(handle.prisma, people.other, { runId: sqlAnswer.runId, verdict: "WRONG" })).rejects.toMatchObject({
        code: "NOT_FOUND",
      });
      const running = await handle.prisma.run.create({ data: { userId: people.user.id, question: "Still going?", status: "RUNNING" } });
      await expect(submitFeedback(handle.prisma, people.user, { runId: running.id, verdict: "HELPFUL" })).rejects.toMatchObject({
        code: "VALIDATION",
      });
      await expect(submitFeedback(handle.prisma, people.user, { runId: sqlAnswer.runId, verdict: "MAYBE" as never })).rejects.toThrow();
      expect(await handle.prisma.feedback.count({ where: { userId: people.other.id, runId: sqlAnswer.runId } })).toBe(0);
    });
  });

  describe("the KB picker", () => {
    it("lists exactly the KBs a person may use", async () => {
      const analysts = await handle.prisma.group.findUniqueOrThrow({ where: { name: "Analysts" } });
      const kb = await handle.prisma.knowledgeBase.create({
        data: { name: "Board minutes", kind: "DOCUMENTS", groupAccess: { create: [{ groupId: analysts.id }] } },
      });
      const names = async (who: AccessSubject) => (await listAskableKbs(handle.prisma, who)).map((k) => k.name);
      expect(await names(people.user)).toEqual([...Object.values(DEMO_KB_NAMES)].sort());
      expect(await names(people.analyst)).toContain("Board minutes");
      expect(await names(people.admin)).toContain("Board minutes");
      await handle.prisma.knowledgeBase.delete({ where: { id: kb.id } });
    });
  });
});
