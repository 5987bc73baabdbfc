import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseCsvRecords } from "@/lib/eval/question-file-errors";
import {
  loadRobustnessSet,
  parseRobustnessOverlay,
  readRobustnessDataset,
  type RobustnessDataset,
  type RobustnessSuiteKey,
} from "@/lib/eval/robustness/overlay";
import { allocate, sampleSpider, sampleTatQa, sampleText2Cypher } from "@/lib/eval/robustness/sample";
import { formatRobustness, robustnessSummary } from "@/lib/eval/robustness/summary";
import { robustnessRun } from "@/lib/eval/robustness/suites";
import { checkChangedGold } from "@/lib/eval/robustness/check";
import { result } from "./fixtures";

const sha = (text: string) => createHash("sha256").update(text).digest("hex");

// --- tiny dev splits, in the datasets' own formats -------------------------------------------------

const spiderDev = [
  { db_id: "concert_singer", question: "How many singers do we have?", query: "SELECT count(*) FROM singer" },
  {
    db_id: "concert_singer",
    question: "What are the names of singers from France?",
    query: "SELECT name FROM singer WHERE country = 'France'",
  },
  {
    db_id: "singer",
    question: "What is the name of the singer who is worth the most?",
    query: "SELECT Name FROM singer ORDER BY Net_Worth_Millions DESC LIMIT 1",
  },
];
const spiderText = JSON.stringify(spiderDev);
const spiderDataset = (): RobustnessDataset => ({
  suite: "spider",
  file: "dev-questions.json",
  sha256: sha(spiderText),
  datasetsDir: "/nonexistent",
  items: spiderDev,
});

const tatqaText = JSON.stringify([
  {
    table: {
      uid: "report-1",
      table: [
        ["", "2019", "2018"],
        ["Revenue", "1,496.5", "1,200.0"],
        ["Costs", "500.0", "400.0"],
      ],
    },
    paragraphs: [{ uid: "p1", order: 1, text: "Revenue grew in 2019." }],
    questions: [
      {
        uid: "q1",
        order: 1,
        question: "What was the revenue in 2019?",
        answer: ["1,496.5"],
        derivation: "",
        answer_type: "span",
        answer_from: "table",
        rel_paragraphs: [],
        req_comparison: false,
        scale: "million",
      },
      {
        uid: "q2",
        order: 2,
        question: "What was the change in revenue from 2018 to 2019?",
        answer: 296.5,
        derivation: "1,496.5-1,200.0",
        answer_type: "arithmetic",
        answer_from: "table",
        rel_paragraphs: [],
        req_comparison: false,
        scale: "million",
      },
    ],
  },
]);

const t2cText = [
  "question,cypher,type,database,syntax_error,timeout,returns_results,false_schema",
  '"Which movies were released after 2000?","MATCH (m:Movie) WHERE m.released > 2000 RETURN m.title",Simple Retrieval Queries,movies,False,False,True,',
  '"Which movies have the most votes?","MATCH (m:Movie) RETURN m.title ORDER BY m.votes DESC",Simple Retrieval Queries,movies,False,False,True,',
  '"Broken one","MATCH (m:Movie RETURN m",Simple Retrieval Queries,movies,True,False,False,',
].join("\n");

function dataset(suite: RobustnessSuiteKey): RobustnessDataset {
  if (suite === "spider") return spiderDataset();
  if (suite === "tatqa") {
    const dir = mkdtempSync(path.join(tmpdir(), "mosaic-robustness-tatqa-"));
    mkdirSync(path.join(dir, "tatqa"));
    writeFileSync(path.join(dir, "tatqa", "tatqa_dataset_dev.json"), tatqaText);
    return readRobustnessDataset("tatqa", dir);
  }
  return {
    suite: "text2cypher",
    file: "dev.csv",
    sha256: sha(t2cText),
    records: parseCsvRecords(t2cText, "dev.csv", ["question", "cypher", "database"]),
  };
}

const DATASET_FILES: Record<RobustnessSuiteKey, string> = {
  spider: "spider/dev-questions.json",
  tatqa: "tatqa/tatqa_dataset_dev.json",
  text2cypher: "text2cypher/movies-northwind-dev.csv",
};

function overlay(suite: RobustnessSuiteKey, items: unknown[], over: Record<string, unknown> = {}): string {
  return JSON.stringify({ dataset: DATASET_FILES[suite], datasetSha256: dataset(suite).sha256, seed: 27, items, ...over });
}

const parse = (suite: RobustnessSuiteKey, items: unknown[], over: Record<string, unknown> = {}) =>
  parseRobustnessOverlay(suite, overlay(suite, items, over), "eval/robustness/x.json", dataset(suite));

