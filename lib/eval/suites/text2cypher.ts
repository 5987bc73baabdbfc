import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { parse } from "csv-parse/sync";
import { BENCHMARK_NAMES } from "../../catalog/benchmarks";
import { queryOrders } from "../metrics/execution";
import type { EvalQuestion, SuiteDefinition } from "../types";

interface Text2CypherRow {
  question: string;
  cypher: string;
  type: string;
  database: string;
  syntax_error: string;
  timeout: string;
  returns_results: string;
  false_schema: string;
}

/** Neo4j's demo movies database has Movie.votes; movies.cypher does not, so those questions cannot be answered here. */
const MISSING_PROPERTY = /\.votes\b/;

/**
 * Neo4j Text2Cypher (2024) movies and northwind questions whose gold Cypher is usable (no syntax error,
 * no timeout, returns results, no false schema; none that needs Movie.votes). Gold = what the gold
 * Cypher returns on the Neo4j KB holding both graphs. Ids are the row numbers of the CSV.
 */
export function text2cypherQuestions(datasetsDir: string): EvalQuestion[] {
  const file = path.join(datasetsDir, "text2cypher", "movies-northwind-dev.csv");
  if (!existsSync(file)) throw new Error(`Text2Cypher questions not found at ${file}. Point DATASETS_DIR at the shared datasets folder.`);
  const rows = parse(readFileSync(file), { columns: true, skip_empty_lines: true }) as Text2CypherRow[];
  const out: EvalQuestion[] = [];
  rows.forEach((r, i) => {
    const usable = r.syntax_error === "False" && r.timeout === "False" && r.returns_results === "True" && !r.false_schema?.trim();
    if (!usable || MISSING_PROPERTY.test(r.cypher) || !["movies", "northwind"].includes(r.database)) return;
    out.push({
      id: `text2cypher:${i}`,
      suite: "text2cypher",
      question: r.question,
      kind: "CYPHER",
      goldKbNames: [BENCHMARK_NAMES.neo4j],
      gold: { type: "query", language: "cypher", text: r.cypher, target: { type: "kb", kbName: BENCHMARK_NAMES.neo4j } },
      ordered: queryOrders(r.cypher),
      tags: [`db:${r.database}`, `type:${r.type}`],
    });
  });
  return out;
}

export function text2cypherSuite(datasetsDir: string): SuiteDefinition {
  const questions = text2cypherQuestions(datasetsDir);
  return {
    key: "text2cypher",
    label: "Text2Cypher (Neo4j)",
    description: `${questions.length} Text2Cypher questions on the Neo4j movies and northwind graphs. Gold: the gold Cypher's result. Metrics: execution match, answer accuracy.`,
    questions,
    scope: (kb) => kb.origin === "benchmark" && kb.name === BENCHMARK_NAMES.neo4j,
  };
}
