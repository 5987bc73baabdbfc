import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeAllBackends } from "@/lib/backends/registry";
import type { CatalogDeps } from "@/lib/deps";
import { registerKnowledgeBase } from "@/lib/ingest/register";
import { decryptSecrets, encryptSecrets } from "@/lib/crypto/secrets";
import { openAndBootstrap } from "@/lib/db/bootstrap";
import type { DatabaseHandle } from "@/lib/db/connect";
import { runPipeline } from "@/lib/runs/run-pipeline";
import { exportWorkspace } from "@/lib/workspace/export";
import { importWorkspace, type ImportOptions } from "@/lib/workspace/import";
import { createTestDatabase, type TestDatabase } from "../support/test-database";

/**
 * Moving an embedded workspace to the scale topology (`npm run test:services`): a PGlite workspace with
 * a document collection kept as a SQLite file is exported, then imported into a real PostgreSQL server
 * and the real OpenSearch node with another encryption key; the catalog arrives whole, the collection
 * lives in OpenSearch and answers the same question. Bad input is refused before anything is written.
 */
const searchUrl = process.env.TEST_OPENSEARCH_URL;
const postgresUrl = process.env.TEST_POSTGRES_URL;
const content = (name: string) => ({ name, bytes: readFileSync(path.join("lib/demo/content", name)) });
const OLD_KEY = Buffer.alloc(32, 3);
const NEW_KEY = Buffer.alloc(32, 4);

