import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeAllBackends } from "@/lib/backends/registry";
import { loadBenchmarks } from "@/lib/ingest/benchmarks/load.handler";
import { benchmarkLoadStatus, cancelBenchmarkLoad, startBenchmarkLoad } from "@/lib/ingest/benchmarks/load-job";
import { BENCHMARK_NAMES, loadBenchmarkCatalog } from "@/lib/ingest/benchmarks/load";
import type { CatalogDeps } from "@/lib/deps";
import { listKnowledgeBases } from "@/lib/catalog/knowledge-bases";
import { listSourceObjects } from "@/lib/catalog/source-objects";
import { openAndBootstrap } from "@/lib/db/bootstrap";
import type { DatabaseHandle } from "@/lib/db/connect";
import { resetEnvCache } from "@/lib/env";
import { type JobContext, type JobDefinition, JobLostError, type ProgressUpdate } from "@/lib/jobs/define";
import { loadBenchmarksJob } from "@/lib/server/job-handlers";
import { JobProcessor } from "@/lib/server/job-processor";
import { smallDatasets } from "../../support/small-datasets";
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
    const deps = {
      dataDir: mkdtempSync(path.join(tmpdir(), "mosaic-bench-kbs-")),
      encryptionKey: Buffer.alloc(32, 1),
      datasetsDir: DATASETS,
    };
    const opts = { spiderLimit: 1, scifactLimit: 40, tatqaLimit: 4 };
    const first = await loadBenchmarkCatalog(handle.prisma, deps, opts);
    expect(first.failed).toEqual([]);
    // The first Spider database alphabetically is "academic"; it has no dev questions, so no RDF version.
    expect(first.registered).toEqual([BENCHMARK_NAMES.scifact, BENCHMARK_NAMES.tatqa, BENCHMARK_NAMES.spider("academic")]);
    const kbs = await listKnowledgeBases(handle.prisma, admin);
    expect(kbs.every((k) => k.status === "HEALTHY" && k.origin === "benchmark")).toBe(true);
    const scifact = kbs.find((k) => k.name === BENCHMARK_NAMES.scifact)!;
    expect(scifact.stats.documents).toBe(40);
    const tables = await listSourceObjects(handle.prisma, admin, {
      kbId: kbs.find((k) => k.name === BENCHMARK_NAMES.tatqa)!.id,
      contentType: "TABLE",
    });
    expect(tables).toHaveLength(4);
    const again = await loadBenchmarkCatalog(handle.prisma, deps, opts);
    expect(again.registered).toEqual([]);
    expect(again.skipped).toHaveLength(3);
  });

  it("builds Direct-Mapping RDF KBs for the Spider dev databases", async () => {
    const deps = {
      dataDir: mkdtempSync(path.join(tmpdir(), "mosaic-bench-rdf-")),
      encryptionKey: Buffer.alloc(32, 1),
      datasetsDir: DATASETS,
    };
    const all = (await import("node:fs")).readdirSync(path.join(DATASETS, "spider", "database")).sort();
    const report = await loadBenchmarkCatalog(handle.prisma, deps, {
      spiderLimit: all.indexOf("concert_singer") + 1,
      scifactLimit: 1,
      tatqaLimit: 1,
    });
    expect(report.failed).toEqual([]);
    expect(report.registered).toContain(BENCHMARK_NAMES.spiderRdf("concert_singer"));
    const rdf = (await listKnowledgeBases(handle.prisma, admin, { kind: "SPARQL" })).find(
      (k) => k.name === BENCHMARK_NAMES.spiderRdf("concert_singer"),
    )!;
    const classes = await listSourceObjects(handle.prisma, admin, { kbId: rdf.id });
    expect(classes.map((c) => c.name)).toEqual(expect.arrayContaining(["singer", "concert", "stadium"]));
  }, 120_000);
});

