import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeAllBackends } from "@/lib/backends/registry";
import { createDemoSalesDatabase } from "@/lib/demo/sales-database";
import { listKbDocuments } from "@/lib/catalog/collection-documents";
import type { CatalogDeps } from "@/lib/deps";
import { removeCollectionDocument } from "@/lib/ingest/documents/remove-document";
import { registerKnowledgeBase } from "@/lib/ingest/register";
import { openAndBootstrap } from "@/lib/db/bootstrap";
import type { DatabaseHandle } from "@/lib/db/connect";
import { createTestDatabase, TARGET_ENGINE, type TestDatabase } from "../support/test-database";

/**
 * Removing a document from a registered collection (lib/ingest): the collection is described again
 * without it, so its tables' source objects and its words leave the catalog; a document that is not
 * there, or a knowledge base that is no collection, is refused with a plain message.
 */
const content = (name: string) => ({ name, bytes: readFileSync(path.join("lib/demo/content", name)) });

describe(`removing a document from a collection (${TARGET_ENGINE})`, () => {
  let db: TestDatabase;
  let handle: DatabaseHandle;
  let deps: CatalogDeps;
  let kbId: string;
  let admin: { id: string; role: "ADMIN"; groupIds: string[] };

  beforeAll(async () => {
    db = await createTestDatabase();
    handle = (await openAndBootstrap(db.env)).handle;
    deps = {
      dataDir: mkdtempSync(path.join(tmpdir(), "mosaic-remove-doc-")),
      encryptionKey: Buffer.alloc(32, 7),
      datasetsDir: "../shared/datasets",
    };
    const user = await handle.prisma.user.findUniqueOrThrow({ where: { email: "admin@mosaic.local" } });
    admin = { id: user.id, role: "ADMIN", groupIds: [] };
    kbId = (
      await registerKnowledgeBase(
        handle.prisma,
        deps,
        user.id,
        { kind: "DOCUMENTS", name: "Policies to prune", description: "", connection: {} },
        [content("annual-report-2025.md"), content("returns-policy.html")],
      )
    ).id;
  }, 120_000);
  afterAll(async () => {
    await closeAllBackends();
    await handle?.close();
    await db?.cleanup();
    rmSync(deps.dataDir, { recursive: true, force: true });
  });

  it("removes the document, its tables' source objects and its words from the catalog", async () => {
    const listed = await listKbDocuments(handle.prisma, deps, admin, kbId);
    expect(listed.documents.map((d) => d.title).sort()).toEqual(["Aurora Outfitters Annual Report 2025", "Returns and Warranty Policy"]);
    const report = listed.documents.find((d) => d.title.startsWith("Aurora"))!;
    const keysBefore = (await handle.prisma.sourceObject.findMany({ where: { kbId }, select: { key: true } })).map((o) => o.key);
    expect(keysBefore).toContain(`${report.id}#table-1`);

    const removed = await removeCollectionDocument(handle.prisma, deps, kbId, report.id);
    expect(removed.refresh.status).toBe("HEALTHY");

    expect((await listKbDocuments(handle.prisma, deps, admin, kbId)).documents.map((d) => d.title)).toEqual([
      "Returns and Warranty Policy",
    ]);
    const keysAfter = (await handle.prisma.sourceObject.findMany({ where: { kbId }, select: { key: true } })).map((o) => o.key);
    expect(keysAfter.some((k) => k.startsWith(report.id))).toBe(false);
    const kb = await handle.prisma.knowledgeBase.findUniqueOrThrow({ where: { id: kbId } });
    expect(kb.descriptor).toMatch(/^Document collection "Policies to prune": 1 document, /);
    expect(kb.descriptor).not.toContain("Annual Report");
    expect(await handle.prisma.entityLabel.count({ where: { kbId, label: { contains: "Nordics" } } })).toBe(0);
  });

  it("refuses a document that is not there, and a knowledge base that is no collection", async () => {
    await expect(removeCollectionDocument(handle.prisma, deps, kbId, "no-such-document")).rejects.toThrow(
      "That document is no longer in the collection.",
    );
    await expect(removeCollectionDocument(handle.prisma, deps, "no-such-kb", "x")).rejects.toThrow("That knowledge base no longer exists.");
    const file = path.join(deps.dataDir, "sales.sqlite");
    createDemoSalesDatabase(file);
    const sql = await registerKnowledgeBase(
      handle.prisma,
      deps,
      admin.id,
      { kind: "SQL", name: "Sales to keep", description: "", connection: { dialect: "sqlite" } },
      [{ name: "sales.sqlite", bytes: readFileSync(file) }],
    );
    await expect(removeCollectionDocument(handle.prisma, deps, sql.id, "x")).rejects.toThrow(
      "Sales to keep is not a document collection: it has no documents to remove.",
    );
  });
});
