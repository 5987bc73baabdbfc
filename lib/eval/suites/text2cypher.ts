import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { BENCHMARK_NAMES } from "../../ingest/benchmarks/load";
import { queryOrders } from "../metrics/execution";
import { type CsvRecord, parseCsvRecords, QuestionFileError } from "../question-file-errors";
import type { EvalQuestion, SuiteDefinition } from "../types";

export const TEXT2CYPHER_DEV = "text2cypher/movies-northwind-dev.csv";
/** The graphs the benchmark Neo4j KB holds (lib/eval/prepare.ts loads both). */
export const TEXT2CYPHER_GRAPHS = ["movies", "northwind"];
/** The dataset's columns a file must have; type and the quality flags are optional. */
export const TEXT2CYPHER_COLUMNS = ["question", "cypher", "database"];

/** Neo4j's demo movies database has Movie.votes; movies.cypher does not, so those questions cannot be answered here. */
const MISSING_PROPERTY = /\.votes\b/;

export interface Text2CypherQuestions {
  questions: EvalQuestion[];
  /** Rows left out, by reason, for the run's log. */
  leftOut: { reason: string; count: number }[];
}

/**
 * Neo4j Text2Cypher (2024) rows, in the dataset's CSV format (question, cypher, type, database,
 * syntax_error, timeout, returns_results, false_schema): the questions whose gold Cypher is usable. A
 * row the dataset flags (a syntax error, a timeout, no results, a false schema) or that needs
 * Movie.votes is left out; a row naming another graph than movies or northwind stops the run.
 * Gold = what the gold Cypher returns on the Neo4j KB holding both graphs. Ids are the data rows' numbers.
 */
export function text2cypherQuestionsFrom(records: CsvRecord[], file: string): Text2CypherQuestions {
  const questions: EvalQuestion[] = [];
  const counts = new Map<string, number>();
  const leave = (reason: string) => counts.set(reason, (counts.get(reason) ?? 0) + 1);
  records.forEach(({ row: r, line }, i) => {
    const at = `${file}, line ${line}`;
    if (!r.question?.trim()) throw new QuestionFileError(`${at}: the question is empty.`);
    if (!r.cypher?.trim()) throw new QuestionFileError(`${at}: the gold Cypher is empty.`);
    const database = r.database?.trim() ?? "";
    if (!TEXT2CYPHER_GRAPHS.includes(database)) {
      throw new QuestionFileError(
        `${at}: the database "${database}" is not registered: the Neo4j knowledge base "${BENCHMARK_NAMES.neo4j}" holds ${TEXT2CYPHER_GRAPHS.join(" and ")}.`,
      );
    }
    const flagged = (column: string, bad: string) => r[column] !== undefined && r[column].trim() === bad;
    if (
      flagged("syntax_error", "True") ||
      flagged("timeout", "True") ||
      flagged("returns_results", "False") ||
      (r.false_schema ?? "").trim()
    ) {
      leave("the dataset flags its gold Cypher (syntax error, timeout, no results or false schema)");
      return;
    }
    if (MISSING_PROPERTY.test(r.cypher)) {
      leave("its gold Cypher needs Movie.votes, which the movies graph here does not have");
      return;
    }
    questions.push({
      id: `text2cypher:${i}`,
      suite: "text2cypher",
      question: r.question.trim(),
      kind: "CYPHER",
      goldKbNames: [BENCHMARK_NAMES.neo4j],
      gold: { type: "query", language: "cypher", text: r.cypher, target: { type: "kb", kbName: BENCHMARK_NAMES.neo4j } },
      ordered: queryOrders(r.cypher),
      tags: [`db:${database}`, ...(r.type?.trim() ? [`type:${r.type.trim()}`] : [])],
    });
  });
  if (!questions.length)
    throw new QuestionFileError(`${file}: every row was left out (${[...counts.keys()].join("; ")}), so there is nothing to evaluate.`);
  return { questions, leftOut: [...counts.entries()].map(([reason, count]) => ({ reason, count })) };
}

/** The dataset's dev file: movies and northwind questions whose gold Cypher is usable. */
export function text2cypherQuestions(datasetsDir: string): EvalQuestion[] {
  const file = path.join(datasetsDir, TEXT2CYPHER_DEV);
  if (!existsSync(file)) throw new Error(`Text2Cypher questions not found at ${file}. Point DATASETS_DIR at the shared datasets folder.`);
  return text2cypherQuestionsFrom(parseCsvRecords(readFileSync(file), file, TEXT2CYPHER_COLUMNS), file).questions;
}

export function text2cypherSuite(datasetsDir: string, questions = text2cypherQuestions(datasetsDir)): SuiteDefinition {
  return {
    key: "text2cypher",
    label: "Text2Cypher (Neo4j)",
    description: `${questions.length} Text2Cypher questions on the Neo4j movies and northwind graphs. Gold: the gold Cypher's result. Metrics: execution match (per database and question type), answer accuracy.`,
    questions,
    scope: (kb) => kb.origin === "benchmark" && kb.name === BENCHMARK_NAMES.neo4j,
  };
}
