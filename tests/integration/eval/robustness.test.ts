import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeAllBackends } from "@/lib/backends/registry";
import { BENCHMARK_NAMES } from "@/lib/ingest/benchmarks/load";
import { loadTatQaContexts } from "@/lib/ingest/benchmarks/tatqa";
import type { CatalogDeps } from "@/lib/deps";
import { registerKnowledgeBase } from "@/lib/ingest/register";
import { openAndBootstrap } from "@/lib/db/bootstrap";
import type { DatabaseHandle } from "@/lib/db/connect";
import { loadRobustnessSet, ROBUSTNESS_CLASSES, type RobustnessSet } from "@/lib/eval/robustness/overlay";
import { formatRobustness, robustnessSummary } from "@/lib/eval/robustness/summary";
import { robustnessRun } from "@/lib/eval/robustness/suites";
import { executeEvalRun, openReport, planEvalRun } from "@/lib/eval/runner";
import type { EvalQuestion, SuiteDefinition } from "@/lib/eval/types";
import { createTestDatabase, type TestDatabase } from "../support/test-database";

const DATASETS = path.resolve(process.env.DATASETS_DIR ?? "../shared/datasets");
const SPIDER_DBS = ["concert_singer", "singer"];

/**
 * A few committed rewrites end to end, as `npm run eval -- --robustness` runs them: the dev items and
 * their rewrites through the pipeline and the suite's own scorer on real engines (SQLite for Spider, the
 * documents engine for TAT-QA), then the comparison.
 */
