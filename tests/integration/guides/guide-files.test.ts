import { beforeAll, describe, expect, it } from "vitest";
import { DEMO_KB_NAMES } from "@/lib/demo/seed-catalog";
import { exportGuides, importGuides, parseGuideFile } from "@/lib/guides/files";
import { embedCatalogTextsJob } from "@/lib/jobs/definitions";
import { useDemoWorkspace } from "../support/demo-workspace";
import { TARGET_ENGINE } from "../support/test-database";

/** Guides as files: Spider-format JSON in, each query checked against the real source, and out again. */
describe(`guides import and export (${TARGET_ENGINE})`, () => {
  const ws = useDemoWorkspace("mosaic-guide-files-");
  let analyst: { id: string; role: "ANALYST"; groupIds: string[] };
  const sql = DEMO_KB_NAMES.sql;

  beforeAll(async () => {
    const a = await ws.handle.prisma.user.findUniqueOrThrow({ where: { email: "analyst@mosaic.local" }, include: { memberships: true } });
    analyst = { id: a.id, role: "ANALYST", groupIds: a.memberships.map((m) => m.groupId) };
  });

  it("names the item, its index and the field of a broken file, and the line of a JSON syntax error", () => {
    expect(() => parseGuideFile('[{"question": "x", "query": "SELECT 1"},\n {"question": "y"}]', "g.json")).toThrow(
      /g\.json, item 2 \(index 1, "y"\): has no "query"/,
    );
    expect(() => parseGuideFile('[{"question": "x",\n "query": }]', "g.json")).toThrow(/g\.json is not valid JSON.*Unexpected token/);
    expect(() => parseGuideFile('{"question": "x"}', "g.json")).toThrow(/must hold a JSON array/);
    expect(() => parseGuideFile('[{"question": 3, "query": "SELECT 1"}]', "g.json")).toThrow(
      /item 1 \(index 0\): "question" must be a string/,
    );
  });

  it("checks every item against the source (safety, runs, rows) and imports nothing when one fails", async () => {
    const before = await ws.handle.prisma.extractionGuide.count();
    const report = await importGuides(ws.handle.prisma, ws.deps, analyst, [
      { kb: sql, question: "How many customers are there?", query: "SELECT COUNT(*) FROM customers" },
      { kb: sql, question: "Delete the orders", query: "DELETE FROM orders" },
      { kb: sql, question: "Which products have a price column?", query: "SELECT price FROM products" },
      { kb: sql, question: "Which customers are in Atlantis?", query: "SELECT name FROM customers WHERE city = 'Atlantis'" },
      { kb: "No such source", question: "Anything?", query: "SELECT 1" },
    ]);
    expect(report.committed).toBe(false);
    expect(report.items.map((r) => r.status)).toEqual(["ready", "failed", "failed", "failed", "failed"]);
    expect(report.items[1].detail).toMatch(/read|SELECT|not allowed|only/i);
    expect(report.items[2].detail).toMatch(/price/);
    expect(report.items[3].detail).toMatch(/no rows/);
    expect(report.items[4].detail).toMatch(/No such source/);
    expect(await ws.handle.prisma.extractionGuide.count()).toBe(before);
  }, 60_000);

  it("imports good items, leaves an existing guide alone, and exports them in Spider's format", async () => {
    const items = [
      { kb: sql, question: "How many customers are there?", query: "SELECT COUNT(*) FROM customers" },
      { kb: sql, question: "Which customers are in Munich?", query: "SELECT name FROM customers WHERE city = 'Munich'" },
    ];
    const catalogJobs = () => ws.handle.prisma.job.count({ where: { kind: embedCatalogTextsJob.id, status: "QUEUED" } });
    await ws.handle.prisma.job.deleteMany({ where: { kind: embedCatalogTextsJob.id } });
    const first = await importGuides(ws.handle.prisma, ws.deps, analyst, items);
    expect(first).toMatchObject({ committed: true, imported: 2, failed: 0 });
    // The new questions are queued for embedding (guide retrieval by meaning), once for the whole import.
    expect(await catalogJobs()).toBe(1);
    const again = await importGuides(ws.handle.prisma, ws.deps, analyst, items);
    expect(again).toMatchObject({ imported: 0, duplicates: 2 });
    const out = await exportGuides(ws.handle.prisma, analyst, sql);
    expect(out.map(({ question, query, kb, language }) => ({ question, query, kb, language }))).toEqual(
      items.map((i) => ({ ...i, language: "sql" })),
    );
  }, 60_000);
});
