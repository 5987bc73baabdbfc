import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { BENCHMARK_NAMES } from "../../ingest/benchmarks/load";
import { type CsvRecord, parseCsvRecords, QuestionFileError } from "../question-file-errors";
import type { EvalQuestion, SuiteDefinition } from "../types";

export const SCIFACT_CLAIMS = "scifact/claims_train.csv";

export interface SciFactClaim {
  id: string;
  claim: string;
  /** BEIR's relevant documents: the abstracts the claim cites. */
  cited: string[];
  /** The file line the claim was first read from (for messages). */
  line: number;
}

/** "[31715818]", "[ 5152028 11705328]" (numpy's print), "[1, 2]" or "1 2": the document ids, in order. */
export function parseCitedIds(text: string): string[] | null {
  const inner = text
    .trim()
    .replace(/^\[|\]$/g, "")
    .trim();
  if (!inner) return [];
  const ids = inner.split(/[\s,;]+/).map((s) => s.replace(/^['"]|['"]$/g, ""));
  return ids.every((id) => /^\d+$/.test(id)) ? [...new Set(ids)] : null;
}

/**
 * SciFact claims in the dataset's CSV format (id, claim, cited_doc_ids, and optionally the evidence
 * columns), one query per claim id as BEIR reads them: the dataset has one row per evidence pair, so a
 * claim may appear on several rows, which must agree.
 */
export function parseSciFactClaims(records: CsvRecord[], file: string): SciFactClaim[] {
  const claims = new Map<string, SciFactClaim>();
  for (const { row, line } of records) {
    const at = `${file}, line ${line}`;
    const id = (row.id ?? "").trim();
    const claim = (row.claim ?? "").trim();
    if (!id) throw new QuestionFileError(`${at}: the id is empty.`);
    if (!claim) throw new QuestionFileError(`${at}: claim ${id} has no text.`);
    const cited = parseCitedIds(row.cited_doc_ids ?? "");
    if (cited === null)
      throw new QuestionFileError(
        `${at}: cited_doc_ids "${row.cited_doc_ids}" is not a list of document ids (expected e.g. [31715818] or [5152028 11705328]).`,
      );
    if (!cited.length)
      throw new QuestionFileError(`${at}: claim ${id} cites no document, so there is nothing to retrieve (cited_doc_ids is empty).`);
    const seen = claims.get(id);
    if (!seen) {
      claims.set(id, { id, claim, cited, line });
    } else if (seen.claim !== claim || seen.cited.join(" ") !== cited.join(" ")) {
      throw new QuestionFileError(
        `${at}: claim ${id} appears again (first on line ${seen.line}) with a different claim text or cited_doc_ids.`,
      );
    }
  }
  return [...claims.values()];
}

export function scifactQuestionsFrom(claims: SciFactClaim[]): EvalQuestion[] {
  return claims.map((c) => ({
    id: `scifact:${c.id}`,
    suite: "scifact",
    question: c.claim,
    kind: "DOCUMENTS",
    goldKbNames: [BENCHMARK_NAMES.scifact],
    gold: { type: "retrieval-only" },
    evidence: { documentIds: c.cited },
    tags: [],
  }));
}

/**
 * SciFact claims (Wadden et al. 2020) as BEIR measures them: every claim is a query and the abstracts
 * it cites (`cited_doc_ids`) are its relevant documents, binary relevance. Retrieval only: NDCG@10,
 * Recall@100, MRR@10 over the ranked list of distinct documents.
 */
export function scifactQuestions(datasetsDir: string): EvalQuestion[] {
  const file = path.join(datasetsDir, SCIFACT_CLAIMS);
  if (!existsSync(file)) throw new Error(`SciFact claims not found at ${file}. Point DATASETS_DIR at the shared datasets folder.`);
  return scifactQuestionsFrom(parseSciFactClaims(parseCsvRecords(readFileSync(file), file, ["id", "claim", "cited_doc_ids"]), file));
}

export function scifactSuite(datasetsDir: string, questions = scifactQuestions(datasetsDir)): SuiteDefinition {
  return {
    key: "scifact",
    label: "SciFact (document retrieval)",
    description: `${questions.length.toLocaleString("en")} SciFact claims over the 5,183-abstract corpus, relevant = the abstracts each claim cites (BEIR). Metrics: NDCG@10, Recall@100, MRR@10, per ranking stage.`,
    questions,
    scope: (kb) => kb.origin === "benchmark" && kb.name === BENCHMARK_NAMES.scifact,
  };
}
