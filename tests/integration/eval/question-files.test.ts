import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parse } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadSciFact } from "@/lib/ingest/benchmarks/scifact";
import { closeAllBackends, kbStorageDir } from "@/lib/backends/registry";
import { BENCHMARK_NAMES } from "@/lib/ingest/benchmarks/load";
import type { CatalogDeps } from "@/lib/deps";
import { registerKnowledgeBase } from "@/lib/ingest/register";
import { openAndBootstrap } from "@/lib/db/bootstrap";
import type { DatabaseHandle } from "@/lib/db/connect";
import { checkQuestionFileSources, loadQuestionFile, registerQuestionCollection } from "@/lib/eval/question-files";
import { exportReport } from "@/lib/eval/reports";
import { executeEvalRun, type EvalRunParams, openReport, planEvalRun } from "@/lib/eval/runner";
import type { SuiteDefinition } from "@/lib/eval/types";
import { createTestDatabase, type TestDatabase } from "../support/test-database";

const DATASETS = path.resolve(process.env.DATASETS_DIR ?? "../shared/datasets");
const spiderFile = (db: string) => path.join(DATASETS, "spider", "database", db, `${db}.sqlite`);

/** --questions end to end on real engines: a held-out Spider file, a TAT-QA file with its own contexts, a SciFact claims file. */
describe.skipIf(!existsSync(path.join(DATASETS, "spider")))("evaluation on question files", () => {
  let db: TestDatabase;
  let handle: DatabaseHandle;
  let deps: CatalogDeps;
  const admin = { id: "", role: "ADMIN" as const, groupIds: [] as string[] };
  const dir = mkdtempSync(path.join(tmpdir(), "mosaic-eval-files-"));
  const write = (name: string, text: string) => {
    const p = path.join(dir, name);
    writeFileSync(p, text);
    return p;
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    handle = (await openAndBootstrap(db.env)).handle;
    admin.id = (await handle.prisma.user.findUniqueOrThrow({ where: { email: "admin@mosaic.local" } })).id;
    deps = {
      dataDir: mkdtempSync(path.join(tmpdir(), "mosaic-eval-files-data-")),
      encryptionKey: Buffer.alloc(32, 5),
      datasetsDir: DATASETS,
    };
    // A dev database and a training one (perpetrator: no dev question uses it), and part of SciFact.
    for (const name of ["concert_singer", "perpetrator"]) {
      await registerKnowledgeBase(
        handle.prisma,
        deps,
        admin.id,
        { kind: "SQL", name: BENCHMARK_NAMES.spider(name), description: `Spider ${name}`, connection: { dialect: "sqlite" } },
        [],
        {
          origin: "benchmark",
          sqliteSourcePath: spiderFile(name),
        },
      );
    }
    await registerKnowledgeBase(
      handle.prisma,
      deps,
      admin.id,
      { kind: "DOCUMENTS", name: BENCHMARK_NAMES.scifact, description: "SciFact", connection: { language: "en" } },
      [],
      {
        origin: "benchmark",
        populate: async (ctx) => void (await loadSciFact(ctx, DATASETS, { limit: 300 })),
      },
    );
  }, 240_000);
  afterAll(async () => {
    await closeAllBackends();
    await handle.close();
    await db.cleanup();
  });

  const params = (suite: string, over: Partial<EvalRunParams> = {}): EvalRunParams => ({
    suite,
    seed: 1,
    limit: null,
    configInput: {},
    concurrency: 2,
    origin: "cli",
    ...over,
  });
  async function run(p: EvalRunParams, suite: SuiteDefinition) {
    const plan = await planEvalRun(handle.prisma, deps, admin, p, suite);
    const { reportId } = await openReport(handle.prisma, admin, plan);
    return { plan, report: await executeEvalRun(handle.prisma, deps, admin, plan, reportId) };
  }

  it("spider: a held-out file over a training database is scored with the suite's own metrics, and the report names the file", async () => {
    const file = write(
      "spider-held-out.json",
      JSON.stringify([
        { db_id: "perpetrator", question: "How many perpetrators are there?", query: "SELECT count(*) FROM perpetrator" },
        { db_id: "concert_singer", question: "How many singers do we have?", query: "SELECT count(*) FROM singer" },
      ]),
    );
    const loaded = loadQuestionFile("spider", file, DATASETS);
    await checkQuestionFileSources(handle.prisma, admin, loaded);
    const { plan, report } = await run(params("spider", { questionsFile: loaded.ref }), loaded.suite);
    expect(report.status).toBe("DONE");
    expect(report.questionsFile).toEqual(loaded.ref);
    expect(report.config.questions).toEqual(loaded.ref);
    expect(report.perQuestion.map((r) => [r.id, r.gold.answers, r.gold.error])).toEqual(
      expect.arrayContaining([
        ["spider:perpetrator:0", ["5"], undefined],
        ["spider:concert_singer:1", ["6"], undefined],
      ]),
    );
    expect(report.metrics.execution.n).toBe(2);
    // The journal keys on the file: the built-in suite with the same seed and config is another report.
    const builtin = await planEvalRun(handle.prisma, deps, admin, params("spider"));
    expect(plan.journalKey).not.toBe(builtin.journalKey);
    // The export (the dashboard's download) carries the file too.
    expect((await exportReport(handle.prisma, admin, report.reportId)).questionsFile).toEqual(loaded.ref);
  });

  it("spider: a file naming a database that is not registered stops before anything runs, naming the item", async () => {
    const loaded = loadQuestionFile(
      "spider",
      write(
        "spider-unknown.json",
        JSON.stringify([
          { db_id: "concert_singer", question: "How many singers?", query: "SELECT count(*) FROM singer" },
          { db_id: "world_1", question: "How many countries?", query: "SELECT count(*) FROM country" },
        ]),
      ),
      DATASETS,
    );
    await expect(checkQuestionFileSources(handle.prisma, admin, loaded)).rejects.toThrow(
      'spider-unknown.json, item 2: the database "world_1" is not registered (there is no knowledge base "Spider: world_1" you may use). Registered: concert_singer, perpetrator.',
    );
  });

  it("tatqa: the file's contexts are a throw-away collection for the run, removed afterwards", async () => {
    const contexts = (JSON.parse(readFileSync(path.join(DATASETS, "tatqa", "tatqa_dataset_dev.json"), "utf8")) as unknown[]).slice(0, 2);
    const loaded = loadQuestionFile("tatqa", write("tatqa-slice.json", JSON.stringify(contexts)), DATASETS);
    const lines: string[] = [];
    const temp = await registerQuestionCollection(handle.prisma, deps, admin, loaded, (l) => lines.push(l));
    const kb = await handle.prisma.knowledgeBase.findUniqueOrThrow({ where: { name: temp.kbName } });
    try {
      const { plan, report } = await run(params("tatqa", { limit: 6, questionsFile: loaded.ref }), loaded.suite);
      // Only the temporary collection is in scope, and the gold documents are found in it.
      expect(plan.catalog.kbIds).toEqual([kb.id]);
      expect(report.n).toBe(6);
      expect(report.metrics.retrieval.n).toBe(6);
      expect(report.metrics.retrieval.values["recall@100"]).toBe(1);
      expect(report.metrics.answer.n).toBe(6);
    } finally {
      await temp.remove();
    }
    expect(await handle.prisma.knowledgeBase.findUnique({ where: { name: temp.kbName } })).toBeNull();
    expect(existsSync(kbStorageDir(deps.dataDir, kb.id))).toBe(false);

    // A collection a killed run left behind (same file, same name) is replaced, not an error.
    const first = await registerQuestionCollection(handle.prisma, deps, admin, loaded);
    const second = await registerQuestionCollection(handle.prisma, deps, admin, loaded, (l) => lines.push(l));
    expect(lines.at(-2)).toContain("removed the temporary collection");
    expect(await handle.prisma.knowledgeBase.count({ where: { name: first.kbName } })).toBe(1);
    await second.remove();
    expect(await handle.prisma.knowledgeBase.count({ where: { name: first.kbName } })).toBe(0);
  });

  it("scifact: a claims file over the registered abstracts gets BEIR metrics per stage", async () => {
    const corpus = new Set(
      (parse(readFileSync(path.join(DATASETS, "scifact", "corpus.csv")), { columns: true }) as { doc_id: string }[])
        .slice(0, 300)
        .map((r) => r.doc_id),
    );
    const claims = (
      parse(readFileSync(path.join(DATASETS, "scifact", "claims_train.csv")), { columns: true }) as {
        id: string;
        claim: string;
        cited_doc_ids: string;
      }[]
    ).filter((c) => (c.cited_doc_ids.match(/\d+/g) ?? []).every((d) => corpus.has(d)));
    const rows = [...new Map(claims.map((c) => [c.id, c])).values()].slice(0, 3);
    const csv = ["id,claim,cited_doc_ids", ...rows.map((c) => `${c.id},"${c.claim.replace(/"/g, '""')}",${c.cited_doc_ids}`)].join("\n");
    const loaded = loadQuestionFile("scifact", write("claims-slice.csv", csv), DATASETS);
    await checkQuestionFileSources(handle.prisma, admin, loaded);
    const { report } = await run(params("scifact", { questionsFile: loaded.ref }), loaded.suite);
    expect(report.n).toBe(3);
    expect(report.metrics.retrieval.n).toBe(3);
    expect(report.metrics.retrievalStages?.[0].label).toBe("retrieval");
    expect(report.questionsFile?.name).toBe("claims-slice.csv");
  });
});
