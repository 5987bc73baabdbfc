import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { BENCHMARK_NAMES } from "../../ingest/benchmarks/load";
import { queryOrders } from "../metrics/execution";
import { spiderHardness } from "../metrics/spider-hardness";
import { parseItems, parseJsonText } from "../question-file-errors";
import type { EvalQuestion, GoldTarget, SuiteDefinition } from "../types";

const spiderItemSchema = z.object({ db_id: z.string().trim().min(1), question: z.string().trim().min(1), query: z.string().trim().min(1) });
export type SpiderItem = z.infer<typeof spiderItemSchema>;

export const SPIDER_PREFIX = BENCHMARK_NAMES.spider("");
export const SPIDER_RDF_PREFIX = BENCHMARK_NAMES.spiderRdf("");
export const SPIDER_DEV = "spider/dev-questions.json";

/** Questions in Spider's JSON format: an array of {db_id, question, query} (other fields ignored). */
export function parseSpiderItems(text: string, file: string): SpiderItem[] {
  return parseItems(parseJsonText(text, file), spiderItemSchema, file, "Spider questions ({db_id, question, query})", (raw, i) => {
    const q = (raw as { question?: unknown })?.question;
    return `item ${i + 1}${typeof q === "string" && q.trim() ? ` ("${q.trim().slice(0, 60)}")` : ""}`;
  });
}

/** Spider dev (Yu et al. 2018): question, gold SQL and database, in file order. */
export function readSpiderDev(datasetsDir: string): SpiderItem[] {
  const file = path.join(datasetsDir, SPIDER_DEV);
  if (!existsSync(file)) throw new Error(`Spider dev questions not found at ${file}. Point DATASETS_DIR at the shared datasets folder.`);
  return parseSpiderItems(readFileSync(file, "utf8"), file);
}

/** The gold SQL runs on the benchmark's own SQLite file when the dataset has it, else on the registered Spider KB. */
function goldTarget(datasetsDir: string, db: string): GoldTarget {
  const file = path.join(datasetsDir, "spider", "database", db, `${db}.sqlite`);
  return existsSync(file) ? { type: "sqlite-file", file } : { type: "kb", kbName: BENCHMARK_NAMES.spider(db) };
}

/**
 * Spider: the gold answer is the result of the gold SQL on the benchmark's own SQLite file; the gold
 * source is the database's KB, chosen among every registered Spider database (the others are distractors).
 * `rdf` gives the sparql-from-spider variant: the same questions over the Direct-Mapping RDF versions,
 * still judged by the gold SQL's result.
 */
export function spiderQuestions(
  datasetsDir: string,
  variant: "sql" | "rdf" | "both",
  items: SpiderItem[] = readSpiderDev(datasetsDir),
): EvalQuestion[] {
  const suite = variant === "rdf" ? "sparql-from-spider" : "spider";
  const targets = new Map<string, GoldTarget>();
  const targetOf = (db: string) => {
    let target = targets.get(db);
    if (!target) targets.set(db, (target = goldTarget(datasetsDir, db)));
    return target;
  };
  return items.map((q, i) => ({
    id: `${suite}:${q.db_id}:${i}`,
    suite,
    question: q.question,
    kind: variant === "rdf" ? "SPARQL" : "SQL",
    goldKbNames:
      variant === "sql"
        ? [BENCHMARK_NAMES.spider(q.db_id)]
        : variant === "rdf"
          ? [BENCHMARK_NAMES.spiderRdf(q.db_id)]
          : [BENCHMARK_NAMES.spider(q.db_id), BENCHMARK_NAMES.spiderRdf(q.db_id)],
    gold: { type: "query", language: "sql", text: q.query, target: targetOf(q.db_id) },
    ordered: queryOrders(q.query),
    // Spider's hardness class of the gold SQL (official rules): metrics are broken down by it.
    tags: [`db:${q.db_id}`, `hardness:${spiderHardness(q.query) ?? "unknown"}`],
  }));
}

export function spiderSuite(datasetsDir: string, questions = spiderQuestions(datasetsDir, "sql")): SuiteDefinition {
  return {
    key: "spider",
    label: "Spider (text-to-SQL)",
    description:
      "484 Spider dev questions over 10 databases, with all 163 Spider databases registered as distractors. Gold: the gold SQL's result. Metrics: source selection, execution match (on the gold database; per database and hardness), answer accuracy.",
    questions,
    scope: (kb) => kb.origin === "benchmark" && kb.kind === "SQL" && kb.name.startsWith(SPIDER_PREFIX),
  };
}

export function sparqlFromSpiderSuite(datasetsDir: string, questions = spiderQuestions(datasetsDir, "rdf")): SuiteDefinition {
  return {
    key: "sparql-from-spider",
    label: "Spider over RDF (SPARQL)",
    description:
      "The Spider dev questions over the W3C Direct-Mapping RDF versions of their databases. Gold: the gold SQL's result. Metrics: source selection, execution match (on the gold RDF database; per database and hardness), answer accuracy.",
    questions,
    scope: (kb) => kb.origin === "benchmark" && kb.kind === "SPARQL" && kb.name.startsWith(SPIDER_RDF_PREFIX),
  };
}
