import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { collectionEmbeddingStatus } from "@/lib/ingest/documents/embedding-queue";
import { collectionIndexes } from "@/lib/backends/documents/opensearch/layout";
import { enqueueMoveToOpenSearch } from "@/lib/ingest/documents/move-to-opensearch";
import { closeAllBackends, kbStorageDir } from "@/lib/backends/registry";
import type { CatalogDeps } from "@/lib/deps";
import { deleteKnowledgeBase, getKnowledgeBase, listKnowledgeBases } from "@/lib/catalog/knowledge-bases";
import { checkKnowledgeBase } from "@/lib/catalog/refresh";
import { refreshKnowledgeBase } from "@/lib/ingest/refresh";
import { testConnection } from "@/lib/catalog/register";
import { registerKnowledgeBase } from "@/lib/ingest/register";
import { collectionDocumentSentences, listCollectionDocuments, listSourceObjects } from "@/lib/catalog/source-objects";
import { decryptSecrets } from "@/lib/crypto/secrets";
import { openAndBootstrap } from "@/lib/db/bootstrap";
import type { DatabaseHandle } from "@/lib/db/connect";
import { drainJobs } from "@/lib/server/job-processor";
import { latestJobsOfKb } from "@/lib/jobs/queue";
import type { RunOutcome } from "@/lib/pipeline/run";
import { runPipeline } from "@/lib/runs/run-pipeline";
import { TARGET_ENGINE, createTestDatabase, type TestDatabase } from "../support/test-database";

/**
 * A document collection registered on the OpenSearch engine, end to end on the real test node
 * (`npm run test:services`): registration with uploads, its password encrypted, health, descriptor
 * and source objects, a question answered from it with cited evidence, a cluster that moved away
 * reported on its health with the cause, and deletion removing its indexes.
 */
const url = process.env.TEST_OPENSEARCH_URL;
const content = (name: string) => ({ name, bytes: readFileSync(path.join("lib/demo/content", name)) });
const NAME = "Aurora policies (OpenSearch)";

