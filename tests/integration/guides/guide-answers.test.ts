import { beforeAll, describe, expect, it } from "vitest";
import { openBackend } from "@/lib/backends/registry";
import { checkGuide } from "@/lib/guides/check";
import { getGuide } from "@/lib/guides/get";
import { listGuides } from "@/lib/guides/list";
import { saveGuide } from "@/lib/guides/save";
import { schemaOutlines } from "@/lib/guides/schema-outline";
import { guideHealthOf } from "@/lib/pipeline/run/persistence";
import { DEMO_KB_NAMES } from "@/lib/demo/seed-catalog";
import { runPipeline } from "@/lib/runs/run-pipeline";
import { useDemoWorkspace } from "../support/demo-workspace";
import { TARGET_ENGINE } from "../support/test-database";

/**
 * The scenario on the demo workspace: an analyst saves a guide with a correct query, and the
 * next ask of the same question (or one of its shape with other values) answers from that query.
 */
describe(`a matching guide answers (${TARGET_ENGINE})`, () => {
  const ws = useDemoWorkspace("mosaic-guide-answers-");
  let analyst: { id: string; role: "ANALYST"; groupIds: string[] };
  let sqlKb = "";
  const ask = (question: string) => runPipeline(ws.handle.prisma, ws.deps, { question, user: analyst });
  const topProduct = (year: number, limit = 1) =>
    `SELECT p.name, SUM(oi.quantity * oi.unit_price) AS revenue FROM order_items oi JOIN orders o ON o.order_id = oi.order_id JOIN products p ON p.product_id = oi.product_id WHERE strftime('%Y', o.order_date) = '${year}' GROUP BY p.name ORDER BY revenue DESC LIMIT ${limit}`;

  beforeAll(async () => {
    const a = await ws.handle.prisma.user.findUniqueOrThrow({ where: { email: "analyst@mosaic.local" }, include: { memberships: true } });
    analyst = { id: a.id, role: "ANALYST", groupIds: a.memberships.map((m) => m.groupId) };
    sqlKb = (await ws.handle.prisma.knowledgeBase.findFirstOrThrow({ where: { name: DEMO_KB_NAMES.sql } })).id;
  });

  /** What the guide's own query returns, read through the engine (the expected answer, not a constant). */
  const expected = async (sql: string) => {
    const kb = await ws.handle.prisma.knowledgeBase.findUniqueOrThrow({ where: { id: sqlKb } });
    const backend = openBackend(kb, ws.deps);
    const r = await backend.execute({ language: "sql", text: sql }, { timeoutMs: 10_000, maxRows: 50 });
    return r.records.map((rec) => rec[r.columns[0]]);
  };

  it("asked word for word, the guide's query is the committed answer query and the answer says so", async () => {
    const question = "What was the highest-selling product in 2024?";
    const guide = await saveGuide(ws.handle.prisma, ws.deps, analyst, {
      question,
      notes: "",
      sources: [
        { kbId: sqlKb, actions: [{ kind: "NATIVE_QUERY", params: { query: { language: "sql", text: topProduct(2024) } }, context: "" }] },
      ],
    });
    const [best] = await expected(topProduct(2024));
    const o = await ask(question);
    expect(o.answer.refrained).toBe(false);
    // The guide's row as it stands: the product and its revenue.
    expect(o.answer.text.split(", ")[0]).toBe(String(best));
    expect(o.answer.shape?.source.guide).toMatchObject({ id: guide.id, question });
    expect(o.answer.shape?.source.query).toBe(topProduct(2024));
    const trace = await ws.handle.prisma.traceEvent.findMany({ where: { runId: o.runId }, select: { summary: true } });
    expect(trace.some((t) => t.summary.includes(`Answered with the analyst's guide '${question}'`))).toBe(true);
  }, 120_000);

  it("a guide is a template: the year and the count are slots filled from the new question", async () => {
    const question = "Which 3 products sold best in 2024?";
    const guide = await saveGuide(ws.handle.prisma, ws.deps, analyst, {
      question,
      notes: "",
      sources: [
        {
          kbId: sqlKb,
          actions: [{ kind: "NATIVE_QUERY", params: { query: { language: "sql", text: topProduct(2024, 3) } }, context: "" }],
        },
      ],
    });
    const o = await ask("Which 5 products sold best in 2025?");
    expect(o.answer.shape?.source.guide?.id).toBe(guide.id);
    expect(o.answer.shape?.source.query).toBe(topProduct(2025, 5));
    const want = await expected(topProduct(2025, 5));
    expect(o.answer.shape?.rows.map((r) => r[0])).toEqual(want);
  }, 120_000);

  it("a guide about something else never answers: the question's own value must be in the guide's query", async () => {
    const o = await ask("How many orders were returned?");
    expect(o.answer.shape?.source.guide ?? null).toBeNull();
    expect(o.answer.text).toMatch(/\b7\b/);
  }, 120_000);

  it("a guide whose query no longer runs is skipped, the trace says why, and the question is answered as without it", async () => {
    const question = "How many customers are there?";
    // Stored directly: saving through the editor would refuse the query (it names a column the source lacks).
    const broken = await ws.handle.prisma.extractionGuide.create({
      data: {
        question,
        createdById: analyst.id,
        sources: {
          create: [
            {
              kbId: sqlKb,
              actions: {
                create: [
                  { kind: "NATIVE_QUERY", params: { query: { language: "sql", text: "SELECT COUNT(loyalty_tier) FROM customers" } } },
                ],
              },
            },
          ],
        },
      },
    });
    const o = await ask(question);
    expect(o.answer.shape?.source.guide ?? null).toBeNull();
    expect(o.answer.text).toMatch(/\b12\b/);
    const trace = await ws.handle.prisma.traceEvent.findMany({ where: { runId: o.runId }, select: { summary: true } });
    expect(trace.some((t) => t.summary.includes(`the analyst's guide '${question}' was not used: its query could not run`))).toBe(true);

    // The run flags the guide with the reason (the guide page and list show it) ...
    const flagged = await ws.handle.prisma.extractionGuide.findUniqueOrThrow({ where: { id: broken.id } });
    expect(flagged.brokenReason).toMatch(/^Its query on .+ no longer runs: .*loyalty_tier/);
    expect(flagged.checkedAt).not.toBeNull();
    const listed = await listGuides(ws.handle.prisma, analyst, { q: "" });
    expect(listed.find((g) => g.id === broken.id)?.brokenReason).toBe(flagged.brokenReason);

    // ... "Check now" keeps the flag while the query still fails (through the same safety path) ...
    const still = await checkGuide(ws.handle.prisma, ws.deps, analyst, broken.id);
    expect(still.brokenReason).toMatch(/loyalty_tier/);
    expect(still.queries).toEqual([expect.objectContaining({ status: "broken" })]);

    // ... and clears it once the query is fixed; a business user may not check, another analyst's restricted guide is not found.
    await ws.handle.prisma.guideAction.updateMany({
      where: { source: { guideId: broken.id } },
      data: { params: { query: { language: "sql", text: "SELECT COUNT(*) FROM customers" } } },
    });
    const fixed = await checkGuide(ws.handle.prisma, ws.deps, analyst, broken.id);
    expect(fixed.brokenReason).toBeNull();
    expect(fixed.queries).toEqual([expect.objectContaining({ status: "ok", detail: "runs and returns 1 row(s)" })]);
    expect((await getGuide(ws.handle.prisma, analyst, broken.id)).brokenReason).toBeNull();
    const user = await ws.handle.prisma.user.findUniqueOrThrow({ where: { email: "user@mosaic.local" }, include: { memberships: true } });
    await expect(
      checkGuide(ws.handle.prisma, ws.deps, { id: user.id, role: "USER", groupIds: user.memberships.map((m) => m.groupId) }, broken.id),
    ).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(
      checkGuide(ws.handle.prisma, ws.deps, { id: analyst.id, role: "ANALYST", groupIds: [] }, "no-such-guide"),
    ).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
  }, 120_000);

  it("a run whose guide query runs but finds nothing for the new values does not flag the guide", () => {
    const q = (status: "ok" | "empty" | "error" | "timeout", guideId = "g1") =>
      ({ strategy: "guide", guideId, kbName: "Shop", status, error: status === "error" ? "no such column: x" : undefined }) as never;
    expect(guideHealthOf([q("empty")])).toEqual(new Map([["g1", null]]));
    expect(guideHealthOf([q("timeout")])).toEqual(new Map());
    expect(guideHealthOf([q("ok"), q("error")]).get("g1")).toBe("Its query on Shop no longer runs: no such column: x");
  });

  it("the draft editor's schema panel: the descriptors of the draft's KBs, or of every queryable KB the user may use", async () => {
    const one = await schemaOutlines(ws.handle.prisma, analyst, [sqlKb]);
    expect(one.map((o) => o.kbName)).toEqual([DEMO_KB_NAMES.sql]);
    expect(one[0].schema).toMatch(/order_items[\s\S]*unit_price/);
    const all = await schemaOutlines(ws.handle.prisma, analyst);
    expect(all.map((o) => o.kbId)).toContain(sqlKb);
    expect(all.every((o) => o.kind !== "DOCUMENTS")).toBe(true);
    // A KB outside the user's access is never shown, even when named.
    expect(await schemaOutlines(ws.handle.prisma, { id: analyst.id, role: "ANALYST", groupIds: [] }, [sqlKb])).toEqual(
      (await ws.handle.prisma.knowledgeBase.findUniqueOrThrow({ where: { id: sqlKb } })).openToEveryone ? one : [],
    );
  });
});
