import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeAllBackends } from "@/lib/backends/registry";
import { openAndBootstrap } from "@/lib/db/bootstrap";
import type { DatabaseHandle } from "@/lib/db/connect";
import type { CatalogDeps } from "@/lib/deps";
import { evalGuideOwner, readEvalGuidesFile, registerEvalGuides } from "@/lib/eval/guides";
import { loadQuestionFile } from "@/lib/eval/question-files";
import { exportReport } from "@/lib/eval/reports";
import { executeEvalRun, openReport, planEvalRun, type EvalRunParams } from "@/lib/eval/runner";
import { BENCHMARK_NAMES } from "@/lib/ingest/benchmarks/load";
import { registerKnowledgeBase } from "@/lib/ingest/register";
import { createTestDatabase, type TestDatabase } from "../support/test-database";

const DATASETS = path.resolve(process.env.DATASETS_DIR ?? "../shared/datasets");
const spiderFile = (db: string) => path.join(DATASETS, "spider", "database", db, `${db}.sqlite`);

/** npm run eval -- --guides G, as scripts/eval.ts drives it: G's guides are registered, answer, and are removed. */
describe.skipIf(!existsSync(spiderFile("concert_singer")))("evaluation with a guide file (the few-shot protocol)", () => {
  let db: TestDatabase;
  let handle: DatabaseHandle;
  let deps: CatalogDeps;
  const admin = { id: "", role: "ADMIN" as const, groupIds: [] as string[] };
  const dir = mkdtempSync(path.join(tmpdir(), "mosaic-eval-guides-"));
  const write = (name: string, data: unknown) => {
    const p = path.join(dir, name);
    writeFileSync(p, JSON.stringify(data));
    return p;
  };
  const youngest = "What are the names and release years for all the songs of the youngest singer?";
  const youngestSql = "SELECT song_name ,  song_release_year FROM singer ORDER BY age LIMIT 1";

  beforeAll(async () => {
    db = await createTestDatabase();
    handle = (await openAndBootstrap(db.env)).handle;
    admin.id = (await handle.prisma.user.findUniqueOrThrow({ where: { email: "admin@mosaic.local" } })).id;
    deps = {
      dataDir: mkdtempSync(path.join(tmpdir(), "mosaic-eval-guides-data-")),
      encryptionKey: Buffer.alloc(32, 6),
      datasetsDir: DATASETS,
    };
    await registerKnowledgeBase(
      handle.prisma,
      deps,
      admin.id,
      {
        kind: "SQL",
        name: BENCHMARK_NAMES.spider("concert_singer"),
        description: "Spider concert_singer",
        // Open, as benchmark KBs are (lib/ingest/benchmarks/load.ts): the guides belong to an analyst.
        openToEveryone: true,
        connection: { dialect: "sqlite" },
      },
      [],
      { origin: "benchmark", sqliteSourcePath: spiderFile("concert_singer") },
    );
  }, 240_000);
  afterAll(async () => {
    await closeAllBackends();
    await handle.close();
    await db.cleanup();
  });

  const params = (over: Partial<EvalRunParams> = {}): EvalRunParams => ({
    suite: "spider",
    seed: 1,
    limit: null,
    configInput: {},
    concurrency: 1,
    origin: "cli",
    llm: "off",
    ...over,
  });

  it("registers the file's good items as the analyst's guides, names the broken one, answers with the guide, and removes exactly its guides", async () => {
    const guidesPath = write("guides.json", [
      { db_id: "concert_singer", question: youngest, query: youngestSql },
      { db_id: "concert_singer", question: "How many concerts are there?", query: "SELECT count(*) FROM concerts_missing" },
    ]);
    const questions = loadQuestionFile(
      "spider",
      write("questions.json", [{ db_id: "concert_singer", question: youngest, query: youngestSql }]),
      DATASETS,
    );
    // A guide that was there before the run: used by it perhaps, never removed by it.
    const before = await handle.prisma.extractionGuide.create({ data: { question: "An analyst's own guide", createdById: admin.id } });

    const file = readEvalGuidesFile(guidesPath);
    const owner = await evalGuideOwner(handle.prisma, admin);
    expect(owner.email).toBe("analyst@mosaic.local");
    const lines: string[] = [];
    const guides = await registerEvalGuides(handle.prisma, deps, owner, file, {
      onItem: (r) => lines.push(`${r.item} ${r.status} ${r.detail}`),
    });
    expect(guides.ref).toMatchObject({
      name: "guides.json",
      sha256: file.ref.sha256,
      imported: 1,
      skipped: 1,
      items: 2,
      owner: owner.email,
    });
    expect(lines[1]).toMatch(/^2 failed .*no such table: concerts_missing/);
    const registered = await handle.prisma.extractionGuide.findMany({ where: { id: { in: guides.guideIds } } });
    expect(registered.map((g) => [g.question, g.createdById])).toEqual([[youngest, owner.subject.id]]);

    try {
      const plan = await planEvalRun(
        handle.prisma,
        deps,
        admin,
        params({ questionsFile: questions.ref, guidesFile: guides.ref }),
        questions.suite,
      );
      // A run with guides never resumes one without (nor the reverse): the checksum is in the journal key.
      const without = await planEvalRun(handle.prisma, deps, admin, params({ questionsFile: questions.ref }), questions.suite);
      expect(plan.journalKey).not.toBe(without.journalKey);
      const { reportId } = await openReport(handle.prisma, admin, plan);
      const report = await executeEvalRun(handle.prisma, deps, admin, plan, reportId);
      expect(report.status).toBe("DONE");
      const [result] = report.perQuestion;
      expect(result.guide).toEqual({ id: guides.guideIds[0], question: youngest });
      expect(result.execution?.match).toBe(true);
      // The run's own record: the committed answer query is the guide's (strategy "guide").
      const run = await handle.prisma.run.findUniqueOrThrow({ where: { id: result.runId! }, select: { result: true } });
      const committed = (run.result as { queries: { strategy: string; guideId?: string; role?: string; status: string }[] }).queries.find(
        (q) => q.strategy === "guide" && q.role === "answer",
      );
      expect(committed).toMatchObject({ guideId: guides.guideIds[0], status: "ok" });
      // The report (and its export) names the file, its checksum and the counts.
      expect(report.guidesFile).toEqual(guides.ref);
      expect((await exportReport(handle.prisma, admin, reportId)).guidesFile).toEqual(guides.ref);
    } finally {
      expect(await guides.remove()).toBe(1);
    }
    const left = await handle.prisma.extractionGuide.findMany({ select: { id: true } });
    expect(left.map((g) => g.id)).toEqual([before.id]);
    await handle.prisma.extractionGuide.delete({ where: { id: before.id } });
  }, 240_000);

  it("a guide file that is not a list of guides stops before anything is registered", () => {
    const bad = write("bad.json", { question: "x" });
    expect(() => readEvalGuidesFile(bad)).toThrow(/must hold a JSON array of guides/);
    expect(() => readEvalGuidesFile(path.join(dir, "missing.json"))).toThrow(/does not exist/);
  });
});
