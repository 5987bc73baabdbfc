import { beforeAll, describe, expect, it, vi } from "vitest";
import type { AccessSubject } from "@/lib/catalog/access";
import { DEMO_KB_NAMES } from "@/lib/demo/seed-catalog";
import { deleteGuide } from "@/lib/guides/delete";
import { guideMemory } from "@/lib/guides/guide-memory";
import { findNearestGuides, runGuideReader } from "@/lib/guides/retrieval";
import { saveGuide } from "@/lib/guides/save";
import { useDemoWorkspace } from "../support/demo-workspace";
import { TARGET_ENGINE } from "../support/test-database";

/**
 * The guides each ask reads are kept in memory between asks (lib/guides/guide-memory.ts): an edit, a
 * deletion or a change of access must show on the very next ask, as when every ask read the database.
 */
describe(`guides remembered between asks (${TARGET_ENGINE})`, () => {
  const ws = useDemoWorkspace("mosaic-guide-memory-");
  let analyst: AccessSubject;
  let outsider: AccessSubject;
  let kbIds: string[] = [];
  let sqlKb = "";
  let finance = "";

  const sqlGuide = (question: string, text: string) => ({
    question,
    sources: [{ kbId: sqlKb, actions: [{ kind: "NATIVE_QUERY", params: { query: { language: "sql", text } } }] }],
  });

  beforeAll(async () => {
    const prisma = ws.handle.prisma;
    kbIds = (await prisma.knowledgeBase.findMany({ select: { id: true } })).map((k) => k.id);
    sqlKb = (await prisma.knowledgeBase.findFirstOrThrow({ where: { name: DEMO_KB_NAMES.sql } })).id;
    const a = await prisma.user.findUniqueOrThrow({ where: { email: "analyst@mosaic.local" } });
    analyst = { id: a.id, role: a.role, groupIds: [] };
    const o = await prisma.user.create({
      data: { email: "outsider@mosaic.local", name: "Otto Outsider", role: "ANALYST", passwordHash: "x" },
    });
    outsider = { id: o.id, role: "ANALYST", groupIds: [] };
    finance = (await prisma.group.create({ data: { name: "Finance" } })).id;
  });

  const nearest = (user: AccessSubject, question: string) => findNearestGuides(ws.handle.prisma, user, question, kbIds, 3, 0.2);
  const queriesTaught = async (user: AccessSubject) =>
    (await runGuideReader(ws.handle.prisma).examples({ user, kbIds })).map((e) => e.query.text);

  it("an edited guide's new question and query are what the next ask ranks and learns from", async () => {
    const { id } = await saveGuide(
      ws.handle.prisma,
      ws.deps,
      analyst,
      sqlGuide("Which regions do we sell in?", "SELECT region FROM regions ORDER BY region"),
    );
    expect((await nearest(analyst, "Which regions do we sell in?")).map((h) => h.guideId)).toEqual([id]);
    expect(await queriesTaught(analyst)).toContain("SELECT region FROM regions ORDER BY region");

    await saveGuide(ws.handle.prisma, ws.deps, analyst, sqlGuide("How many orders are there?", "SELECT COUNT(*) AS orders FROM orders"), {
      guideId: id,
    });
    expect(await nearest(analyst, "Which regions do we sell in?")).toEqual([]);
    const hits = await nearest(analyst, "How many orders are there?");
    expect(hits.map((h) => [h.guideId, h.question])).toEqual([[id, "How many orders are there?"]]);
    expect(hits[0].examples.map((e) => e.query.text)).toEqual(["SELECT COUNT(*) AS orders FROM orders"]);
    // Its own question is as close in words as can be (formulation reads the words' part for a match).
    expect(hits[0].lexicalScore).toBe(1);
    const taught = await queriesTaught(analyst);
    expect(taught).toContain("SELECT COUNT(*) AS orders FROM orders");
    expect(taught).not.toContain("SELECT region FROM regions ORDER BY region");

    await deleteGuide(ws.handle.prisma, analyst, id);
    expect(await nearest(analyst, "How many orders are there?")).toEqual([]);
    expect(await queriesTaught(analyst)).not.toContain("SELECT COUNT(*) AS orders FROM orders");
  });

  it("a guide remembered for one user is not used by one who lost access to its knowledge base", async () => {
    const { id } = await saveGuide(
      ws.handle.prisma,
      ws.deps,
      analyst,
      sqlGuide("List the product categories", "SELECT DISTINCT category FROM products"),
    );
    expect((await nearest(outsider, "List the product categories")).map((h) => h.guideId)).toEqual([id]);
    // The SQL KB is closed to everyone but Finance; the analyst joins it, the outsider does not.
    await ws.handle.prisma.kbGroupAccess.create({ data: { kbId: sqlKb, groupId: finance } });
    await ws.handle.prisma.knowledgeBase.update({ where: { id: sqlKb }, data: { openToEveryone: false } });
    await ws.handle.prisma.groupMembership.create({ data: { userId: analyst.id, groupId: finance } });
    const member = { ...analyst, groupIds: [finance] };
    try {
      expect((await nearest(member, "List the product categories")).map((h) => h.guideId)).toEqual([id]);
      expect(await nearest(outsider, "List the product categories")).toEqual([]);
      expect(await queriesTaught(outsider)).not.toContain("SELECT DISTINCT category FROM products");
    } finally {
      await ws.handle.prisma.knowledgeBase.update({ where: { id: sqlKb }, data: { openToEveryone: true } });
    }
  });

  it("one run reads which guides it may use once, for its nearest guides and their vocabulary together", async () => {
    await saveGuide(
      ws.handle.prisma,
      ws.deps,
      analyst,
      sqlGuide("What is the total revenue?", "SELECT SUM(quantity * unit_price) AS revenue FROM order_items"),
    );
    const memory = guideMemory(ws.handle.prisma);
    const reads = vi.spyOn(memory, "visible");
    try {
      const reader = runGuideReader(ws.handle.prisma);
      const [hits, examples] = await Promise.all([
        reader.nearest({ user: analyst, question: "What is the total revenue?", kbIds, limit: 3, minScore: 0.2, semantic: null }),
        reader.examples({ user: analyst, kbIds }),
      ]);
      expect(hits[0]?.question).toBe("What is the total revenue?");
      expect(examples.map((e) => e.query.text)).toContain("SELECT SUM(quantity * unit_price) AS revenue FROM order_items");
      expect(reads).toHaveBeenCalledTimes(1);
      // A second run reads again: what changed between two asks is seen by the next.
      await runGuideReader(ws.handle.prisma).examples({ user: analyst, kbIds });
      expect(reads).toHaveBeenCalledTimes(2);
    } finally {
      reads.mockRestore();
    }
  });
});
