import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { TATQA_DEV } from "../../ingest/benchmarks/tatqa";
import { BENCHMARK_NAMES } from "../../ingest/benchmarks/load";
import { parseItems, parseJsonText, QuestionFileError } from "../question-file-errors";
import type { EvalQuestion, SuiteDefinition } from "../types";

const questionSchema = z.object({
  uid: z.string().min(1),
  question: z.string().trim().min(1),
  answer: z.union([z.array(z.union([z.string(), z.number()]).transform(String)), z.number(), z.string()]),
  answer_type: z.enum(["span", "multi-span", "arithmetic", "count"]),
  answer_from: z.string(),
  rel_paragraphs: z.array(z.union([z.string(), z.number()]).transform(String)),
  scale: z.enum(["", "thousand", "million", "billion", "percent"]),
});

/** A TAT-QA context: the table and paragraphs the questions are about (stored as one document), and the questions. */
const contextSchema = z.object({
  table: z.object({ uid: z.string().min(1), table: z.array(z.array(z.string())) }),
  paragraphs: z.array(z.object({ uid: z.string(), order: z.number(), text: z.string() })),
  questions: z.array(questionSchema).min(1),
});
export type TatQaContext = z.infer<typeof contextSchema>;

/** Contexts in TAT-QA's JSON format (tatqa_dataset_dev.json); every question needs its gold answer, and question uids are unique. */
export function parseTatQaContexts(text: string, file: string): TatQaContext[] {
  const data = parseJsonText(text, file);
  const contexts = parseItems(data, contextSchema, file, "TAT-QA contexts ({table, paragraphs, questions})", (raw, i) => {
    const uid = (raw as { table?: { uid?: unknown } })?.table?.uid;
    return `context ${i + 1}${typeof uid === "string" ? ` (table ${uid})` : ""}`;
  });
  const seen = new Map<string, number>();
  contexts.forEach((c, i) => {
    for (const q of c.questions) {
      const first = seen.get(q.uid);
      if (first !== undefined)
        throw new QuestionFileError(
          `${file}, context ${i + 1} (table ${c.table.uid}): question uid ${q.uid} is used twice (first in context ${first + 1}).`,
        );
      seen.set(q.uid, i);
    }
  });
  return contexts;
}

/**
 * TAT-QA questions over the collection that holds their contexts (document id = the table's uid). Gold
 * answer per TAT-QA's answer type and scale; gold evidence = that report's table (when the answer
 * comes from it) and its `rel_paragraphs`.
 */
export function tatqaQuestionsFrom(contexts: TatQaContext[], collection: string = BENCHMARK_NAMES.tatqa): EvalQuestion[] {
  return contexts.flatMap((ctx) =>
    ctx.questions.map((q): EvalQuestion => ({
      id: `tatqa:${q.uid}`,
      suite: "tatqa",
      question: q.question,
      kind: "DOCUMENTS",
      goldKbNames: [collection],
      gold: { type: "tatqa", tatqa: { answer: q.answer, answerType: q.answer_type, scale: q.scale } },
      evidence: { documentIds: [ctx.table.uid], paragraphs: q.rel_paragraphs, table: q.answer_from.includes("table") },
      // report: the context the question is about (calibration's cross-validation folds group by it, as Spider's by db:).
      tags: [`type:${q.answer_type}`, `from:${q.answer_from}`, ...(q.scale ? [`scale:${q.scale}`] : []), `report:${ctx.table.uid}`],
    })),
  );
}

/** TAT-QA dev (Zhu et al. 2021), the AU-RAG paper's benchmark: questions over 278 financial-report contexts. */
export function tatqaQuestions(datasetsDir: string): EvalQuestion[] {
  const file = path.join(datasetsDir, TATQA_DEV);
  if (!existsSync(file)) throw new Error(`TAT-QA dev set not found at ${file}. Point DATASETS_DIR at the shared datasets folder.`);
  return tatqaQuestionsFrom(parseTatQaContexts(readFileSync(file, "utf8"), file));
}

export function tatqaSuite(
  datasetsDir: string,
  questions = tatqaQuestions(datasetsDir),
  collection: string = BENCHMARK_NAMES.tatqa,
): SuiteDefinition {
  return {
    key: "tatqa",
    label: "TAT-QA (tables and text)",
    description: `${questions.length.toLocaleString("en")} TAT-QA questions over financial reports (a table with paragraphs each). Metrics: document retrieval, gold-evidence recall, answer presence, TAT-QA exact match and F1 with its scale rules, per answer type.`,
    questions,
    scope: (kb) => kb.name === collection && (kb.origin === "benchmark" || collection !== BENCHMARK_NAMES.tatqa),
  };
}