describe.skipIf(!searchUrl || !postgresUrl)("moving an embedded workspace to PostgreSQL and OpenSearch", () => {
  let source: { dir: string; handle: DatabaseHandle; deps: CatalogDeps };
  let exportDir: string;
  let target: TestDatabase;
  let kbId: string;
  const tmp = mkdtempSync(path.join(tmpdir(), "mosaic-migrate-"));
  const options = (over: Partial<ImportOptions> = {}): ImportOptions => ({
    from: exportDir,
    target: { databaseUrl: target.env.DATABASE_URL, dataDir: target.env.DATA_DIR, datasetsDir: "../shared/datasets" },
    encryptionKey: NEW_KEY,
    sourceKey: OLD_KEY,
    search: { url: searchUrl!, store: true },
    ...over,
  });

  beforeAll(async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "mosaic-embedded-"));
    const handle = (await openAndBootstrap({ DATA_DIR: dir, SEED_DEMO: true })).handle;
    const deps = { dataDir: path.join(dir, "kbs-root"), encryptionKey: OLD_KEY, datasetsDir: "../shared/datasets" };
    source = { dir, handle, deps };
    const admin = await handle.prisma.user.findUniqueOrThrow({ where: { email: "admin@mosaic.local" } });
    const kb = await registerKnowledgeBase(
      handle.prisma,
      deps,
      admin.id,
      { kind: "DOCUMENTS", name: "Company policies", description: "Policies and the annual report.", connection: {} },
      [content("annual-report-2025.md"), content("travel-and-expense-policy.md"), content("returns-policy.html")],
    );
    kbId = kb.id;
    // A knowledge base with an encrypted password (a graph database that is not running here).
    await handle.prisma.knowledgeBase.create({
      data: {
        name: "Graph",
        kind: "CYPHER",
        config: { uri: "bolt://127.0.0.1:9", user: "neo4j" },
        secretsCiphertext: encryptSecrets({ password: "graph-secret" }, OLD_KEY),
        status: "UNREACHABLE",
      },
    });
    // A chat client's thread (issue 29): it keeps continuing its conversation after the move.
    const conversation = await handle.prisma.conversation.create({ data: { userId: admin.id, title: "From a chat client" } });
    await handle.prisma.chatThread.create({ data: { key: "a".repeat(64), userId: admin.id, conversationId: conversation.id } });
    exportDir = path.join(tmp, "export");
    await exportWorkspace(handle, deps, exportDir);
    target = await createTestDatabase();
  }, 180_000);
  afterAll(async () => {
    await closeAllBackends();
    await source?.handle.close();
    await target?.cleanup();
    rmSync(tmp, { recursive: true, force: true });
    if (source) rmSync(source.dir, { recursive: true, force: true });
  });

  it("refuses to export into a folder that holds something", async () => {
    await expect(exportWorkspace(source.handle, source.deps, exportDir)).rejects.toThrow(
      /is not empty: an export never overwrites; choose a new folder/,
    );
  });

  it("refuses bad input before writing anything: unreachable targets, another version, an unknown key", async () => {
    await expect(importWorkspace(options({ search: { url: "http://127.0.0.1:9", store: true } }))).rejects.toThrow(
      /refused the connection.*Nothing was imported/,
    );
    await expect(
      importWorkspace(
        options({ target: { databaseUrl: "postgresql://postgres@127.0.0.1:9/mosaic", dataDir: target.env.DATA_DIR, datasetsDir: "." } }),
      ),
    ).rejects.toThrow(/The target database \(.*127\.0\.0\.1:9.*\) cannot be used: .*Check DATABASE_URL/);
    await expect(importWorkspace(options({ sourceKey: undefined }))).rejects.toThrow(
      /encrypted with another key than this deployment's\. Pass the old key/,
    );
    await expect(importWorkspace(options({ sourceKey: NEW_KEY }))).rejects.toThrow(
      /is not the one the export's secrets are encrypted with/,
    );

    const future = path.join(tmp, "future");
    cpSync(exportDir, future, { recursive: true });
    const manifest = JSON.parse(readFileSync(path.join(future, "manifest.json"), "utf8")) as { migrations: string[] };
    writeFileSync(
      path.join(future, "manifest.json"),
      JSON.stringify({ ...manifest, migrations: [...manifest.migrations, "20990101000000_future_change"] }),
    );
    await expect(importWorkspace(options({ from: future }))).rejects.toThrow(/made by a newer Mosaic .*20990101000000_future_change/);
    await expect(importWorkspace(options({ from: tmp }))).rejects.toThrow(/is not a workspace export \(it has no manifest\.json\)/);

    const occupied = await createTestDatabase();
    try {
      await (await openAndBootstrap(occupied.env)).handle.close();
      await expect(
        importWorkspace(options({ target: { databaseUrl: occupied.env.DATABASE_URL, dataDir: occupied.env.DATA_DIR, datasetsDir: "." } })),
      ).rejects.toThrow(/already holds a workspace \(\d+ users, 0 knowledge bases\): import only into an empty database/);
    } finally {
      await occupied.cleanup();
    }
  }, 120_000);

  it("imports the catalog whole, re-encrypts its secrets, and moves the collection into OpenSearch, where it answers alike", async () => {
    const report = await importWorkspace(options());
    expect(report.collectionsMoved).toEqual([kbId]);
    const handle = (await openAndBootstrap({ ...target.env, SEED_DEMO: false })).handle;
    try {
      for (const [model, delegate] of [
        ["User", "user"],
        ["KnowledgeBase", "knowledgeBase"],
        ["SourceObject", "sourceObject"],
        ["EntityLabel", "entityLabel"],
        ["Conversation", "conversation"],
        ["ChatThread", "chatThread"],
      ] as const) {
        const count = await (handle.prisma[delegate] as unknown as { count(): Promise<number> }).count();
        expect(count, model).toBe(await (source.handle.prisma[delegate] as unknown as { count(): Promise<number> }).count());
        expect(report.tables[model]).toBe(count);
      }
      const admin = await handle.prisma.user.findUniqueOrThrow({ where: { email: "admin@mosaic.local" } });
      expect(admin.passwordHash).toBe(
        (await source.handle.prisma.user.findUniqueOrThrow({ where: { email: "admin@mosaic.local" } })).passwordHash,
      );
      expect(await handle.prisma.chatThread.findUniqueOrThrow({ where: { key: "a".repeat(64) } })).toMatchObject({ userId: admin.id });
      const graph = await handle.prisma.knowledgeBase.findUniqueOrThrow({ where: { name: "Graph" } });
      expect(decryptSecrets(graph.secretsCiphertext!, NEW_KEY)).toEqual({ password: "graph-secret" });

      const moved = await handle.prisma.knowledgeBase.findUniqueOrThrow({ where: { id: kbId } });
      expect(moved.config).toMatchObject({ engine: "opensearch", opensearch: { url: searchUrl } });
      expect(moved.status).toBe("HEALTHY");
      expect(moved.lastCheckMessage).toMatch(/^3 documents, .*OpenSearch at /);
      expect(await handle.prisma.job.count({ where: { kbId, kind: "documents.embed" } })).toBe(1);

      const deps = { dataDir: target.env.DATA_DIR, encryptionKey: NEW_KEY, datasetsDir: "../shared/datasets" };
      const o = await runPipeline(handle.prisma, deps, {
        question: "What is the hotel cap per night in Oslo?",
        user: { id: admin.id, role: "ADMIN", groupIds: [] },
        kbIds: [kbId],
      });
      expect(o.answer.text).toContain("210");
      // Importing again finds the target occupied and changes nothing.
      await expect(importWorkspace(options())).rejects.toThrow(/already holds a workspace/);
    } finally {
      await closeAllBackends();
      await handle.close();
    }
  }, 180_000);
});
