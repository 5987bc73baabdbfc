import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { parse } from "csv-parse/sync";
import { BENCHMARK_NAMES } from "../../catalog/benchmarks";
import type { EvalQuestion, SuiteDefinition } from "../types";

interface ClaimRow {
  id: string;
  claim: string;
  evidence_doc_id: string;
}

/**
 * SciFact claims (Wadden et al. 2020) as BEIR uses them: each claim with at least one evidence
 * abstract is a query whose relevant documents are those abstracts (one row per evidence pair in the
 * file, grouped by claim id). Retrieval only: NDCG@10, Recall@100, Hit@k, MRR.
 */
export function scifactQuestions(datasetsDir: string): EvalQuestion[] {
  const file = path.join(datasetsDir, "scifact", "claims_train.csv");
  if (!existsSync(file)) throw new Error(`SciFact claims not found at ${file}. Point DATASETS_DIR at the shared datasets folder.`);
  const rows = parse(readFileSync(file), { columns: true, skip_empty_lines: true }) as ClaimRow[];
  const claims = new Map<string, { claim: string; docs: Set<string> }>();
  for (const r of rows) {
    if (!r.evidence_doc_id?.trim()) continue;
    const c = claims.get(r.id) ?? { claim: r.claim, docs: new Set<string>() };
    c.docs.add(r.evidence_doc_id.trim());
    claims.set(r.id, c);
  }
  return [...claims.entries()].map(([id, c]) => ({
    id: `scifact:${id}`,
    suite: "scifact",
    question: c.claim,
    kind: "DOCUMENTS",
    goldKbNames: [BENCHMARK_NAMES.scifact],
    gold: { type: "retrieval-only" },
    evidence: { documentIds: [...c.docs] },
    tags: [],
  }));
}

export function scifactSuite(datasetsDir: string): SuiteDefinition {
  const questions = scifactQuestions(datasetsDir);
  return {
    key: "scifact",
    label: "SciFact (document retrieval)",
    description: `${questions.length.toLocaleString("en")} SciFact claims with evidence abstracts over the 5,183-abstract corpus. Metrics (BEIR): NDCG@10, Recall@100, Hit@k, MRR@10.`,
    questions,
    scope: (kb) => kb.origin === "benchmark" && kb.name === BENCHMARK_NAMES.scifact,
  };
}
