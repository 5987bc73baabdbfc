import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parse } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadSciFact } from "@/lib/ingest/benchmarks/scifact";
import { loadTatQa } from "@/lib/ingest/benchmarks/tatqa";
import { closeAllBackends } from "@/lib/backends/registry";
import { storeRdfFiles } from "@/lib/backends/sparql";
import { directMappingFromSqlite } from "@/lib/ingest/benchmarks/direct-mapping";
import { BENCHMARK_NAMES } from "@/lib/ingest/benchmarks/load";
import type { CatalogDeps } from "@/lib/deps";
import { registerKnowledgeBase } from "@/lib/ingest/register";
import { openAndBootstrap } from "@/lib/db/bootstrap";
import type { DatabaseHandle } from "@/lib/db/connect";
import { GoldSqliteFiles } from "@/lib/eval/gold/sqlite-file";
import { executeEvalRun, type EvalRunParams, openReport, planEvalRun } from "@/lib/eval/runner";
import { scifactQuestions } from "@/lib/eval/suites/scifact";
import { spiderQuestions } from "@/lib/eval/suites/spider";
import { tatqaQuestions } from "@/lib/eval/suites/tatqa";
import { text2cypherQuestions } from "@/lib/eval/suites/text2cypher";
import type { SuiteDefinition } from "@/lib/eval/types";
import { createTestDatabase, type TestDatabase } from "../support/test-database";

const DATASETS = path.resolve(process.env.DATASETS_DIR ?? "../shared/datasets");
const spiderFile = (db: string) => path.join(DATASETS, "spider", "database", db, `${db}.sqlite`);

