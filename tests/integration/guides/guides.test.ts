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
import { runRetrievalAction } from "@/lib/guides/capture";
import { deleteGuide } from "@/lib/guides/delete";
import { guideDraftFromRun } from "@/lib/guides/from-run";
import { getGuide } from "@/lib/guides/get";
import { listGuides } from "@/lib/guides/list";
import { saveGuide } from "@/lib/guides/save";
import { runPipeline } from "@/lib/runs/run-pipeline";

import { TARGET_ENGINE, createTestDatabase, type TestDatabase } from "../support/test-database";

/** Extraction guides as analysts author them: capture, create, search, edit, delete, helped runs, access. */
describe(`extraction guide library (${TARGET_ENGINE})`, () => {
  let db: TestDatabase;
  let handle: DatabaseHandle;
  let deps: CatalogDeps;
  let analyst: AccessSubject;
  let user: AccessSubject;
  let outsider: AccessSubject;
  const kb = { documents: "", sql: "", sparql: "" };
  const REPORT_TABLE = "annual-report-2025-md#table-1";
  const TRAVEL_DOC = "travel-and-expense-policy-md";

  const subject = async (email: string): Promise<AccessSubject> => {
    const u = await handle.prisma.user.findUniqueOrThrow({ where: { email }, include: { memberships: true } });
    return { id: u.id, role: u.role, groupIds: u.memberships.map((m) => m.groupId) };
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    handle = (await openAndBootstrap(db.env)).handle;
    deps = {
      dataDir: mkdtempSync(path.join(tmpdir(), "mosaic-guides-")),
      encryptionKey: Buffer.alloc(32, 7),
      datasetsDir: "../shared/datasets",
    };
    await seedDemoCatalogOnce(handle.prisma, deps);
    for (const [k, name] of Object.entries(DEMO_KB_NAMES))
      kb[k as keyof typeof kb] = (await handle.prisma.knowledgeBase.findFirstOrThrow({ where: { name } })).id;
    analyst = await subject("analyst@mosaic.local");
    user = await subject("user@mosaic.local");
    // An analyst outside the "Finance" group, which alone may use the SQL KB from here on.
    const finance = await handle.prisma.group.create({ data: { name: "Finance" } });
    await handle.prisma.kbGroupAccess.create({ data: { kbId: kb.sql, groupId: finance.id } });
    // The demo knowledge bases are open to everyone: restricting one to a group also closes it.
    await handle.prisma.knowledgeBase.update({ where: { id: kb.sql }, data: { openToEveryone: false } });
    for (const s of [analyst, user]) {
      await handle.prisma.groupMembership.create({ data: { userId: s.id, groupId: finance.id } });
      s.groupIds.push(finance.id);
    }
    const o = await handle.prisma.user.create({
      data: { email: "outsider@mosaic.local", name: "Otto Outsider", role: "ANALYST", passwordHash: "x" },
    });
    outsider = { id: o.id, role: "ANALYST", groupIds: [] };
  }, 120_000);
  afterAll(async () => {
    await closeAllBackends();
    await handle.close();
    await db.cleanup();
  });

  describe("capturing contexts by running actions", () => {
    it("SelectCoordinates on a document table returns the selected cells, linearized", async () => {
      const c = await runRetrievalAction(handle.prisma, deps, analyst, {
        kbId: kb.documents,
        kind: "SELECT_COORDINATES",
        params: { tableKey: REPORT_TABLE, rows: [0, 2], columns: ["Region", "Growth"] },
      });
      expect(c.context.split("\n")).toHaveLength(2);
      expect(c.context).toContain("Region: Nordics, Growth: 9%");
      expect(c.context).toContain("Region: United Kingdom, Growth: 5%");
      expect(c.context).not.toContain("26.3");
      expect(c.pieces.map((p) => p.kind)).toEqual(["row", "row"]);
      expect(c.description).toBe(`SelectCoordinates(${REPORT_TABLE}, rows [0, 2], columns [Region, Growth])`);
    });

    it("SelectSentenceIdxs returns the chosen sentences of a document in order", async () => {
      const c = await runRetrievalAction(handle.prisma, deps, analyst, {
        kbId: kb.documents,
        kind: "SELECT_SENTENCE_IDXS",
        params: { documentId: TRAVEL_DOC, sentenceIdxs: [3, 1] },
      });
      expect(c.context.startsWith("Travel and Expense Policy:")).toBe(true);
      expect(c.pieces).toHaveLength(1);
      await expect(
        runRetrievalAction(handle.prisma, deps, analyst, {
          kbId: kb.documents,
          kind: "SELECT_SENTENCE_IDXS",
          params: { documentId: TRAVEL_DOC, sentenceIdxs: [9999] },
        }),
      ).rejects.toMatchObject({ code: "VALIDATION", message: expect.stringMatching(/Sentence 9999 does not exist/) });
    });

    it("NativeQuery goes through the backend's safety checks and must be in the KB's language", async () => {
      const ok = await runRetrievalAction(handle.prisma, deps, analyst, {
        kbId: kb.sql,
        kind: "NATIVE_QUERY",
        params: { query: { language: "sql", text: "SELECT COUNT(*) AS returned FROM orders WHERE status = 'returned'" } },
      });
      expect(ok.context).toMatch(/returned: 7/);
      expect(ok.query?.language).toBe("sql");
      await expect(
        runRetrievalAction(handle.prisma, deps, analyst, {
          kbId: kb.sql,
          kind: "NATIVE_QUERY",
          params: { query: { language: "sql", text: "DELETE FROM orders" } },
        }),
      ).rejects.toMatchObject({ code: "VALIDATION", message: expect.stringMatching(/refused/i) });
      await expect(
        runRetrievalAction(handle.prisma, deps, analyst, {
          kbId: kb.sql,
          kind: "NATIVE_QUERY",
          params: { query: { language: "sparql", text: "SELECT * WHERE { ?s ?p ?o }" } },
        }),
      ).rejects.toMatchObject({ code: "VALIDATION", message: expect.stringMatching(/answers SQL queries, not SPARQL/) });
      await expect(
        runRetrievalAction(handle.prisma, deps, analyst, {
          kbId: kb.sparql,
          kind: "NATIVE_QUERY",
          params: { query: { language: "sparql", text: "INSERT DATA { <a:b> <a:c> <a:d> }" } },
        }),
      ).rejects.toMatchObject({ code: "VALIDATION" });
    });

    it("Neighborhood reads an RDF entity's facts; the wrong kind of KB is explained", async () => {
      const c = await runRetrievalAction(handle.prisma, deps, analyst, {
        kbId: kb.sparql,
        kind: "NEIGHBORHOOD",
        params: { entities: ["https://data.aurora-outfitters.example/stockholm"], hops: 1 },
      });
      expect(c.context).toContain("Stockholm");
      expect(c.query?.language).toBe("sparql");
      await expect(
        runRetrievalAction(handle.prisma, deps, analyst, {
          kbId: kb.sparql,
          kind: "SELECT_COORDINATES",
          params: { tableKey: "x", rows: [0], columns: [0] },
        }),
      ).rejects.toMatchObject({ code: "VALIDATION", message: expect.stringMatching(/SelectCoordinates works on tables.*an RDF graph/) });
      await expect(
        runRetrievalAction(handle.prisma, deps, analyst, {
          kbId: kb.documents,
          kind: "SELECT_COORDINATES",
          params: { tableKey: REPORT_TABLE, rows: [], columns: ["Region"] },
        }),
      ).rejects.toMatchObject({ code: "VALIDATION", message: expect.stringMatching(/SelectCoordinates action is incomplete \(rows\)/) });
    });

    it("SelectCoordinates on a database table runs as the SQL that reads those cells by primary key", async () => {
      const c = await runRetrievalAction(handle.prisma, deps, analyst, {
        kbId: kb.sql,
        kind: "SELECT_COORDINATES",
        params: { tableKey: "products", rows: [2, 0], columns: ["name", 3] },
      });
      expect(c.action.kind).toBe("NATIVE_QUERY");
      expect(c.query?.text).toBe(
        'SELECT "name", "list_price"\nFROM "products"\nWHERE "product_id" = 1\n   OR "product_id" = 3\nORDER BY "product_id"',
      );
      expect(c.context.split("\n")).toHaveLength(2);
      expect(c.context).toContain("name: Summit 2 Tent");
      expect(c.description).toBe("SelectCoordinates(products, rows [2, 0], columns [name, 3])");
      await expect(
        runRetrievalAction(handle.prisma, deps, analyst, {
          kbId: kb.sql,
          kind: "SELECT_COORDINATES",
          params: { tableKey: "products", rows: [999], columns: ["name"] },
        }),
      ).rejects.toMatchObject({ code: "VALIDATION", message: expect.stringMatching(/has no row 999/) });
      await expect(
        runRetrievalAction(handle.prisma, deps, analyst, {
          kbId: kb.sql,
          kind: "SELECT_COORDINATES",
          params: { tableKey: "products", rows: [0], columns: ["colour"] },
        }),
      ).rejects.toMatchObject({ code: "VALIDATION", message: expect.stringMatching(/no column "colour"/) });
      // A guide stores the query, so it runs at question time like any NativeQuery.
      const { id } = await saveGuide(handle.prisma, deps, analyst, {
        question: "What do the first tents cost?",
        sources: [
          {
            kbId: kb.sql,
            actions: [{ kind: "SELECT_COORDINATES", params: { tableKey: "products", rows: [0], columns: ["name", "list_price"] } }],
          },
        ],
      });
      const g = await getGuide(handle.prisma, analyst, id);
      expect(g.sources[0].actions[0]).toMatchObject({
        kind: "NATIVE_QUERY",
        params: { query: { language: "sql", text: expect.stringContaining('WHERE "product_id" = 1') } },
      });
      await deleteGuide(handle.prisma, analyst, id);
    });

    it("refuses a KB outside the caller's access as if it did not exist", async () => {
      await expect(
        runRetrievalAction(handle.prisma, deps, outsider, {
          kbId: kb.sql,
          kind: "NATIVE_QUERY",
          params: { query: { language: "sql", text: "SELECT 1" } },
        }),
      ).rejects.toMatchObject({ code: "NOT_FOUND" });
    });
  });

  describe("authoring, searching, editing and deleting", () => {
    let guideId = "";

    it("creates a guide from scratch, capturing every missing context by running its actions", async () => {
      const { id } = await saveGuide(handle.prisma, deps, analyst, {
        question: "Which region grew fastest in 2025?",
        answer: "Central Europe (24%)",
        notes: "Read the growth column of the results table.",
        sources: [
          {
            kbId: kb.documents,
            actions: [{ kind: "SELECT_COORDINATES", params: { tableKey: REPORT_TABLE, rows: [0, 1, 2], columns: ["Region", "Growth"] } }],
          },
          {
            kbId: kb.sql,
            actions: [
              {
                kind: "NATIVE_QUERY",
                params: { query: { language: "sql", text: "SELECT region FROM regions ORDER BY region" } },
                context: "hand-picked context",
              },
            ],
          },
        ],
      });
      guideId = id;
      const g = await getGuide(handle.prisma, analyst, id);
      expect(g.sources.map((s) => s.kbName)).toEqual([DEMO_KB_NAMES.documents, DEMO_KB_NAMES.sql]);
      expect(g.sources[0].actions[0].context).toContain("Region: Central Europe, Growth: 24%");
      expect(g.sources[1].actions[0].context).toBe("hand-picked context");
      expect(g.sources[0].actions[0].description).toMatch(/^SelectCoordinates\(/);
      expect(g.createdBy).toBe("Ana Analyst");
    });

    it("refuses to save a guide whose action is unsafe or fails, saying which action, and stores nothing", async () => {
      const before = await handle.prisma.extractionGuide.count();
      const attempt = saveGuide(handle.prisma, deps, analyst, {
        question: "How many orders are there?",
        sources: [
          {
            kbId: kb.sql,
            actions: [
              { kind: "NATIVE_QUERY", params: { query: { language: "sql", text: "SELECT COUNT(*) FROM orders" } } },
              { kind: "NATIVE_QUERY", params: { query: { language: "sql", text: "UPDATE orders SET status = 'x'" } } },
              { kind: "NATIVE_QUERY", params: { query: { language: "sql", text: "SELECT nope FROM nowhere" } } },
            ],
          },
        ],
      });
      await expect(attempt).rejects.toMatchObject({
        code: "VALIDATION",
        message: expect.stringMatching(/2 problems/),
        fields: {
          "sources.0.actions.1": expect.stringMatching(/refused/i),
          "sources.0.actions.2": expect.stringMatching(/nowhere|no such table/i),
        },
      });
      expect(await handle.prisma.extractionGuide.count()).toBe(before);
      await expect(saveGuide(handle.prisma, deps, analyst, { question: "  ", sources: [] })).rejects.toThrow();
      await expect(
        saveGuide(handle.prisma, deps, analyst, {
          question: "q",
          sources: [
            {
              kbId: kb.sql,
              sourceObjectId: "not-an-object",
              actions: [{ kind: "NATIVE_QUERY", params: { query: { language: "sql", text: "SELECT 1" } } }],
            },
          ],
        }),
      ).rejects.toMatchObject({ fields: { "sources.0.sourceObjectId": expect.stringMatching(/not part of/) } });
    });

    it("lists and searches guides by their words, ranked, and filters by knowledge base", async () => {
      await saveGuide(handle.prisma, deps, analyst, {
        question: "What is the hotel cap per night in Oslo?",
        answer: "210 EUR",
        sources: [
          {
            kbId: kb.documents,
            actions: [
              {
                kind: "SELECT_COORDINATES",
                params: { tableKey: "travel-and-expense-policy-md#table-1", rows: [1], columns: ["City", "Hotel cap per night (EUR)"] },
              },
            ],
          },
        ],
      });
      const all = await listGuides(handle.prisma, analyst);
      expect(all.map((g) => g.question)).toEqual(["What is the hotel cap per night in Oslo?", "Which region grew fastest in 2025?"]);
      expect(all[1]).toMatchObject({
        actions: 2,
        actionKinds: ["SELECT_COORDINATES", "NATIVE_QUERY"],
        kbs: [{ name: DEMO_KB_NAMES.documents }, { name: DEMO_KB_NAMES.sql }],
      });
      expect((await listGuides(handle.prisma, analyst, { q: "regions growing fastest" })).map((g) => g.question)).toEqual([
        "Which region grew fastest in 2025?",
      ]);
      expect((await listGuides(handle.prisma, analyst, { q: "210" })).map((g) => g.question)).toEqual([
        "What is the hotel cap per night in Oslo?",
      ]);
      expect((await listGuides(handle.prisma, analyst, { kbId: kb.sql })).map((g) => g.question)).toEqual([
        "Which region grew fastest in 2025?",
      ]);
      expect(await listGuides(handle.prisma, analyst, { q: "submarine" })).toEqual([]);
    });

    it("hides a guide that uses a KB outside the reader's access, everywhere", async () => {
      expect((await listGuides(handle.prisma, outsider)).map((g) => g.question)).toEqual(["What is the hotel cap per night in Oslo?"]);
      await expect(getGuide(handle.prisma, outsider, guideId)).rejects.toMatchObject({ code: "NOT_FOUND" });
      await expect(deleteGuide(handle.prisma, outsider, guideId)).rejects.toMatchObject({ code: "NOT_FOUND" });
      await expect(
        saveGuide(
          handle.prisma,
          deps,
          outsider,
          {
            question: "x",
            sources: [
              { kbId: kb.documents, actions: [{ kind: "SELECT_SENTENCE_IDXS", params: { documentId: TRAVEL_DOC, sentenceIdxs: [0] } }] },
            ],
          },
          { guideId },
        ),
      ).rejects.toMatchObject({
        code: "NOT_FOUND",
      });
    });

    it("edits a guide, replacing its sources, and shows the runs it helped", async () => {
      await saveGuide(
        handle.prisma,
        deps,
        analyst,
        {
          question: "Which region grew fastest in 2025?",
          answer: "Central Europe",
          sources: [
            {
              kbId: kb.documents,
              actions: [{ kind: "SELECT_COORDINATES", params: { tableKey: REPORT_TABLE, rows: [1], columns: [0, 3] } }],
            },
          ],
        },
        { guideId },
      );
      const edited = await getGuide(handle.prisma, analyst, guideId);
      expect(edited.answer).toBe("Central Europe");
      expect(edited.sources).toHaveLength(1);
      expect(edited.sources[0].actions[0].context).toBe(
        "Table 1 of Aurora Outfitters Annual Report 2025 / Results by region / Region: Central Europe, Growth: 24%",
      );
      expect(await handle.prisma.guideAction.count()).toBe(2);

      const mine = await runPipeline(handle.prisma, deps, { question: "Which region grew the fastest in 2025?", user: analyst });
      const theirs = await runPipeline(handle.prisma, deps, { question: "Which region grew fastest last year (2025)?", user });
      expect(mine.guides.map((g) => g.guideId)).toContain(guideId);
      expect(theirs.guides.map((g) => g.guideId)).toContain(guideId);
      // Listed runs are those the reader can open: the analyst's own; someone else's once it is reported; an admin all.
      const helped = (await getGuide(handle.prisma, analyst, guideId)).helped;
      expect(helped.total).toBe(2);
      expect(helped.runs).toEqual([
        expect.objectContaining({
          runId: mine.runId,
          question: "Which region grew the fastest in 2025?",
          askedBy: "Ana Analyst",
          status: mine.status,
        }),
      ]);
      await handle.prisma.feedback.create({ data: { runId: theirs.runId, userId: user.id, verdict: "WRONG" } });
      expect((await getGuide(handle.prisma, analyst, guideId)).helped.runs.map((r) => r.askedBy)).toEqual(["Bo User", "Ana Analyst"]);
      const admin = await subject("admin@mosaic.local");
      expect((await getGuide(handle.prisma, admin, guideId)).helped.runs).toHaveLength(2);
    });

    it("drafts a guide from another person's run for an analyst, and refuses a run outside their access", async () => {
      const run = await runPipeline(handle.prisma, deps, { question: "How many orders were returned?", user, kbIds: [kb.sql] });
      const draft = await guideDraftFromRun(handle.prisma, analyst, run.runId);
      expect(draft).toMatchObject({ question: "How many orders were returned?", fromRunId: run.runId, sources: [{ kbId: kb.sql }] });
      await expect(guideDraftFromRun(handle.prisma, outsider, run.runId)).rejects.toMatchObject({ code: "NOT_FOUND" });
      await expect(guideDraftFromRun(handle.prisma, { ...user, id: outsider.id, role: "USER" }, run.runId)).rejects.toMatchObject({
        code: "NOT_FOUND",
      });

      const { id } = await saveGuide(handle.prisma, deps, analyst, draft);
      expect((await handle.prisma.extractionGuide.findUniqueOrThrow({ where: { id } })).fromRunId).toBe(run.runId);
      await expect(saveGuide(handle.prisma, deps, analyst, draft)).rejects.toMatchObject({ code: "CONFLICT" });
    });

    it("deletes a guide; its runs stay", async () => {
      const runs = await handle.prisma.run.count();
      await deleteGuide(handle.prisma, analyst, guideId);
      await expect(getGuide(handle.prisma, analyst, guideId)).rejects.toMatchObject({ code: "NOT_FOUND" });
      expect(await handle.prisma.runGuideUse.count({ where: { guideId } })).toBe(0);
      expect(await handle.prisma.run.count()).toBe(runs);
    });
  });
});