describe.skipIf(!url)(`a document collection on OpenSearch (${TARGET_ENGINE})`, () => {
  let db: TestDatabase;
  let handle: DatabaseHandle;
  let deps: CatalogDeps;
  let admin: { id: string; role: "ADMIN"; groupIds: string[] };
  let kbId: string;

  beforeAll(async () => {
    db = await createTestDatabase();
    handle = (await openAndBootstrap(db.env)).handle;
    deps = {
      dataDir: mkdtempSync(path.join(tmpdir(), "mosaic-os-kbs-")),
      encryptionKey: Buffer.alloc(32, 9),
      datasetsDir: "../shared/datasets",
    };
    const a = await handle.prisma.user.findUniqueOrThrow({ where: { email: "admin@mosaic.local" } });
    admin = { id: a.id, role: "ADMIN", groupIds: [] };
  }, 120_000);
  afterAll(async () => {
    await closeAllBackends();
    await handle.close();
    await db.cleanup();
    rmSync(deps.dataDir, { recursive: true, force: true });
  });

  const registration = (connection: Record<string, unknown>) => ({
    kind: "DOCUMENTS" as const,
    name: NAME,
    description: "Policies and the annual report.",
    connection,
  });

  it("tests the cluster connection before anything is saved", async () => {
    const ok = await testConnection(deps, registration({ engine: "opensearch", searchUrl: url }));
    expect(ok).toMatchObject({
      ok: true,
      message: expect.stringMatching(/^Connected to OpenSearch 2\.19\.1 at http:\/\/127\.0\.0\.1:\d+ \(k-NN plugin present/),
    });
    const refused = await testConnection(deps, registration({ engine: "opensearch", searchUrl: "http://127.0.0.1:9" }));
    expect(refused).toMatchObject({ ok: false, message: expect.stringMatching(/refused the connection/) });
  });

  it("registers uploads into OpenSearch: healthy, described, with source objects, the password encrypted", async () => {
    const files = [content("annual-report-2025.md"), content("travel-and-expense-policy.md"), content("returns-policy.html")];
    const result = await registerKnowledgeBase(
      handle.prisma,
      deps,
      admin.id,
      registration({ engine: "opensearch", searchUrl: url, user: "mosaic", password: "cluster-secret-7" }),
      files,
    );
    kbId = result.id;
    expect(result.refresh.status).toBe("HEALTHY");
    expect(result.refresh.message).toMatch(/^3 documents, \d+ passages, \d+ tables; OpenSearch at /);

    const row = await handle.prisma.knowledgeBase.findUniqueOrThrow({ where: { id: kbId } });
    expect(JSON.stringify(row.config)).not.toContain("cluster-secret-7");
    expect(row.secretsCiphertext).not.toContain("cluster-secret-7");
    expect(decryptSecrets(row.secretsCiphertext!, deps.encryptionKey)).toEqual({ password: "cluster-secret-7" });
    expect(row.config).toMatchObject({ engine: "opensearch", opensearch: { url, username: "mosaic" } });

    const listed = (await listKnowledgeBases(handle.prisma, admin)).find((k) => k.id === kbId)!;
    expect(listed.connection).toBe(`Document collection in OpenSearch at ${new URL(url!).origin}`);
    const detail = await getKnowledgeBase(handle.prisma, admin, kbId);
    expect(detail.descriptor).toContain(`Document collection "${NAME}": 3 documents`);
    const objects = await listSourceObjects(handle.prisma, admin, { kbId });
    expect(objects.some((o) => o.contentType === "TEXT")).toBe(true);
    expect(objects.filter((o) => o.contentType === "TABLE").length).toBeGreaterThanOrEqual(2);

    // Its page reads the vectors from the cluster: every passage and row still waits for the embedding job.
    const embedding = await collectionEmbeddingStatus(handle.prisma, deps, { id: kbId, name: NAME });
    expect(embedding.rows).toBeGreaterThan(10);
    expect(embedding).toMatchObject({ embedded: 0, model: "", job: { kind: "documents.embed" } });
  });

  it("lists its documents for the sentence picker and reads a document's sentences from the cluster", async () => {
    const collection = (await listSourceObjects(handle.prisma, admin, { kbId })).find((o) => o.contentType === "TEXT")!;
    const documents = await listCollectionDocuments(handle.prisma, deps, admin, collection.id);
    expect(documents.map((d) => d.title).sort()).toHaveLength(3);
    const report = documents.find((d) => d.id === "annual-report-2025-md")!;
    expect(report.sentences).toBeGreaterThan(3);
    const { sentences, total } = await collectionDocumentSentences(handle.prisma, deps, admin, collection.id, report.id);
    expect(total).toBe(report.sentences);
    expect(sentences[0]).toMatch(/\w/);
  });

  it("answers a question from it and cites the table row", async () => {
    const user = { id: admin.id, role: "ADMIN" as const, groupIds: [] };
    const o: RunOutcome = await runPipeline(handle.prisma, deps, {
      question: "What is the hotel cap per night in Oslo?",
      user,
      kbIds: [kbId],
    });
    expect(o.answer.text).toContain("210");
    const cited = o.evidence.filter((e) => o.answer.citations.includes(e.piece.id));
    expect(cited.some((e) => e.piece.kind === "row" && e.piece.provenance.kbName === NAME)).toBe(true);
  });

  it("reports a cluster that moved away on the collection's health, with the cause, and recovers", async () => {
    const row = await handle.prisma.knowledgeBase.findUniqueOrThrow({ where: { id: kbId } });
    const config = row.config as { opensearch: Record<string, unknown> };
    await handle.prisma.knowledgeBase.update({
      where: { id: kbId },
      data: { config: { ...config, opensearch: { ...config.opensearch, url: "http://127.0.0.1:9" } } },
    });
    expect(await checkKnowledgeBase(handle.prisma, deps, kbId)).toMatchObject({
      ok: false,
      message: expect.stringMatching(/OpenSearch at http:\/\/127\.0\.0\.1:9 refused the connection/),
    });
    expect((await handle.prisma.knowledgeBase.findUniqueOrThrow({ where: { id: kbId } })).status).toBe("UNREACHABLE");
    // A question meanwhile degrades as with any source that is down: no crash, and the run says why.
    const user = { id: admin.id, role: "ADMIN" as const, groupIds: [] };
    const down = await runPipeline(handle.prisma, deps, { question: "What is the hotel cap per night in Oslo?", user, kbIds: [kbId] });
    expect(JSON.stringify(down)).toMatch(/refused the connection/);
    await handle.prisma.knowledgeBase.update({ where: { id: kbId }, data: { config: row.config as object } });
    expect(await checkKnowledgeBase(handle.prisma, deps, kbId)).toMatchObject({ ok: true });
  });

  it("moves a collection from this server to OpenSearch as a job: copied, verified, then switched; answers stay the same", async () => {
    const files = [content("annual-report-2025.md"), content("travel-and-expense-policy.md")];
    const local = await registerKnowledgeBase(handle.prisma, deps, admin.id, { ...registration({}), name: "Policies to move" }, files);
    const before = await getKnowledgeBase(handle.prisma, admin, local.id);
    const job = await enqueueMoveToOpenSearch(handle.prisma, deps, local.id, { url, indexPrefix: "mosaic-moved" });
    expect(job.created).toBe(true);
    await drainJobs({ prisma: handle.prisma, deps }, { exclusive: TARGET_ENGINE === "pglite" });

    const [move] = (await latestJobsOfKb(handle.prisma, local.id)).filter((j) => j.kind === "documents.move-to-opensearch");
    expect(move).toMatchObject({
      status: "SUCCEEDED",
      message: expect.stringMatching(
        /^Policies to move now lives in OpenSearch at http:\/\/127\.0\.0\.1:\d+; its vectors are being computed again there/,
      ),
    });
    const row = await handle.prisma.knowledgeBase.findUniqueOrThrow({ where: { id: local.id } });
    expect(row.config).toMatchObject({ engine: "opensearch", opensearch: { url, indexPrefix: "mosaic-moved" } });
    // The same content: the descriptor (built from every document, table and term) keeps its version.
    expect((await refreshKnowledgeBase(handle.prisma, deps, local.id)).descriptorVersion).toBe(before.descriptorVersion);
    expect((await handle.prisma.knowledgeBase.findUniqueOrThrow({ where: { id: local.id } })).lastCheckMessage).toMatch(/; OpenSearch at /);
    const user = { id: admin.id, role: "ADMIN" as const, groupIds: [] };
    const o = await runPipeline(handle.prisma, deps, { question: "What is the hotel cap per night in Oslo?", user, kbIds: [local.id] });
    expect(o.answer.text).toContain("210");
    // The copy on this server stays until someone removes it.
    expect(existsSync(path.join(kbStorageDir(deps.dataDir, local.id), "collection.sqlite"))).toBe(true);
    // A second move has nothing to do.
    await enqueueMoveToOpenSearch(handle.prisma, deps, local.id, { url });
    await drainJobs({ prisma: handle.prisma, deps }, { exclusive: TARGET_ENGINE === "pglite" });
    const [again] = (await latestJobsOfKb(handle.prisma, local.id)).filter((j) => j.kind === "documents.move-to-opensearch");
    expect(again).toMatchObject({ message: expect.stringMatching(/is already in OpenSearch/) });
  });

  it("deletes its indexes with the knowledge base", async () => {
    const names = collectionIndexes({ indexPrefix: "mosaic" }, kbId);
    const exists = async () => (await fetch(`${url}/${names.unitsAlias}`, { method: "HEAD" })).status;
    expect(await exists()).toBe(200);
    await deleteKnowledgeBase(handle.prisma, deps, kbId);
    expect(await exists()).toBe(404);
  });
});
