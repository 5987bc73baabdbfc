import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, connectOpenSearch } from "@/lib/backends/documents/opensearch/connection";
import { collectionIndexes, indexesBehind } from "@/lib/backends/documents/opensearch/layout";
import { latestReindex, reindexOutdatedCollections, requestReindex } from "@/lib/ingest/documents/reindex";
import { queuedUploads, queueUploads } from "@/lib/ingest/documents/upload-queue";
import { closeAllBackends } from "@/lib/backends/registry";
import type { CatalogDeps } from "@/lib/deps";
import { deleteKnowledgeBase } from "@/lib/catalog/knowledge-bases";
import { checkKnowledgeBase } from "@/lib/catalog/refresh";
import { registerKnowledgeBase } from "@/lib/ingest/register";
import { openAndBootstrap } from "@/lib/db/bootstrap";
import type { DatabaseHandle } from "@/lib/db/connect";
import { JobProcessor } from "@/lib/server/job-processor";
import { runPipeline } from "@/lib/runs/run-pipeline";
import { TARGET_ENGINE, createTestDatabase, type TestDatabase } from "../support/test-database";

/**
 * Background work on an OpenSearch collection, on the real test node (`npm run test:services`):
 * documents added while the cluster is away are kept and added once it is back (the health says why
 * meanwhile), and a re-index builds new indexes, switches the aliases and drops the old ones, also
 * repairing a collection whose index was built with another layout.
 */
const url = process.env.TEST_OPENSEARCH_URL;
const content = (name: string) => ({ name, bytes: readFileSync(path.join("lib/demo/content", name)) });

