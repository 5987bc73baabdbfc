import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeAllBackends } from "@/lib/backends/registry";
import { BENCHMARK_NAMES, loadBenchmarkCatalog } from "@/lib/catalog/benchmarks";
import { listKnowledgeBases } from "@/lib/catalog/knowledge-bases";
import { listSourceObjects } from "@/lib/catalog/source-objects";
import { openAndBootstrap } from "@/lib/db/bootstrap";
import type { DatabaseHandle } from "@/lib/db/connect";
import { createTestDatabase, type TestDatabase } from "../support/test-database";

const DATASETS = path.resolve(process.env.DATASETS_DIR ?? "../shared/datasets");

describe.skipIf(!existsSync(path.join(DATASETS, "spider")))("benchmark catalog loader (partial, real datasets)", () => {
  let db: TestDatabase;
  let handle: DatabaseHandle;
  const admin = { id: "x", role: "ADMIN" as const, groupIds: [] };
  beforeAll(async () => {
    db = await createTestDatabase({ seed: true });
    handle = (await openAndBootstrap(db.env)).handle;
  });
  afterAll(async () => {
    await closeAllBackends();
    await handle.close();
    await db.cleanup();
  });

  it("registers SciFact, TAT-QA, Spider databases and their RDF versions, and is idempotent", async () => {
    const deps = { dataDir: mkdtempSync(path.join(tmpdir(), "mosaic-bench-kbs-")), encryptionKey: Buffer.alloc(32, 1), datasetsDir: DATASETS };
    const opts = { spiderLimit: 1, scifactLimit: 40, tatqaLimit: 4 };
    const first = await loadBenchmarkCatalog(handle.prisma, deps, opts);
    expect(first.failed).toEqual([]);
    // The first Spider database alphabetically is "academic"; it has no dev questions, so no RDF version.
    expect(first.registered).toEqual([BENCHMARK_NAMES.scifact, BENCHMARK_NAMES.tatqa, BENCHMARK_NAMES.spider("academic")]);
    const kbs = await listKnowledgeBases(handle.prisma, admin);
    expect(kbs.every((k) => k.status === "HEALTHY" && k.origin === "benchmark")).toBe(true);
    const scifact = kbs.find((k) => k.name === BENCHMARK_NAMES.scifact)!;
    expect(scifact.stats.documents).toBe(40);
    const tables = await listSourceObjects(handle.prisma, admin, { kbId: kbs.find((k) => k.name === BENCHMARK_NAMES.tatqa)!.id, contentType: "TABLE" });
    expect(tables).toHaveLength(4);
    const again = await loadBenchmarkCatalog(handle.prisma, deps, opts);
    expect(again.registered).toEqual([]);
    expect(again.skipped).toHaveLength(3);
  });

  it("builds Direct-Mapping RDF KBs for the Spider dev databases", async () => {
    const deps = { dataDir: mkdtempSync(path.join(tmpdir(), "mosaic-bench-rdf-")), encryptionKey: Buffer.alloc(32, 1), datasetsDir: DATASETS };
    const all = (await import("node:fs")).readdirSync(path.join(DATASETS, "spider", "database")).sort();
    const report = await loadBenchmarkCatalog(handle.prisma, deps, { spiderLimit: all.indexOf("concert_singer") + 1, scifactLimit: 1, tatqaLimit: 1 });
    expect(report.failed).toEqual([]);
    expect(report.registered).toContain(BENCHMARK_NAMES.spiderRdf("concert_singer"));
    const rdf = (await listKnowledgeBases(handle.prisma, admin, { kind: "SPARQL" })).find((k) => k.name === BENCHMARK_NAMES.spiderRdf("concert_singer"))!;
    const classes = await listSourceObjects(handle.prisma, admin, { kbId: rdf.id });
    expect(classes.map((c) => c.name)).toEqual(expect.arrayContaining(["singer", "concert", "stadium"]));
  }, 120_000);
});
