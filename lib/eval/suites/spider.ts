import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { BENCHMARK_NAMES } from "../../catalog/benchmarks";
import { queryOrders } from "../metrics/execution";
import { spiderHardness } from "../metrics/spider-hardness";
import type { EvalQuestion, SuiteDefinition } from "../types";

const devQuestionsSchema = z.array(z.object({ db_id: z.string().min(1), question: z.string().min(1), query: z.string().min(1) }));

export const SPIDER_PREFIX = BENCHMARK_NAMES.spider("");
export const SPIDER_RDF_PREFIX = BENCHMARK_NAMES.spiderRdf("");

/** Spider dev (Yu et al. 2018): question, gold SQL and database, in file order. */
export function readSpiderDev(datasetsDir: string): z.infer<typeof devQuestionsSchema> {
  const file = path.join(datasetsDir, "spider", "dev-questions.json");
  if (!existsSync(file)) throw new Error(`Spider dev questions not found at ${file}. Point DATASETS_DIR at the shared datasets folder.`);
  const parsed = devQuestionsSchema.safeParse(JSON.parse(readFileSync(file, "utf8")));
  if (!parsed.success) throw new Error(`${file} does not look like Spider dev questions: ${parsed.error.issues[0]?.message}`);
  return parsed.data;
}

/**
 * Spider: the gold answer is the result of the gold SQL on the benchmark's own SQLite file; the gold
 * source is the database's KB, chosen among every registered Spider database (the others are distractors).
 * `rdf` gives the sparql-from-spider variant: the same questions over the Direct-Mapping RDF versions,
 * still judged by the gold SQL's result.
 */
export function spiderQuestions(datasetsDir: string, variant: "sql" | "rdf" | "both"): EvalQuestion[] {
  const suite = variant === "rdf" ? "sparql-from-spider" : "spider";
  return readSpiderDev(datasetsDir).map((q, i) => ({
    id: `${suite}:${q.db_id}:${i}`,
    suite,
    question: q.question,
    kind: variant === "rdf" ? "SPARQL" : "SQL",
    goldKbNames: variant === "sql" ? [BENCHMARK_NAMES.spider(q.db_id)] : variant === "rdf" ? [BENCHMARK_NAMES.spiderRdf(q.db_id)] : [BENCHMARK_NAMES.spider(q.db_id), BENCHMARK_NAMES.spiderRdf(q.db_id)],
    gold: { type: "query", language: "sql", text: q.query, target: { type: "sqlite-file", file: path.join(datasetsDir, "spider", "database", q.db_id, `${q.db_id}.sqlite`) } },
    ordered: queryOrders(q.query),
    // Spider's hardness class of the gold SQL (official rules): metrics are broken down by it.
    tags: [`db:${q.db_id}`, `hardness:${spiderHardness(q.query) ?? "unknown"}`],
  }));
}

export function spiderSuite(datasetsDir: string): SuiteDefinition {
  return {
    key: "spider",
    label: "Spider (text-to-SQL)",
    description: "484 Spider dev questions over 10 databases, with all 163 Spider databases registered as distractors. Gold: the gold SQL's result. Metrics: source selection, execution match (on the gold database; per database and hardness), answer accuracy.",
    questions: spiderQuestions(datasetsDir, "sql"),
    scope: (kb) => kb.origin === "benchmark" && kb.kind === "SQL" && kb.name.startsWith(SPIDER_PREFIX),
  };
}

export function sparqlFromSpiderSuite(datasetsDir: string): SuiteDefinition {
  return {
    key: "sparql-from-spider",
    label: "Spider over RDF (SPARQL)",
    description: "The Spider dev questions over the W3C Direct-Mapping RDF versions of their databases. Gold: the gold SQL's result. Metrics: source selection, execution match (on the gold RDF database; per database and hardness), answer accuracy.",
    questions: spiderQuestions(datasetsDir, "rdf"),
    scope: (kb) => kb.origin === "benchmark" && kb.kind === "SPARQL" && kb.name.startsWith(SPIDER_RDF_PREFIX),
  };
}