describe.skipIf(!existsSync(path.join(DATASETS, "spider")))(
  "benchmark catalog load as a background job (small copy of the datasets)",
  () => {
    let db: TestDatabase;
    let handle: DatabaseHandle;
    let datasets: string;
    let deps: CatalogDeps;
    beforeAll(async () => {
      db = await createTestDatabase({ seed: true });
      handle = (await openAndBootstrap(db.env)).handle;
      datasets = smallDatasets();
      deps = { dataDir: mkdtempSync(path.join(tmpdir(), "mosaic-bench-job-")), encryptionKey: Buffer.alloc(32, 1), datasetsDir: datasets };
      // The handler reads Neo4j's address from the environment: none here, so the graphs are not part of the load.
      process.env.NEO4J_URI = "";
      resetEnvCache();
    });
    afterAll(async () => {
      await closeAllBackends();
      await handle.close();
      await db.cleanup();
      rmSync(datasets, { recursive: true, force: true });
      resetEnvCache();
    });

    /** A job context as the processor gives one; `lostAfter` progress reports, the job is cancelled (JobLostError). */
    function context(lostAfter = Infinity): { ctx: JobContext<Record<string, never>>; reports: ProgressUpdate[] } {
      const reports: ProgressUpdate[] = [];
      const ctx: JobContext<Record<string, never>> = {
        jobId: "job-test",
        payload: {},
        attempt: 1,
        signal: new AbortController().signal,
        services: { prisma: handle.prisma, deps },
        progress: async (u) => {
          if (reports.length >= lostAfter) throw new JobLostError();
          reports.push(u);
        },
      };
      return { ctx, reports };
    }

    it("stops between knowledge bases when cancelled, and a new load registers the rest, skipping what the first one did", async () => {
      const cancelled = context(2);
      await expect(loadBenchmarks(cancelled.ctx)).rejects.toBeInstanceOf(JobLostError);
      expect(cancelled.reports).toEqual([
        { done: 0, total: 5, message: `Loading ${BENCHMARK_NAMES.scifact} (1 of 5 knowledge bases).` },
        { done: 1, total: 5, message: `Loading ${BENCHMARK_NAMES.tatqa} (2 of 5 knowledge bases).` },
      ]);
      const names = async () =>
        (await handle.prisma.knowledgeBase.findMany({ where: { origin: "benchmark" }, select: { name: true } })).map((k) => k.name).sort();
      expect(await names()).toEqual([BENCHMARK_NAMES.scifact, BENCHMARK_NAMES.tatqa]);

      const resumed = context();
      expect(await loadBenchmarks(resumed.ctx)).toEqual({ message: "Benchmark catalog loaded: 3 knowledge bases added, 2 already there." });
      expect(resumed.reports.at(-1)).toEqual({ done: 5, total: 5, message: "5 knowledge bases handled." });
      expect(await names()).toHaveLength(5);
    }, 180_000);

    it("runs on the job queue: one load at a time, its progress and outcome read from the job, nothing to cancel once done", async () => {
      const job = await startBenchmarkLoad(handle.prisma, deps);
      expect(job).toMatchObject({ kind: "catalog.load-benchmarks", status: "QUEUED" });
      await expect(startBenchmarkLoad(handle.prisma, deps)).rejects.toMatchObject({ code: "CONFLICT" });
      await new JobProcessor({
        services: { prisma: handle.prisma, deps },
        definitions: new Map([[loadBenchmarksJob.id, loadBenchmarksJob as unknown as JobDefinition]]),
      }).drain({ maxWaitMs: 0 });
      expect(await benchmarkLoadStatus(handle.prisma)).toMatchObject({
        id: job.id,
        status: "SUCCEEDED",
        progressDone: 5,
        progressTotal: 5,
        message: "Benchmark catalog loaded: 0 knowledge bases added, 5 already there.",
      });
      await expect(cancelBenchmarkLoad(handle.prisma)).rejects.toMatchObject({ code: "CONFLICT" });
      await expect(startBenchmarkLoad(handle.prisma, { ...deps, datasetsDir: "/nonexistent/datasets" })).rejects.toThrow(
        /The datasets folder was not found at \/nonexistent\/datasets\. Set DATASETS_DIR/,
      );
    }, 180_000);
  },
);
