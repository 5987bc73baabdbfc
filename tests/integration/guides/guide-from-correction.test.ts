import { beforeAll, describe, expect, it } from "vitest";
import { DEMO_KB_NAMES } from "@/lib/demo/seed-catalog";
import { draftFromReport, resolveWithNewGuide } from "@/lib/feedback/resolve";
import { submitFeedback } from "@/lib/runs/feedback";
import { useDemoWorkspace } from "../support/demo-workspace";
import { TARGET_ENGINE } from "../support/test-database";

/** From a correction to a guide: a "Wrong" report with the right answer gives a draft; saving it makes the next ask right. */
describe(`a correction becomes a guide (${TARGET_ENGINE})`, () => {
  const ws = useDemoWorkspace("mosaic-guide-correction-");
  let analyst: { id: string; role: "ANALYST"; groupIds: string[] };
  let sqlKb = "";

  beforeAll(async () => {
    const a = await ws.handle.prisma.user.findUniqueOrThrow({ where: { email: "analyst@mosaic.local" }, include: { memberships: true } });
    analyst = { id: a.id, role: "ANALYST", groupIds: a.memberships.map((m) => m.groupId) };
    sqlKb = (await ws.handle.prisma.knowledgeBase.findFirstOrThrow({ where: { name: DEMO_KB_NAMES.sql } })).id;
  });

  const report = async (question: string, correctAnswer: string) => {
    const run = await ws.ask(question);
    const fb = await submitFeedback(ws.handle.prisma, ws.user, { runId: run.runId, verdict: "WRONG", correctAnswer, comment: null });
    return { run, feedbackId: fb.id };
  };

  it("offers the run's query whose result is the corrected answer", async () => {
    // The corrected answer is what one of the run's own queries returns (read through the engine, not a constant).
    const { run, feedbackId } = await report("How many orders were returned?", "placeholder");
    const answerQuery = run.queries.find((q) => q.role === "answer" && q.status === "ok" && q.kbId === sqlKb)!;
    const value = String(run.answer.text);
    await submitFeedback(ws.handle.prisma, ws.user, { runId: run.runId, verdict: "WRONG", correctAnswer: value, comment: null });
    const { draft, note } = await draftFromReport(ws.handle.prisma, analyst, feedbackId, ws.deps);
    expect(draft.answer).toBe(value);
    expect(draft.sources[0]?.actions[0]?.params).toEqual({ query: answerQuery.query });
    expect(note).toMatch(/returns/);
  }, 120_000);

  it("without such a query, the draft says so and waits for the analyst's query; saving it makes the next ask right", async () => {
    const question = "What was the highest-selling product in 2024?";
    const query =
      "SELECT p.name FROM order_items oi JOIN orders o ON o.order_id = oi.order_id JOIN products p ON p.product_id = oi.product_id WHERE strftime('%Y', o.order_date) = '2024' GROUP BY p.name ORDER BY SUM(oi.quantity * oi.unit_price) DESC LIMIT 1";
    const kb = await ws.handle.prisma.knowledgeBase.findUniqueOrThrow({ where: { id: sqlKb } });
    const { openBackend } = await import("@/lib/backends/registry");
    const truth = await openBackend(kb, ws.deps).execute({ language: "sql", text: query }, { timeoutMs: 10_000, maxRows: 5 });
    const best = String(truth.records[0][truth.columns[0]]);

    const { run, feedbackId } = await report(question, best);
    expect(run.answer.text).not.toBe(best);
    const { draft, note } = await draftFromReport(ws.handle.prisma, analyst, feedbackId, ws.deps);
    expect(draft.question).toBe(question);
    expect(draft.answer).toBe(best);
    // The draft is the run's own (its cited queries, which did not give the corrected answer), with a note saying so.
    expect(note).toMatch(/None of the run's \d+ structured queries returns "[^"]+" as its result.*write the query/);

    await resolveWithNewGuide(ws.handle.prisma, ws.deps, analyst, feedbackId, {
      ...draft,
      notes: "",
      sources: [{ kbId: sqlKb, actions: [{ kind: "NATIVE_QUERY", params: { query: { language: "sql", text: query } }, context: "" }] }],
    });
    const again = await ws.ask(question);
    expect(again.answer.text).toBe(best);
    expect(again.answer.shape?.source.guide?.question).toBe(question);
  }, 180_000);
});