describe("robustness overlays", () => {
  it("joins rewrites with their dev items: ids, tags, the changed gold, the pairs", () => {
    const set = parse("spider", [
      { dev: 0, class: "synonym", question: "How many vocalists are there?" },
      { dev: 0, class: "paraphrase", question: "What is the number of singers?" },
      {
        dev: 1,
        class: "other-values",
        question: "What are the names of singers from the Netherlands?",
        query: "SELECT name FROM singer WHERE country = 'Netherlands'",
      },
      { dev: 1, class: "synonym", question: "Name the vocalists from France." },
      { dev: 1, class: "synonym", question: "Which performers are French?" },
    ]);
    expect(set.rewritten.map((q) => q.id)).toEqual([
      "spider:concert_singer:0~synonym",
      "spider:concert_singer:0~paraphrase",
      "spider:concert_singer:1~other-values",
      "spider:concert_singer:1~synonym",
      "spider:concert_singer:1~synonym-2",
    ]);
    // The dev items keep the dev suite's ids (so reports compare with full dev runs); item 2 has no rewrite.
    expect(set.dev.map((q) => q.id)).toEqual(["spider:concert_singer:0", "spider:concert_singer:1"]);
    expect(set.dev[1].question).toBe(spiderDev[1].question);
    const swapped = set.rewritten[2];
    expect(swapped.gold).toMatchObject({ type: "query", text: "SELECT name FROM singer WHERE country = 'Netherlands'" });
    expect(swapped.tags).toEqual(["db:concert_singer", "hardness:easy", "class:other-values", "dev:spider:concert_singer:1"]);
    expect(set.rewritten[0].gold).toMatchObject({ text: spiderDev[0].query });
    expect(set.pairs.get("spider:concert_singer:1~synonym-2")).toBe("spider:concert_singer:1");
    expect(set.classCounts).toEqual({ synonym: 3, paraphrase: 1, "no-column-names": 0, "other-values": 1 });
    expect(set.ref.name).toBe("x.json");
    // The dev run has its own question-file checksum, so its journal never resumes the rewrites' report.
    expect(set.devRef.sha256).not.toBe(set.ref.sha256);
  });

  it("names the broken item, its reference and the reason", () => {
    const cases: [unknown, RegExp][] = [
      [
        { dev: 9, class: "synonym", question: "How many vocalists?" },
        /item 1 \(dev 9, synonym\): there is no dev item 9 \(dev-questions.json has 3, numbered from 0\)/,
      ],
      [
        { dev: 0, class: "rewording", question: "How many vocalists?" },
        /item 1 \(dev 0\): "class" must be one of "synonym", "paraphrase", "no-column-names", "other-values"/,
      ],
      [{ dev: 0, class: "synonym" }, /item 1 \(dev 0\): has no "question"/],
      [
        { dev: 0, class: "synonym", question: "How many vocalists?", querry: "SELECT 1" },
        /item 1 \(dev 0\): has a field this overlay does not know: querry/,
      ],
      [
        { dev: 1, class: "other-values", question: "Singers from the Netherlands?" },
        /item 1 \(dev 1, other-values\): an other-values rewrite swaps literal values, so it must carry the changed gold \("query"\)/,
      ],
      [
        { dev: 1, class: "synonym", question: "Vocalists from Chile?", query: "SELECT name FROM singer WHERE country = 'Chile'" },
        /item 1 \(dev 1, synonym\): a synonym rewrite keeps the dev item's meaning, so it must not change the gold/,
      ],
      [
        { dev: 0, class: "paraphrase", question: "how many singers do we have" },
        /item 1 \(dev 0, paraphrase\): the question is worded as in the dev split/,
      ],
      [
        { dev: 0, class: "other-values", question: "Count singers", query: "SELECT count(*) FROM singer" },
        /"query" repeats the dev gold SQL/,
      ],
    ];
    for (const [item, message] of cases) expect(() => parse("spider", [item]), JSON.stringify(item)).toThrow(message);
    expect(() =>
      parse("spider", [
        { dev: 0, class: "synonym", question: "How many vocalists?" },
        { dev: 0, class: "synonym", question: "How many vocalists?" },
      ]),
    ).toThrow(/item 2 \(spider:concert_singer:0, synonym\): the same rewrite of this dev item is listed twice/);
  });

  it("refuses an overlay written for another file, and one that is not an overlay", () => {
    const item = { dev: 0, class: "synonym", question: "How many vocalists?" };
    expect(() => parse("spider", [item], { datasetSha256: "0".repeat(64) })).toThrow(
      /x\.json: it was written against spider\/dev-questions\.json with sha256 0{64}, but dev-questions\.json has sha256 [0-9a-f]{64}/,
    );
    expect(() => parse("spider", [item], { dataset: "spider/train-questions.json" })).toThrow(
      /"dataset" is "spider\/train-questions\.json", but the spider robustness set rewrites spider\/dev-questions\.json/,
    );
    expect(() => parse("spider", [])).toThrow(/"items"/);
    expect(() => parseRobustnessOverlay("spider", '{"dataset": ', "x.json", spiderDataset())).toThrow(/x\.json is not valid JSON/);
  });

  it("TAT-QA: a changed answer is written out whole and matches its answer type", () => {
    const set = parse("tatqa", [
      {
        uid: "q1",
        class: "other-values",
        question: "What was the revenue in 2018?",
        answer: ["1,200.0"],
        answer_type: "span",
        scale: "million",
      },
      {
        uid: "q2",
        class: "other-values",
        question: "What was the change in costs from 2018 to 2019?",
        answer: 100,
        answer_type: "arithmetic",
        scale: "million",
        derivation: "500.0-400.0",
      },
      { uid: "q2", class: "no-column-names", question: "What was the change in revenue from the earlier year to the later one?" },
    ]);
    expect(set.rewritten[0].gold).toEqual({ type: "tatqa", tatqa: { answer: ["1,200.0"], answerType: "span", scale: "million" } });
    expect(set.rewritten[1].gold).toEqual({ type: "tatqa", tatqa: { answer: 100, answerType: "arithmetic", scale: "million" } });
    expect(set.rewritten[2].gold).toEqual({ type: "tatqa", tatqa: { answer: 296.5, answerType: "arithmetic", scale: "million" } });
    expect(set.rewritten[0].evidence).toEqual({ documentIds: ["report-1"], paragraphs: [], table: true });
    const bad: [unknown, RegExp][] = [
      [{ uid: "q9", class: "synonym", question: "Turnover in 2019?" }, /item 1 \(uid q9, synonym\): no question of .* has this uid/],
      [
        { uid: "q1", class: "other-values", question: "What was the revenue in 2018?", answer: ["1,200.0"], answer_type: "span" },
        /item 1 \(uid q1, other-values\): the changed gold needs the answer, its answer type and its scale written out \(missing: scale\)/,
      ],
      [
        { uid: "q2", class: "other-values", question: "Change in costs?", answer: ["100"], answer_type: "arithmetic", scale: "million" },
        /an arithmetic answer is a number, not \["100"\]/,
      ],
      [
        { uid: "q1", class: "other-values", question: "Revenue in both years?", answer: ["1", "2"], answer_type: "span", scale: "" },
        /a span answer is a list of exactly one span/,
      ],
      [
        { uid: "q1", class: "paraphrase", question: "How much revenue in 2019?", answer: ["1,496.5"] },
        /a paraphrase rewrite keeps the dev item's meaning/,
      ],
    ];
    for (const [item, message] of bad) expect(() => parse("tatqa", [item]), JSON.stringify(item)).toThrow(message);
  });

  it("Text2Cypher: rows are the data rows the suite's ids count, and only usable rows can be rewritten", () => {
    const set = parse("text2cypher", [
      {
        row: 0,
        class: "other-values",
        question: "Which movies were released after 1995?",
        cypher: "MATCH (m:Movie) WHERE m.released > 1995 RETURN m.title",
      },
    ]);
    expect(set.rewritten[0]).toMatchObject({
      id: "text2cypher:0~other-values",
      gold: { text: "MATCH (m:Movie) WHERE m.released > 1995 RETURN m.title" },
    });
    expect(set.dev.map((q) => q.id)).toEqual(["text2cypher:0"]);
    expect(() => parse("text2cypher", [{ row: 2, class: "paraphrase", question: "A broken one, reworded" }])).toThrow(
      /item 1 \(row 2, paraphrase\): the dev row is not usable as gold \(the dataset flags its gold Cypher/,
    );
    expect(() => parse("text2cypher", [{ row: 1, class: "synonym", question: "Which films are voted most?" }])).toThrow(
      /needs Movie\.votes/,
    );
    expect(() => parse("text2cypher", [{ row: 7, class: "synonym", question: "Films after 2000?" }])).toThrow(
      /there is no data row 7 \(dev\.csv has 3/,
    );
  });

  it("a limited run draws rewrites with the seed and keeps every pair whole", () => {
    const set = parse("spider", [
      { dev: 0, class: "synonym", question: "How many vocalists are there?" },
      { dev: 1, class: "synonym", question: "Name the vocalists from France." },
      { dev: 2, class: "paraphrase", question: "Who is the richest singer?" },
    ]);
    const run = robustnessRun(set, "/nonexistent", { seed: 3, limit: 2 });
    expect(run.rewritten.questions).toHaveLength(2);
    expect(new Set(run.dev.questions.map((q) => q.id))).toEqual(new Set(run.rewritten.questions.map((q) => set.pairs.get(q.id))));
    expect(run.rewritten.key).toBe("spider");
    expect(run.rewritten.label).toMatch(/robustness: rewritten \(2 of 3, seed 3\)/);
    expect(robustnessRun(set, "/nonexistent", { seed: 3, limit: 2 }).rewritten.questions.map((q) => q.id)).toEqual(
      run.rewritten.questions.map((q) => q.id),
    );
  });

  it("the committed overlays load against the shared datasets", () => {
    const datasets = path.resolve(process.env.DATASETS_DIR ?? "../shared/datasets");
    for (const suite of ["spider", "tatqa", "text2cypher"] as const) {
      let set;
      try {
        set = loadRobustnessSet(suite, datasets);
      } catch (e) {
        if (/is not in /.test((e as Error).message)) continue; // no datasets here: nothing to check
        throw e;
      }
      expect(set.rewritten.length).toBeGreaterThan(100);
      expect(Object.values(set.classCounts).every((n) => n > 0)).toBe(true);
    }
  });
});

describe("robustness comparison", () => {
  const exec = (match: boolean) => ({
    language: "sql",
    kbName: "Spider: x",
    query: "SELECT 1",
    match,
    matchColumns: match,
    anyMatch: match,
    goldRows: 1,
    predictedRows: 1,
  });
  const dev = (id: string, match: boolean) => result({ id, tags: ["db:x"], execution: exec(match) });
  const rw = (id: string, devId: string, cls: string, match: boolean | null, status: "ANSWERED" | "ERROR" = "ANSWERED") =>
    result({ id, status, tags: ["db:x", `class:${cls}`, `dev:${devId}`], execution: match === null ? null : exec(match) });

  it("pairs each rewrite with its dev item, per class and overall", () => {
    const devs = [dev("a", true), dev("b", true), dev("c", false)];
    const rws = [
      rw("a~synonym", "a", "synonym", false),
      rw("a~paraphrase", "a", "paraphrase", true),
      rw("b~synonym", "b", "synonym", true),
      rw("c~synonym", "c", "synonym", true),
      rw("c~other-values", "c", "other-values", false),
      // Not scored (the gold could not be computed, or the evaluation itself failed): left out of the pairs.
      rw("b~no-column-names", "b", "no-column-names", null),
      rw("b~paraphrase", "b", "paraphrase", true, "ERROR"),
    ];
    const s = robustnessSummary("spider", { name: "spider.json", sha256: "f".repeat(64) }, devs, rws);
    expect(s.metrics).toEqual(["execution.match"]);
    expect(s.devItems).toEqual({ n: 3, values: { "execution.match": 2 / 3 } });
    expect(s.unpaired).toBe(2);
    const row = (label: string) => s.rows.find((r) => r.label === label)!;
    expect(s.rows.map((r) => r.label)).toEqual(["synonym", "paraphrase", "other-values", "all"]);
    expect(row("synonym")).toMatchObject({ n: 3, paired: { n: 3, both: 1, devOnly: 1, rewrittenOnly: 1, neither: 0 } });
    expect(row("synonym").dev["execution.match"]).toBeCloseTo(2 / 3);
    expect(row("synonym").rewritten["execution.match"]).toBeCloseTo(2 / 3);
    expect(row("other-values").paired).toEqual({ n: 1, both: 0, devOnly: 0, rewrittenOnly: 0, neither: 1 });
    expect(row("all").paired).toEqual({ n: 5, both: 2, devOnly: 1, rewrittenOnly: 1, neither: 1 });
    expect(row("all").dev["execution.match"]).toBeCloseTo(3 / 5);
    const text = formatRobustness(s);
    expect(text).toMatch(/3 dev items as worded in dev: execution match 66\.7%/);
    expect(text).toMatch(/synonym\s+3\s+66\.7%\s+66\.7%\s+±0\.0 pt\s+1\s+1\s+1\s+0/);
    expect(text).toMatch(/all\s+5\s+60\.0%\s+60\.0%/);
    expect(text).toMatch(/2 rewrites left out of the pairs/);
  });

  it("TAT-QA compares the official EM (and F1)", () => {
    const tq = (id: string, em: number, f1: number, tags: string[] = []) => result({ id, tags, scores: { p1: em === 1, em, f1 } });
    const s = robustnessSummary(
      "tatqa",
      { name: "tatqa.json", sha256: "e".repeat(64) },
      [tq("q1", 1, 1), tq("q2", 0, 0.5)],
      [tq("q1~synonym", 0, 0.4, ["class:synonym", "dev:q1"]), tq("q2~synonym", 1, 1, ["class:synonym", "dev:q2"])],
    );
    expect(s.metrics).toEqual(["answer.em", "answer.f1"]);
    expect(s.rows.at(-1)).toMatchObject({ label: "all", n: 2, paired: { both: 0, devOnly: 1, rewrittenOnly: 1, neither: 0 } });
    expect(s.rows.at(-1)!.rewritten["answer.f1"]).toBeCloseTo(0.7);
  });
});

describe("changed gold check", () => {
  it("reports a changed gold that returns nothing, or only what the dev gold returns", async () => {
    const set = parse("spider", [
      { dev: 1, class: "other-values", question: "Singers from Chile?", query: "SELECT name FROM singer WHERE country = 'Chile'" },
      { dev: 1, class: "other-values", question: "Singers from Peru?", query: "SELECT name FROM singer WHERE country = 'Peru'" },
      {
        dev: 0,
        class: "other-values",
        question: "How many singers are older than 90?",
        query: "SELECT count(*) FROM singer WHERE age > 90",
      },
    ]);
    const rows: Record<string, unknown[][]> = {
      "SELECT name FROM singer WHERE country = 'France'": [["Justin Brown"]],
      "SELECT name FROM singer WHERE country = 'Chile'": [["Justin Brown"]],
      "SELECT name FROM singer WHERE country = 'Peru'": [],
      "SELECT count(*) FROM singer WHERE age > 90": [[0]],
      "SELECT count(*) FROM singer": [[6]],
    };
    const { checked, problems } = await checkChangedGold(set, async (q) => rows[(q.gold as { text: string }).text]);
    expect(checked).toBe(3);
    expect(problems).toEqual([
      {
        id: "spider:concert_singer:1~other-values",
        problem: "same-as-dev",
        detail: "the changed gold returns what the dev item's gold returns",
      },
      { id: "spider:concert_singer:1~other-values-2", problem: "empty", detail: "the changed gold returns no rows" },
      { id: "spider:concert_singer:0~other-values", problem: "empty", detail: "the changed gold returns only zeros or NULLs" },
    ]);
  });
});

describe("robustness sample", () => {
  it("allocates proportionally with a floor per stratum", () => {
    const q = allocate(
      new Map([
        ["a", 100],
        ["b", 10],
        ["c", 2],
      ]),
      20,
      1,
    );
    expect([...q.values()].reduce((x, y) => x + y, 0)).toBe(20);
    expect(q.get("c")).toBeGreaterThanOrEqual(1);
    expect(q.get("a")).toBeGreaterThan(q.get("b")!);
  });

  it("draws the same items for the same seed, from every stratum", () => {
    const items = Array.from({ length: 60 }, (_, index) => ({ index, db: `db${index % 3}`, hardness: index % 2 ? "easy" : "hard" }));
    const a = sampleSpider(items, 5, 12);
    expect(sampleSpider(items, 5, 12)).toEqual(a);
    expect(sampleSpider(items, 6, 12)).not.toEqual(a);
    expect(a).toHaveLength(12);
    expect(new Set(a.map((i) => `${items[i].db}|${items[i].hardness}`)).size).toBe(6);
    // Text2Cypher keeps at least six per stratum (graph × type).
    const rows = Array.from({ length: 40 }, (_, row) => ({
      row,
      db: row % 2 ? "movies" : "northwind",
      type: row < 36 ? "simple" : "verbose",
    }));
    const drawn = sampleText2Cypher(rows, 1, 16);
    expect(drawn).toHaveLength(16);
    expect(drawn.filter((r) => r >= 36)).toHaveLength(4);
  });

  it("TAT-QA: at most one question per report, the quota per answer type", () => {
    const qs = Array.from({ length: 40 }, (_, i) => ({ uid: `q${i}`, report: `r${i % 10}`, answerType: i % 3 ? "span" : "arithmetic" }));
    const picked = sampleTatQa(qs, 2, { span: 4, arithmetic: 3 });
    const byUid = new Map(qs.map((q) => [q.uid, q]));
    expect(picked).toHaveLength(7);
    expect(new Set(picked.map((u) => byUid.get(u)!.report)).size).toBe(7);
    expect(picked.filter((u) => byUid.get(u)!.answerType === "span")).toHaveLength(4);
  });
});
