import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeAllBackends } from "@/lib/backends/registry";
import type { AccessSubject } from "@/lib/catalog/access";
import type { CatalogDeps } from "@/lib/deps";
import { refreshKnowledgeBase } from "@/lib/ingest/refresh";
import { collectionDocumentSentences, listCollectionDocuments, listSourceObjects, updateSourceObject } from "@/lib/catalog/source-objects";
import { openAndBootstrap } from "@/lib/db/bootstrap";
import type { DatabaseHandle } from "@/lib/db/connect";
import { DEMO_KB_NAMES, seedDemoCatalogOnce } from "@/lib/demo/seed-catalog";
import { runRetrievalAction } from "@/lib/guides/capture";
import { TARGET_ENGINE, createTestDatabase, type TestDatabase } from "../support/test-database";

/** The analyst's source-object workbench: filters, curation that survives re-indexing, documents and sentences to select from. */
describe(`source-object workbench (${TARGET_ENGINE})`, () => {
  let db: TestDatabase;
  let handle: DatabaseHandle;
  let deps: CatalogDeps;
  let analyst: AccessSubject;
  let outsider: AccessSubject;
  const kb = { documents: "", sql: "", sparql: "" };
  const names = async (who: AccessSubject, filters: Record<string, string>) =>
    (await listSourceObjects(handle.prisma, who, filters)).map((o) => o.name);
  const objectId = async (key: string) => (await handle.prisma.sourceObject.findFirstOrThrow({ where: { key } })).id;

  beforeAll(async () => {
    db = await createTestDatabase();
    handle = (await openAndBootstrap(db.env)).handle;
    deps = {
      dataDir: mkdtempSync(path.join(tmpdir(), "mosaic-so-")),
      encryptionKey: Buffer.alloc(32, 9),
      datasetsDir: "../shared/datasets",
    };
    await seedDemoCatalogOnce(handle.prisma, deps);
    for (const [k, name] of Object.entries(DEMO_KB_NAMES))
      kb[k as keyof typeof kb] = (await handle.prisma.knowledgeBase.findFirstOrThrow({ where: { name } })).id;
    const a = await handle.prisma.user.findUniqueOrThrow({ where: { email: "analyst@mosaic.local" }, include: { memberships: true } });
    analyst = { id: a.id, role: "ANALYST", groupIds: a.memberships.map((m) => m.groupId) };
    const finance = await handle.prisma.group.create({ data: { name: "Finance" } });
    await handle.prisma.kbGroupAccess.create({ data: { kbId: kb.documents, groupId: finance.id } });
    // The demo knowledge bases are open to everyone: restricting one to a group also closes it.
    await handle.prisma.knowledgeBase.update({ where: { id: kb.documents }, data: { openToEveryone: false } });
    await handle.prisma.groupMembership.create({ data: { userId: analyst.id, groupId: finance.id } });
    analyst.groupIds.push(finance.id);
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

  it("filters by knowledge base, content type, tag and text, together", async () => {
    expect(await names(analyst, { kbId: kb.documents, contentType: "TABLE" })).toEqual([
      "Return window and warranty by product category",
      "Table 1 of Aurora Outfitters Annual Report 2025",
      "Table 1 of Travel and Expense Policy",
    ]);
    expect(await names(analyst, { contentType: "TEXT" })).toEqual([DEMO_KB_NAMES.documents]);
    expect(await names(analyst, { tag: "HTML" })).toEqual([DEMO_KB_NAMES.documents, "Return window and warranty by product category"]);
    expect(await names(analyst, { contentType: "GRAPH", q: "chief executive" })).toEqual(["Person"]);
    expect(await names(analyst, { tag: "has-foreign-keys", kbId: kb.sql })).toEqual(["customers", "order_items", "orders"]);
    expect(await names(analyst, { tag: "has-foreign-keys", kbId: kb.sparql })).toEqual([]);
    // A KB outside the reader's access contributes nothing, whatever the filter.
    expect(await names(outsider, { kbId: kb.documents })).toEqual([]);
    expect(await names(outsider, { contentType: "TABLE" })).toEqual(["customers", "order_items", "orders", "products", "regions"]);
  });

  it("keeps an analyst's description, name and tags when the KB is re-indexed, and refreshes the rest", async () => {
    const id = await objectId("annual-report-2025-md#table-1");
    const untouched = await objectId("travel-and-expense-policy-md#table-1");
    await handle.prisma.sourceObject.update({ where: { id: untouched }, data: { description: "stale generated text" } });
    await updateSourceObject(handle.prisma, analyst, {
      id,
      name: "Revenue by region",
      description: "Revenue per sales region, 2024 and 2025, in EUR million.",
      tags: ["Finance", "revenue", "finance"],
    });
    await expect(updateSourceObject(handle.prisma, outsider, { id, name: "x", description: "", tags: [] })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });

    const report = await refreshKnowledgeBase(handle.prisma, deps, kb.documents);
    expect(report.status).toBe("HEALTHY");
    const kept = await handle.prisma.sourceObject.findUniqueOrThrow({ where: { id } });
    expect(kept).toMatchObject({
      name: "Revenue by region",
      description: "Revenue per sales region, 2024 and 2025, in EUR million.",
      tags: ["finance", "revenue"],
      descriptionEdited: true,
    });
    expect((await handle.prisma.sourceObject.findUniqueOrThrow({ where: { id: untouched } })).description).toMatch(
      /^Table from "Travel and Expense Policy"/,
    );
    expect(await names(analyst, { tag: "finance" })).toEqual(["Revenue by region"]);
    expect(await names(analyst, { q: "revenue" })).toContain("Revenue by region");
  });

  it("lists a collection's documents and a document's sentences for SelectSentenceIdxs", async () => {
    const collection = await objectId("collection");
    const docs = await listCollectionDocuments(handle.prisma, deps, analyst, collection);
    expect(docs.map((d) => d.title)).toEqual([
      "Aurora Outfitters Annual Report 2025",
      "Returns and Warranty Policy",
      "Travel and Expense Policy",
    ]);
    expect(docs.every((d) => d.sentences > 3 && d.tables === 1)).toBe(true);
    const travel = docs.find((d) => d.title === "Travel and Expense Policy")!;
    const { sentences, total, truncated } = await collectionDocumentSentences(handle.prisma, deps, analyst, collection, travel.id);
    expect(total).toBe(travel.sentences);
    expect(truncated).toBe(false);
    const oslo = sentences.findIndex((s) => /nightly cap/.test(s));
    expect(oslo).toBeGreaterThan(0);
    // Sentence i of the list is sentence i of SelectSentenceIdxs.
    const picked = await runRetrievalAction(handle.prisma, deps, analyst, {
      kbId: kb.documents,
      kind: "SELECT_SENTENCE_IDXS",
      params: { documentId: travel.id, sentenceIdxs: [oslo] },
    });
    expect(picked.context).toBe(`Travel and Expense Policy: ${sentences[oslo]}`);

    await expect(listCollectionDocuments(handle.prisma, deps, analyst, await objectId("orders"))).rejects.toMatchObject({
      code: "VALIDATION",
    });
    await expect(listCollectionDocuments(handle.prisma, deps, outsider, collection)).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(collectionDocumentSentences(handle.prisma, deps, analyst, collection, "no-such-doc")).rejects.toMatchObject({
      code: "VALIDATION",
      message: expect.stringMatching(/no document "no-such-doc"/),
    });
  });
});
