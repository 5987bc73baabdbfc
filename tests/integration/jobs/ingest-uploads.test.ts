import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queuedUploads, queueUploads, retryQueuedUploads } from "@/lib/ingest/documents/upload-queue";
import { closeAllBackends } from "@/lib/backends/registry";
import type { CatalogDeps } from "@/lib/deps";
import { registerKnowledgeBase } from "@/lib/ingest/register";
import { openAndBootstrap } from "@/lib/db/bootstrap";
import type { DatabaseHandle } from "@/lib/db/connect";
import { drainJobs } from "@/lib/server/job-processor";
import { createTestDatabase, TARGET_ENGINE, type TestDatabase } from "../support/test-database";

/**
 * Documents added to an existing collection (here one kept as a SQLite file) are kept in the database
 * and added by the "documents.ingest" job: a readable file is added and the collection described again,
 * an unreadable one is named without stopping the others, and each leaves the queue once handled.
 */
const content = (name: string) => ({ name, bytes: readFileSync(path.join("lib/demo/content", name)) });

describe(`adding documents to a collection through the queue (${TARGET_ENGINE})`, () => {
  let db: TestDatabase;
  let handle: DatabaseHandle;
  let deps: CatalogDeps;
  let kbId: string;

  beforeAll(async () => {
    db = await createTestDatabase();
    handle = (await openAndBootstrap(db.env)).handle;
    deps = {
      dataDir: mkdtempSync(path.join(tmpdir(), "mosaic-uploads-")),
      encryptionKey: Buffer.alloc(32, 6),
      datasetsDir: "../shared/datasets",
    };
    const admin = await handle.prisma.user.findUniqueOrThrow({ where: { email: "admin@mosaic.local" } });
    kbId = (
      await registerKnowledgeBase(
        handle.prisma,
        deps,
        admin.id,
        { kind: "DOCUMENTS", name: "Queued policies", description: "", connection: {} },
        [content("returns-policy.html")],
      )
    ).id;
  }, 120_000);
  afterAll(async () => {
    await closeAllBackends();
    await handle?.close();
    await db?.cleanup();
    rmSync(deps.dataDir, { recursive: true, force: true });
  });

  it("adds the readable files, names the unreadable one, empties the queue and describes the collection again", async () => {
    const broken = { name: "broken.pdf", bytes: Buffer.from("%PDF-1.7 this is not really a PDF") };
    await queueUploads(handle.prisma, kbId, [content("travel-and-expense-policy.md"), broken, content("returns-policy.html")]);
    expect((await queuedUploads(handle.prisma, kbId)).waiting).toBe(3);
    await drainJobs({ prisma: handle.prisma, deps }, { exclusive: TARGET_ENGINE === "pglite" });

    const after = await queuedUploads(handle.prisma, kbId);
    expect(after.waiting).toBe(0);
    expect(after.job).toMatchObject({
      status: "SUCCEEDED",
      progressDone: 3,
      progressTotal: 3,
      message: expect.stringMatching(/^1 added, 0 replaced, 1 unchanged; not readable: broken\.pdf: /),
    });
    const kb = await handle.prisma.knowledgeBase.findUniqueOrThrow({ where: { id: kbId } });
    // The unreadable file is listed as failed, not counted among the documents.
    expect(kb.descriptor).toMatch(/^Document collection "Queued policies": 2 documents, /);
  });

  it("says plainly when there is nothing to add or no such collection", async () => {
    await expect(queueUploads(handle.prisma, kbId, [])).rejects.toThrow("Choose at least one document to add.");
    await expect(queueUploads(handle.prisma, "no-such-kb", [content("returns-policy.html")])).rejects.toThrow(
      "That document collection no longer exists.",
    );
    await expect(retryQueuedUploads(handle.prisma, kbId)).rejects.toThrow("No documents are waiting to be added.");
  });
});
