// npm run guides:split -- --guides-out G.json --asked-out Q [--suite spider|text2cypher] [--dbs a,b,…] [--seed S] [--share 0.5] [--swap]
// The few-shot protocol's split of a dev set (issue 28): per database, a seeded draw of its questions
// becomes guides (G.json, for npm run guides:import or npm run eval -- --guides) and the rest is asked (Q,
// for npm run eval -- --suite <suite> --questions Q). Spider: Q is JSON in Spider's format. Text2Cypher:
// Q is CSV in the dataset's format (its usable rows only), the guides run on the Neo4j benchmark KB.
// The split is by question text: a question that is a guide is never asked (lib/guides/few-shot-split.ts).
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { catalogDeps } from "../lib/deps";
import { fewShotSplit, toCsv } from "../lib/guides/few-shot-split";
import { BENCHMARK_NAMES } from "../lib/ingest/benchmarks/load";
import { readSpiderDev } from "../lib/eval/suites/spider";
import { text2cypherQuestions } from "../lib/eval/suites/text2cypher";
import { runCli } from "./cli";

await runCli(async () => {
  const { values } = parseArgs({
    options: {
      "guides-out": { type: "string" },
      "asked-out": { type: "string" },
      suite: { type: "string", default: "spider" },
      dbs: { type: "string" },
      seed: { type: "string", default: "1" },
      share: { type: "string", default: "0.5" },
      swap: { type: "boolean" },
    },
  });
  if (!values["guides-out"] || !values["asked-out"])
    throw new Error("Say where the two halves go: npm run guides:split -- --guides-out G.json --asked-out Q.json");
  const opts = { seed: Number(values.seed), share: Number(values.share), swap: values.swap };
  const wanted = values.dbs ? new Set(values.dbs.split(",").map((s) => s.trim())) : null;
  const keep = <T>(items: T[], dbOf: (t: T) => string, suite: string) => {
    const kept = wanted ? items.filter((t) => wanted.has(dbOf(t))) : items;
    if (wanted)
      for (const db of wanted) if (!items.some((t) => dbOf(t) === db)) throw new Error(`${suite} dev has no questions on "${db}".`);
    return kept;
  };
  const write = (file: string, text: string) => {
    mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    writeFileSync(path.resolve(file), text);
  };
  const datasetsDir = catalogDeps().datasetsDir;
  let summary: { databases: number; guides: number; asked: number };
  if (values.suite === "spider") {
    const items = keep(readSpiderDev(datasetsDir), (q) => q.db_id, "Spider");
    const { guides, asked, databases } = fewShotSplit(
      items,
      (q) => q.db_id,
      (q) => q.question,
      opts,
    );
    const asJson = (qs: typeof items) =>
      `${JSON.stringify(
        qs.map((q) => ({ db_id: q.db_id, question: q.question, query: q.query })),
        null,
        2,
      )}\n`;
    write(values["guides-out"], asJson(guides));
    write(values["asked-out"], asJson(asked));
    summary = { databases, guides: guides.length, asked: asked.length };
  } else if (values.suite === "text2cypher") {
    const graphOf = (q: { tags?: string[] }) => q.tags?.find((t) => t.startsWith("db:"))?.slice(3) ?? "";
    const items = keep(text2cypherQuestions(datasetsDir), graphOf, "Text2Cypher");
    const cypherOf = (q: (typeof items)[number]) => (q.gold.type === "query" ? q.gold.text : "");
    const { guides, asked, databases } = fewShotSplit(items, graphOf, (q) => q.question, opts);
    write(
      values["guides-out"],
      `${JSON.stringify(
        guides.map((q) => ({ kb: BENCHMARK_NAMES.neo4j, question: q.question, query: cypherOf(q) })),
        null,
        2,
      )}\n`,
    );
    const typeOf = (q: { tags?: string[] }) => q.tags?.find((t) => t.startsWith("type:"))?.slice(5) ?? "";
    write(
      values["asked-out"],
      toCsv(
        ["question", "cypher", "database", "type"],
        asked.map((q) => ({ question: q.question, cypher: cypherOf(q), database: graphOf(q), type: typeOf(q) })),
      ),
    );
    summary = { databases, guides: guides.length, asked: asked.length };
  } else {
    throw new Error(`--suite must be spider or text2cypher, not "${values.suite}".`);
  }
  console.log(
    `${summary.databases} databases: ${summary.guides} guides → ${values["guides-out"]}, ${summary.asked} asked → ${values["asked-out"]} (seed ${opts.seed}${opts.swap ? ", swapped" : ""}).`,
  );
});
