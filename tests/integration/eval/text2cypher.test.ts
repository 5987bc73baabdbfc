import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parse } from "csv-parse/sync";
import neo4jDriver from "neo4j-driver";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeAllBackends } from "@/lib/backends/registry";
import { BENCHMARK_NAMES } from "@/lib/ingest/benchmarks/load";
import type { CatalogDeps } from "@/lib/deps";
import { registerKnowledgeBase } from "@/lib/ingest/register";
import { openAndBootstrap } from "@/lib/db/bootstrap";
import type { DatabaseHandle } from "@/lib/db/connect";
import { ensureNeo4jGraphs, prepareSuiteCatalog } from "@/lib/eval/prepare";
import { checkQuestionFileSources, loadQuestionFile } from "@/lib/eval/question-files";
import { executeEvalRun, openReport, planEvalRun } from "@/lib/eval/runner";
import { text2cypherSuite } from "@/lib/eval/suites/text2cypher";
import { type Neo4jServer, datasetsDir, startNeo4j } from "../../support/services/neo4j";
import { createTestDatabase, type TestDatabase } from "../support/test-database";

/** RFC 4180 rows: every field quoted (the dataset's Cypher holds commas and quotes). */
function stringifyCsv(rows: string[][]): string {
  return rows.map((r) => r.map((c) => `"${c.replace(/"/g, '""')}"`).join(",")).join("\n");
}

/**
 * The text2cypher suite on a real Neo4j 5 with the movies and northwind graphs. Under
 * `npm run test:services` (TEST_NEO4J_URI set) this file starts its own throw-away Neo4j from the same
 * harness rather than loading graphs into the shared one, so it never races the other Cypher tests.
 */
describe.skipIf(!process.env.TEST_NEO4J_URI)("text2cypher suite on Neo4j", () => {
  let neo4j: Neo4jServer;
  let db: TestDatabase;
  let handle: DatabaseHandle;
  let deps: CatalogDeps;
  const admin = { id: "", role: "ADMIN" as const, groupIds: [] as string[] };

  beforeAll(async () => {
    neo4j = await startNeo4j();
    db = await createTestDatabase();
    handle = (await openAndBootstrap(db.env)).handle;
    admin.id = (await handle.prisma.user.findUniqueOrThrow({ where: { email: "admin@mosaic.local" } })).id;
    deps = {
      dataDir: mkdtempSync(path.join(tmpdir(), "mosaic-eval-cypher-")),
      encryptionKey: Buffer.alloc(32, 9),
      datasetsDir: datasetsDir(),
    };
    await ensureNeo4jGraphs(neo4j, deps.datasetsDir);
    await registerKnowledgeBase(
      handle.prisma,
      deps,
      admin.id,
      {
        kind: "CYPHER",
        name: BENCHMARK_NAMES.neo4j,
        description: "movies and northwind",
        connection: { uri: neo4j.uri, user: neo4j.user, password: neo4j.password },
      },
      [],
      { origin: "benchmark" },
    );
  }, 300_000);
  afterAll(async () => {
    await closeAllBackends();
    await handle?.close();
    await db?.cleanup();
    await neo4j?.stop();
  });

  it("computes gold from the gold Cypher and scores execution match on Neo4j", async () => {
    const plan = await planEvalRun(handle.prisma, deps, admin, {
      suite: "text2cypher",
      seed: 2,
      limit: 6,
      configInput: {},
      concurrency: 2,
      origin: "cli",
    });
    expect(plan.catalog.kbIds).toHaveLength(1);
    const { reportId } = await openReport(handle.prisma, admin, plan);
    const report = await executeEvalRun(handle.prisma, deps, admin, plan, reportId);
    expect(report.status).toBe("DONE");
    expect(report.n).toBe(6);
    // The dataset marked these as returning results on Neo4j's demo database; here they run on the local graphs.
    expect(report.perQuestion.filter((r) => r.gold.error)).toEqual([]);
    expect(report.perQuestion.every((r) => r.kind === "CYPHER" && r.execution !== null)).toBe(true);
    expect(report.metrics.execution.n).toBe(6);
  });

  it("--questions: a Text2Cypher CSV of the dataset's format runs on the same graphs", async () => {
    const rows = readFileSync(path.join(deps.datasetsDir, "text2cypher", "movies-northwind-dev.csv"), "utf8");
    // The dataset's header and its first rows: some usable, the flagged ones left out with a note.
    const [header, ...data] = parse(rows, { relax_column_count: true }) as string[][];
    const csv = stringifyCsv([header, ...data.slice(0, 12)]);
    const file = path.join(deps.dataDir, "t2c-own.csv");
    writeFileSync(file, csv);
    const loaded = loadQuestionFile("text2cypher", file, deps.datasetsDir);
    await checkQuestionFileSources(handle.prisma, admin, loaded);
    expect(loaded.suite.questions.length).toBeGreaterThan(0);
    const plan = await planEvalRun(
      handle.prisma,
      deps,
      admin,
      { suite: "text2cypher", seed: 1, limit: 4, configInput: {}, concurrency: 2, origin: "cli", questionsFile: loaded.ref },
      loaded.suite,
    );
    const { reportId } = await openReport(handle.prisma, admin, plan);
    const report = await executeEvalRun(handle.prisma, deps, admin, plan, reportId);
    expect(report.status).toBe("DONE");
    expect(report.questionsFile).toEqual(loaded.ref);
    expect(report.perQuestion.filter((r) => r.gold.error)).toEqual([]);
    expect(report.metrics.execution.n).toBe(report.n);
  });

  it("loads each graph once: a second preparation adds nothing", async () => {
    const driver = neo4jDriver.driver(neo4j.uri, neo4jDriver.auth.basic(neo4j.user, neo4j.password));
    const count = async () => {
      const session = driver.session({ defaultAccessMode: neo4jDriver.session.READ });
      try {
        return neo4jDriver.integer.toNumber((await session.run("MATCH (n) RETURN count(n) AS n")).records[0]!.get("n"));
      } finally {
        await session.close();
      }
    };
    try {
      const before = await count();
      expect(before).toBeGreaterThan(1000);
      await ensureNeo4jGraphs(neo4j, deps.datasetsDir);
      expect(await count()).toBe(before);
    } finally {
      await driver.close();
    }
  });

  it("re-points the benchmark KB at the server named by NEO4J_URI when it was registered against another one", async () => {
    const kb = await handle.prisma.knowledgeBase.findUniqueOrThrow({ where: { name: BENCHMARK_NAMES.neo4j } });
    await handle.prisma.knowledgeBase.update({ where: { id: kb.id }, data: { config: { uri: "bolt://127.0.0.1:1", user: "neo4j" } } });
    await prepareSuiteCatalog(handle.prisma, deps, text2cypherSuite(deps.datasetsDir), { neo4j });
    const after = await handle.prisma.knowledgeBase.findUniqueOrThrow({ where: { id: kb.id } });
    expect((after.config as { uri: string }).uri).toBe(neo4j.uri);
    expect(after.status).toBe("HEALTHY");
  });
});