describe.skipIf(!existsSync(path.join(DATASETS, "spider")) || !existsSync(path.join(DATASETS, "tatqa")))("robustness runs", () => {
  let db: TestDatabase;
  let handle: DatabaseHandle;
  let deps: CatalogDeps;
  const admin = { id: "", role: "ADMIN" as const, groupIds: [] as string[] };
  let spider: RobustnessSet;
  let tatqa: RobustnessSet;
  /** One rewrite of each class on the registered databases, and a second synonym. */
  let spiderPicks: EvalQuestion[];
  /** An other-values rewrite (a changed answer) and a paraphrase, on two reports. */
  let tatqaPicks: EvalQuestion[];

  beforeAll(async () => {
    spider = loadRobustnessSet("spider", DATASETS);
    tatqa = loadRobustnessSet("tatqa", DATASETS);
    const onDbs = spider.rewritten.filter((q) => SPIDER_DBS.some((d) => q.tags?.includes(`db:${d}`)));
    spiderPicks = ROBUSTNESS_CLASSES.map((c) => onDbs.find((q) => q.tags?.includes(`class:${c}`))!);
    spiderPicks.push(onDbs.filter((q) => q.tags?.includes("class:synonym"))[1]);
    tatqaPicks = [
      tatqa.rewritten.find((q) => q.tags?.includes("class:other-values") && q.tags?.includes("type:span"))!,
      tatqa.rewritten.find((q) => q.tags?.includes("class:paraphrase") && q.tags?.includes("type:arithmetic"))!,
    ];

    db = await createTestDatabase();
    handle = (await openAndBootstrap(db.env)).handle;
    admin.id = (await handle.prisma.user.findUniqueOrThrow({ where: { email: "admin@mosaic.local" } })).id;
    deps = {
      dataDir: mkdtempSync(path.join(tmpdir(), "mosaic-eval-robustness-")),
      encryptionKey: Buffer.alloc(32, 7),
      datasetsDir: DATASETS,
    };
    for (const name of SPIDER_DBS) {
      await registerKnowledgeBase(
        handle.prisma,
        deps,
        admin.id,
        { kind: "SQL", name: BENCHMARK_NAMES.spider(name), description: `Spider ${name}`, connection: { dialect: "sqlite" } },
        [],
        { origin: "benchmark", sqliteSourcePath: path.join(DATASETS, "spider", "database", name, `${name}.sqlite`) },
      );
    }
    // The benchmark collection, holding only the reports the picked TAT-QA items are about.
    const reports = new Set(tatqaPicks.flatMap((q) => q.evidence?.documentIds ?? []));
    const contexts = (
      JSON.parse(readFileSync(path.join(DATASETS, "tatqa", "tatqa_dataset_dev.json"), "utf8")) as { table: { uid: string } }[]
    ).filter((c) => reports.has(c.table.uid));
    await registerKnowledgeBase(
      handle.prisma,
      deps,
      admin.id,
      { kind: "DOCUMENTS", name: BENCHMARK_NAMES.tatqa, description: "TAT-QA reports", connection: { language: "en" } },
      [],
      { origin: "benchmark", populate: async (ctx) => void (await loadTatQaContexts(ctx, contexts as never, "tatqa")) },
    );
  }, 240_000);

  afterAll(async () => {
    await closeAllBackends();
    await handle?.close();
    await db?.cleanup();
  });

  async function run(set: RobustnessSet, picks: EvalQuestion[]) {
    const runs = robustnessRun(set, DATASETS, { seed: 1, limit: null });
    const wanted = new Set(picks.map((q) => q.id));
    const devIds = new Set(picks.map((q) => set.pairs.get(q.id)));
    const only = (s: SuiteDefinition, keep: (q: EvalQuestion) => boolean): SuiteDefinition => ({
      ...s,
      questions: s.questions.filter(keep),
    });
    const exec = async (suite: SuiteDefinition, ref: { name: string; sha256: string }) => {
      const plan = await planEvalRun(
        handle.prisma,
        deps,
        admin,
        { suite: suite.key, seed: 1, limit: null, configInput: {}, concurrency: 2, origin: "cli", llm: "off", questionsFile: ref },
        suite,
      );
      const { reportId } = await openReport(handle.prisma, admin, plan);
      return { plan, report: await executeEvalRun(handle.prisma, deps, admin, plan, reportId) };
    };
    const dev = await exec(
      only(runs.dev, (q) => devIds.has(q.id)),
      set.devRef,
    );
    const rewritten = await exec(
      only(runs.rewritten, (q) => wanted.has(q.id)),
      set.ref,
    );
    return { dev, rewritten, summary: robustnessSummary(set.suite, set.ref, dev.report.perQuestion, rewritten.report.perQuestion) };
  }

  it("spider: the dev items and their rewrites are scored alike, per class and in pairs", async () => {
    const { dev, rewritten, summary } = await run(spider, spiderPicks);
    expect(dev.report.status).toBe("DONE");
    expect(rewritten.report.status).toBe("DONE");
    expect(rewritten.report.perQuestion.map((r) => r.id).sort()).toEqual(spiderPicks.map((q) => q.id).sort());
    // The two runs keep separate journals, and neither is the built-in suite's.
    expect(dev.plan.journalKey).not.toBe(rewritten.plan.journalKey);
    // Every rewrite was scored: its gold ran on the dataset's SQLite file.
    for (const r of rewritten.report.perQuestion) {
      expect(r.gold.error, r.id).toBeUndefined();
      expect(r.execution, r.id).not.toBeNull();
    }
    // The other-values rewrite is judged against its own gold, not the dev item's.
    const swapped = rewritten.report.perQuestion.find((r) => r.tags.includes("class:other-values"))!;
    const itsDev = dev.report.perQuestion.find((r) => r.id === spider.pairs.get(swapped.id))!;
    expect(swapped.gold.answers).not.toEqual(itsDev.gold.answers);
    // The report breaks the headline down by rewrite class, and the comparison pairs every rewrite.
    expect(Object.keys(rewritten.report.metrics.breakdowns?.class ?? {}).sort()).toEqual([...ROBUSTNESS_CLASSES].sort());
    expect(rewritten.report.metrics.breakdowns?.class.synonym.n).toBe(2);
    const all = summary.rows.find((r) => r.label === "all")!;
    expect(all.n).toBe(spiderPicks.length);
    expect(all.paired.both + all.paired.devOnly + all.paired.rewrittenOnly + all.paired.neither).toBe(all.n);
    expect(summary.devItems.values["execution.match"]).toBe(dev.report.metrics.execution.values.match);
    expect(summary.rewrites.values["execution.match"]).toBe(rewritten.report.metrics.execution.values.match);
    const text = formatRobustness(summary);
    for (const c of ROBUSTNESS_CLASSES) expect(text).toContain(c);
  }, 600_000);

  it("tatqa: a changed answer is scored with TAT-QA's own metric", async () => {
    const { rewritten, summary } = await run(tatqa, tatqaPicks);
    expect(rewritten.report.status).toBe("DONE");
    expect(rewritten.report.metrics.answer.n).toBe(2);
    const swapped = rewritten.report.perQuestion.find((r) => r.tags.includes("class:other-values"))!;
    expect(swapped.gold.answers.join(" ")).toContain(
      ((tatqaPicks[0].gold as { tatqa: { answer: string[] } }).tatqa.answer as string[])[0].replace(/^\$/, ""),
    );
    expect(summary.metrics).toEqual(["answer.em", "answer.f1"]);
    expect(summary.rows.find((r) => r.label === "all")!.n).toBe(2);
  }, 600_000);
});