/** A loopback TCP relay to the node that can be cut and restored on the same port: the cluster "goes away". */
class Relay {
  private server: net.Server | null = null;
  private sockets = new Set<net.Socket>();
  port = 0;
  constructor(private readonly target: URL) {}
  async open(): Promise<void> {
    this.server = net.createServer((client) => {
      const upstream = net.connect(Number(this.target.port), this.target.hostname);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on("error", () => undefined).on("close", () => this.sockets.delete(s));
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => this.server!.listen(this.port, "127.0.0.1", resolve));
    this.port = (this.server.address() as net.AddressInfo).port;
  }
  async cut(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise((resolve) => this.server?.close(resolve));
    this.server = null;
  }
}

describe.skipIf(!url)(`background jobs on an OpenSearch collection (${TARGET_ENGINE})`, () => {
  let db: TestDatabase;
  let handle: DatabaseHandle;
  let deps: CatalogDeps;
  let admin: { id: string; role: "ADMIN"; groupIds: string[] };
  let relay: Relay;
  let kbId: string;
  // Retries after 100 ms (doubling), so the back-off is seen without waiting for the server's 10 s.
  const processor = () =>
    new JobProcessor({ services: { prisma: handle.prisma, deps }, exclusive: TARGET_ENGINE === "pglite", retryBaseMs: 100 });
  const ask = (question: string) => runPipeline(handle.prisma, deps, { question, user: admin, kbIds: [kbId] });

  beforeAll(async () => {
    db = await createTestDatabase();
    handle = (await openAndBootstrap(db.env)).handle;
    deps = {
      dataDir: mkdtempSync(path.join(tmpdir(), "mosaic-os-jobs-")),
      encryptionKey: Buffer.alloc(32, 5),
      datasetsDir: "../shared/datasets",
    };
    const a = await handle.prisma.user.findUniqueOrThrow({ where: { email: "admin@mosaic.local" } });
    admin = { id: a.id, role: "ADMIN", groupIds: [] };
    relay = new Relay(new URL(url!));
    await relay.open();
    const kb = await registerKnowledgeBase(
      handle.prisma,
      deps,
      admin.id,
      {
        kind: "DOCUMENTS",
        name: "Reports (OpenSearch jobs)",
        description: "",
        connection: { engine: "opensearch", searchUrl: `http://127.0.0.1:${relay.port}` },
      },
      [content("annual-report-2025.md")],
    );
    kbId = kb.id;
  }, 120_000);
  afterAll(async () => {
    await relay?.cut();
    await closeAllBackends();
    await handle?.close();
    await db?.cleanup();
    rmSync(deps.dataDir, { recursive: true, force: true });
  });

  it("keeps documents added while the cluster is away, says why on the health, and adds them when it is back", async () => {
    await relay.cut();
    const queued = await queueUploads(handle.prisma, kbId, [content("travel-and-expense-policy.md")]);
    expect(queued.created).toBe(true);
    await processor().drain({ maxWaitMs: 0 });

    const waiting = await queuedUploads(handle.prisma, kbId);
    expect(waiting.waiting).toBe(1);
    expect(waiting.job).toMatchObject({
      status: "QUEUED",
      attempts: 1,
      message: expect.stringMatching(
        /^Attempt 1 of 40 failed \(OpenSearch at http:\/\/127\.0\.0\.1:\d+ refused the connection.*tried again in/,
      ),
    });
    const kb = await handle.prisma.knowledgeBase.findUniqueOrThrow({ where: { id: kbId } });
    expect(kb.status).toBe("UNREACHABLE");
    expect(kb.lastCheckMessage).toMatch(
      /refused the connection .*1 document waits to be added; they are kept and added when it answers again\./,
    );

    await relay.open();
    await processor().drain({ maxWaitMs: 10_000 });
    const after = await queuedUploads(handle.prisma, kbId);
    expect(after.waiting).toBe(0);
    expect(after.job).toMatchObject({ status: "SUCCEEDED", message: "1 added, 0 replaced, 0 unchanged." });
    expect((await handle.prisma.knowledgeBase.findUniqueOrThrow({ where: { id: kbId } })).status).toBe("HEALTHY");
    expect((await ask("What is the hotel cap per night in Oslo?")).answer.text).toContain("210");
  });

  it("re-indexes into new indexes with progress, switches the aliases, drops the old ones, and repairs an index of another layout", async () => {
    const conn = connectOpenSearch(
      { engine: "opensearch", opensearch: { url: url!, indexPrefix: "mosaic", shards: 1, replicas: 0 } } as never,
      {},
    );
    try {
      const names = collectionIndexes(conn.settings, kbId);
      const before = [...(await indexesBehind(conn, names.contentAlias)), ...(await indexesBehind(conn, names.unitsAlias))];
      // An index written by another version of the layout: the collection is reported, not read wrongly.
      await call(conn, "PUT", `/${before[1]}/_mapping`, { _meta: { mosaic_layout: 0, analyzer: "mosaic_text_v0" } });
      expect(await checkKnowledgeBase(handle.prisma, deps, kbId)).toMatchObject({
        ok: false,
        message: expect.stringMatching(/incompatible mapping .*re-index the collection/),
      });

      // At start, a collection of an older layout is queued for re-indexing; the admin's request finds that job.
      expect(await reindexOutdatedCollections(handle.prisma, deps)).toBe(1);
      expect(await requestReindex(handle.prisma, kbId)).toMatchObject({ status: "QUEUED", message: "Waiting to re-index the collection." });
      await processor().drain({ maxWaitMs: 0 });
      const job = await latestReindex(handle.prisma, kbId);
      expect(job).toMatchObject({
        status: "SUCCEEDED",
        message: expect.stringMatching(/^Re-indexed with index layout 1; the previous indexes were removed\./),
      });
      expect(job!.progressTotal).toBeGreaterThan(10);
      expect(job!.progressDone).toBe(job!.progressTotal);

      const after = [...(await indexesBehind(conn, names.contentAlias)), ...(await indexesBehind(conn, names.unitsAlias))];
      expect(after).toHaveLength(2);
      for (const index of after) expect(index).toMatch(/-v1-[a-z0-9]+$/);
      for (const index of before) expect((await call(conn, "HEAD", `/${index}`, undefined, { ignore: [404] })).status).toBe(404);
      expect(await checkKnowledgeBase(handle.prisma, deps, kbId)).toMatchObject({ ok: true });
      expect(await reindexOutdatedCollections(handle.prisma, deps)).toBe(0);
      expect((await ask("What is the hotel cap per night in Oslo?")).answer.text).toContain("210");

      // Deleting the KB removes the indexes its aliases lead to.
      await deleteKnowledgeBase(handle.prisma, deps, kbId);
      for (const index of after) expect((await call(conn, "HEAD", `/${index}`, undefined, { ignore: [404] })).status).toBe(404);
    } finally {
      await conn.client.close();
    }
  });

  it("refuses to re-index a collection kept on this server", async () => {
    const local = await registerKnowledgeBase(
      handle.prisma,
      deps,
      admin.id,
      { kind: "DOCUMENTS", name: "Local policies", description: "", connection: {} },
      [content("returns-policy.html")],
    );
    await expect(requestReindex(handle.prisma, local.id)).rejects.toThrow(
      /kept on this server, not in OpenSearch: there is nothing to re-index/,
    );
  });
});