/** The benchmark suites on small real slices of the datasets: gold, loaders and metrics end to end. */
describe.skipIf(!existsSync(path.join(DATASETS, "spider")))("evaluation suites on the benchmark data", () => {
  let db: TestDatabase;
  let handle: DatabaseHandle;
  let deps: CatalogDeps;
  const admin = { id: "", role: "ADMIN" as const, groupIds: [] as string[] };

  beforeAll(async () => {
    db = await createTestDatabase();
    handle = (await openAndBootstrap(db.env)).handle;
    admin.id = (await handle.prisma.user.findUniqueOrThrow({ where: { email: "admin@mosaic.local" } })).id;
    deps = { dataDir: mkdtempSync(path.join(tmpdir(), "mosaic-eval-bench-")), encryptionKey: Buffer.alloc(32, 8), datasetsDir: DATASETS };
    const reg = (input: Parameters<typeof registerKnowledgeBase>[3], opts: Parameters<typeof registerKnowledgeBase>[5]) =>
      registerKnowledgeBase(handle.prisma, deps, admin.id, input, [], { origin: "benchmark", ...opts });
    // Two Spider dev databases and a distractor, the RDF version of one, a slice of TAT-QA and of SciFact.
    for (const name of ["concert_singer", "poker_player", "academic"]) {
      await reg(
        { kind: "SQL", name: BENCHMARK_NAMES.spider(name), description: `Spider database ${name}`, connection: { dialect: "sqlite" } },
        { sqliteSourcePath: spiderFile(name) },
      );
    }
    await reg(
      {
        kind: "SPARQL",
        name: BENCHMARK_NAMES.spiderRdf("concert_singer"),
        description: "RDF version of concert_singer",
        connection: { mode: "embedded" },
      },
      {
        populate: async (ctx) =>
          void (await storeRdfFiles(ctx, [
            {
              name: "c.nt",
              bytes: Buffer.from(directMappingFromSqlite(spiderFile("concert_singer"), "http://mosaic.local/spider/concert_singer/")),
              format: "ntriples",
            },
          ])),
      },
    );
    await reg(
      { kind: "DOCUMENTS", name: BENCHMARK_NAMES.tatqa, description: "TAT-QA reports", connection: { language: "en" } },
      { populate: async (ctx) => void (await loadTatQa(ctx, DATASETS, { limit: 3 })) },
    );
    await reg(
      { kind: "DOCUMENTS", name: BENCHMARK_NAMES.scifact, description: "SciFact abstracts", connection: { language: "en" } },
      { populate: async (ctx) => void (await loadSciFact(ctx, DATASETS, { limit: 300 })) },
    );
  }, 240_000);
  afterAll(async () => {
    await closeAllBackends();
    await handle.close();
    await db.cleanup();
  });

  const params = (suite: string, limit: number | null = 4): EvalRunParams => ({
    suite,
    seed: 1,
    limit,
    configInput: {},
    concurrency: 2,
    origin: "cli",
  });
  async function run(p: EvalRunParams, suite?: SuiteDefinition) {
    const plan = await planEvalRun(handle.prisma, deps, admin, p, suite);
    const { reportId } = await openReport(handle.prisma, admin, plan);
    return { plan, report: await executeEvalRun(handle.prisma, deps, admin, plan, reportId) };
  }

  it("computes Spider gold on the benchmark file, read-only, with SQLite's legacy double-quoted strings", () => {
    const gold = new GoldSqliteFiles();
    try {
      const t = gold.run(spiderFile("concert_singer"), 'SELECT count(*) FROM singer WHERE country = "France"');
      expect(t.rows).toEqual([[4]]);
      expect(() => gold.run(spiderFile("concert_singer"), "DELETE FROM singer")).toThrow(/read-only|readonly/i);
    } finally {
      gold.close();
    }
    const questions = spiderQuestions(DATASETS, "sql");
    expect(questions).toHaveLength(484);
    expect(questions[0]).toMatchObject({
      id: "spider:concert_singer:0",
      kind: "SQL",
      goldKbNames: [BENCHMARK_NAMES.spider("concert_singer")],
      tags: ["db:concert_singer", "hardness:easy"],
    });
    // The official evaluator's classes on these 484 dev questions: easy 110, medium 206, hard 84, extra 84.
    const classes: Record<string, number> = {};
    for (const q of questions) for (const t of q.tags!.filter((x) => x.startsWith("hardness:"))) classes[t] = (classes[t] ?? 0) + 1;
    expect(classes).toEqual({ "hardness:easy": 110, "hardness:medium": 206, "hardness:hard": 84, "hardness:extra": 84 });
  });

  it("spider: only questions whose database is registered run, over the Spider KBs (distractors included)", async () => {
    const { plan, report } = await run(params("spider", 6));
    expect(plan.catalog.kbIds).toHaveLength(3);
    expect(plan.catalog.skipped.length).toBe(484 - plan.catalog.questions.length);
    expect(plan.questions.every((q) => /^spider:(concert_singer|poker_player):/.test(q.id))).toBe(true);
    expect(report.perQuestion.every((r) => !r.gold.error)).toBe(true);
    expect(report.perQuestion.every((r) => r.execution !== null && r.source.inCandidates !== null)).toBe(true);
    expect(report.metrics.execution.n).toBe(6);
    expect(report.metrics.source.n).toBe(6);
  });

  it("spider: an execution match counts only on the gold database (the same rows from another one do not)", async () => {
    const suite = (await import("@/lib/eval/suites/spider")).spiderSuite(DATASETS);
    const ask = (id: string, goldDb: string): SuiteDefinition["questions"][number] => ({
      id,
      suite: "spider",
      question: "How many singers do we have?",
      kind: "SQL",
      goldKbNames: [BENCHMARK_NAMES.spider(goldDb)],
      gold: {
        type: "query",
        language: "sql",
        text: "SELECT count(*) FROM singer",
        target: { type: "sqlite-file", file: spiderFile("concert_singer") },
      },
      tags: [`db:${goldDb}`],
    });
    // The same question and gold rows; in the second the gold names another database, so the answer's database is the wrong one.
    const { report } = await run(params("spider", null), {
      ...suite,
      questions: [ask("t:right", "concert_singer"), ask("t:wrong", "poker_player")],
      order: (qs) => qs,
    });
    const [right, wrong] = ["t:right", "t:wrong"].map((id) => report.perQuestion.find((r) => r.id === id)!.execution!);
    expect(right).toMatchObject({
      kbName: BENCHMARK_NAMES.spider("concert_singer"),
      onGoldKb: true,
      resultMatch: true,
      match: true,
      matchColumns: true,
    });
    expect(wrong).toMatchObject({
      kbName: BENCHMARK_NAMES.spider("concert_singer"),
      onGoldKb: false,
      resultMatch: true,
      match: false,
      matchColumns: false,
      anyMatch: false,
    });
    expect(report.metrics.execution.values).toMatchObject({ match: 0.5, matchAnyKb: 1 });
  });

  it("sparql-from-spider: the same questions over the RDF version, judged by the gold SQL", async () => {
    const { plan, report } = await run(params("sparql-from-spider", 4));
    expect(plan.catalog.kbIds).toHaveLength(1);
    expect(plan.questions.every((q) => q.id.startsWith("sparql-from-spider:concert_singer:"))).toBe(true);
    expect(report.perQuestion.every((r) => r.kind === "SPARQL" && !r.gold.error)).toBe(true);
    // Whatever the pipeline ran, only SPARQL KBs were in scope.
    expect(report.perQuestion.filter((r) => r.execution?.language).every((r) => r.execution!.language === "sparql")).toBe(true);
  });

  it("tatqa: TAT-QA gold with scale, document retrieval and gold evidence recall", async () => {
    const { report } = await run(params("tatqa", null), {
      ...(await import("@/lib/eval/suites/tatqa")).tatqaSuite(DATASETS),
      // The questions about the three reports loaded (the first three contexts of the file).
      questions: (() => {
        const all = tatqaQuestions(DATASETS);
        const first = new Set([...new Set(all.map((q) => q.evidence!.documentIds![0]))].slice(0, 3));
        return all.filter((q) => first.has(q.evidence!.documentIds![0])).slice(0, 8);
      })(),
    });
    const loaded = new Set(report.perQuestion.filter((r) => r.retrieval!.ranks.some((x) => x !== null)).map((r) => r.id));
    expect(report.n).toBe(8);
    expect(report.metrics.retrieval.n).toBe(report.n);
    expect(report.metrics.evidence.n).toBeGreaterThan(0);
    expect(report.metrics.answer.n).toBe(report.n);
    expect(loaded.size).toBeGreaterThan(0);
    // TAT-QA answers are scored with their scale: "emNoScale" is reported beside EM.
    expect(report.metrics.answer.values.emNoScale).not.toBeUndefined();
  });

  it("scifact: BEIR retrieval metrics over the claims whose cited abstracts are loaded", async () => {
    const corpus = parse(readFileSync(path.join(DATASETS, "scifact", "corpus.csv")), { columns: true }) as { doc_id: string }[];
    const loadedDocs = new Set(corpus.slice(0, 300).map((r) => r.doc_id));
    const all = scifactQuestions(DATASETS);
    // BEIR: every training claim is a query (809), relevant = the abstracts it cites.
    expect(all).toHaveLength(809);
    const claims = all.filter((q) => q.evidence!.documentIds!.every((d) => loadedDocs.has(d)));
    expect(claims.length).toBeGreaterThanOrEqual(4);
    const suite = { ...(await import("@/lib/eval/suites/scifact")).scifactSuite(DATASETS), questions: claims.slice(0, 4) };
    const { report } = await run(params("scifact", null), suite);
    expect(report.metrics.retrieval.n).toBe(report.n);
    for (const k of ["hit@1", "mrr@10", "ndcg@10", "recall@100"]) expect(report.metrics.retrieval.values[k]).toBeGreaterThanOrEqual(0);
    // No answer gold for claims: answer accuracy does not apply.
    expect(report.metrics.answer.n).toBe(0);
    expect(report.perQuestion.every((r) => r.retrieval!.top.length > 0)).toBe(true);
    // Every ranking stage is measured on the same claims, first-stage retrieval first and the answer's evidence last.
    const stages = report.metrics.retrievalStages!;
    expect(stages[0]).toMatchObject({ label: "retrieval", n: 4, delta: { "ndcg@10": null } });
    expect(stages.map((s) => s.label)).toEqual(["retrieval", "pool", "rerank:1:bm25-entity", "rerank:2:combined", "evidence"]);
    expect(stages.slice(1).every((s) => typeof s.delta["ndcg@10"] === "number")).toBe(true);
    // The final ranking the headline reads is the last re-rank round's cascade.
    expect(stages[3].values["ndcg@10"]).toBeCloseTo(report.metrics.retrieval.values["ndcg@10"]!, 12);
    // What the collection was searched with is kept (to repeat the first stage elsewhere).
    expect(report.perQuestion.every((r) => r.retrieval!.queries!.length > 0)).toBe(true);
  });

  it("text2cypher: keeps only usable gold Cypher and drops questions needing Movie.votes", () => {
    const questions = text2cypherQuestions(DATASETS);
    expect(questions.length).toBe(594 - 30);
    expect(questions.some((q) => q.gold.type === "query" && /\.votes\b/.test(q.gold.text))).toBe(false);
    expect(new Set(questions.map((q) => q.tags![0]))).toEqual(new Set(["db:movies", "db:northwind"]));
  });
});
