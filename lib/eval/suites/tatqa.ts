import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { TATQA_DEV } from "../../backends/documents/datasets/tatqa";
import { BENCHMARK_NAMES } from "../../catalog/benchmarks";
import type { EvalQuestion, SuiteDefinition } from "../types";

const contextsSchema = z.array(
  z.object({
    table: z.object({ uid: z.string().min(1) }),
    questions: z.array(
      z.object({
        uid: z.string().min(1),
        question: z.string().min(1),
        answer: z.union([z.array(z.union([z.string(), z.number()]).transform(String)), z.number(), z.string()]),
        answer_type: z.enum(["span", "multi-span", "arithmetic", "count"]),
        answer_from: z.string(),
        rel_paragraphs: z.array(z.union([z.string(), z.number()]).transform(String)),
        scale: z.enum(["", "thousand", "million", "billion", "percent"]),
      }),
    ),
  }),
);

/**
 * TAT-QA dev (Zhu et al. 2021), the AU-RAG paper's benchmark: questions over 278 financial-report
 * contexts, each a document of the "TAT-QA financial reports" collection (document id = the table's
 * uid). Gold answer per TAT-QA's answer type and scale; gold evidence = that report's table (when the
 * answer comes from it) and its `rel_paragraphs`.
 */
export function tatqaQuestions(datasetsDir: string): EvalQuestion[] {
  const file = path.join(datasetsDir, TATQA_DEV);
  if (!existsSync(file)) throw new Error(`TAT-QA dev set not found at ${file}. Point DATASETS_DIR at the shared datasets folder.`);
  const parsed = contextsSchema.safeParse(JSON.parse(readFileSync(file, "utf8")));
  if (!parsed.success) throw new Error(`${file} does not look like TAT-QA: ${parsed.error.issues[0]?.path.join(".")} ${parsed.error.issues[0]?.message}`);
  return parsed.data.flatMap((ctx) =>
    ctx.questions.map(
      (q): EvalQuestion => ({
        id: `tatqa:${q.uid}`,
        suite: "tatqa",
        question: q.question,
        kind: "DOCUMENTS",
        goldKbNames: [BENCHMARK_NAMES.tatqa],
        gold: { type: "tatqa", tatqa: { answer: q.answer, answerType: q.answer_type, scale: q.scale } },
        evidence: { documentIds: [ctx.table.uid], paragraphs: q.rel_paragraphs, table: q.answer_from.includes("table") },
        tags: [`type:${q.answer_type}`, `from:${q.answer_from}`, ...(q.scale ? [`scale:${q.scale}`] : [])],
      }),
    ),
  );
}

export function tatqaSuite(datasetsDir: string): SuiteDefinition {
  return {
    key: "tatqa",
    label: "TAT-QA (tables and text)",
    description: "1,668 TAT-QA dev questions over 278 financial reports (a table with paragraphs each). Metrics: document retrieval, gold-evidence recall, answer presence, TAT-QA exact match and F1 with its scale rules.",
    questions: tatqaQuestions(datasetsDir),
    scope: (kb) => kb.origin === "benchmark" && kb.name === BENCHMARK_NAMES.tatqa,
  };
}
