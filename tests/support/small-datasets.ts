import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parse } from "csv-parse/sync";

/** The shared benchmark data (DATASETS_DIR). */
export const SHARED_DATASETS = path.resolve(process.env.DATASETS_DIR ?? "../shared/datasets");
/** The Spider databases of the small copy: concert_singer has dev questions (so an RDF version), pets_1 has none. */
export const SMALL_SPIDER_DBS = ["concert_singer", "pets_1"];

/**
 * A small copy of the benchmark data, so loading the benchmark catalog takes seconds: two Spider databases,
 * ten SciFact abstracts and one TAT-QA report (five knowledge bases with the RDF version of concert_singer),
 * and Text2Cypher as it is. The caller removes the folder.
 */
export function smallDatasets(): string {
  const dir = mkdtempSync(path.join(tmpdir(), "mosaic-e2e-datasets-"));
  for (const db of SMALL_SPIDER_DBS)
    cpSync(path.join(SHARED_DATASETS, "spider", "database", db), path.join(dir, "spider", "database", db), { recursive: true });
  const dev = JSON.parse(readFileSync(path.join(SHARED_DATASETS, "spider", "dev-questions.json"), "utf8")) as { db_id: string }[];
  writeFileSync(path.join(dir, "spider", "dev-questions.json"), JSON.stringify(dev.filter((q) => SMALL_SPIDER_DBS.includes(q.db_id))));
  mkdirSync(path.join(dir, "scifact"));
  const corpus = parse(readFileSync(path.join(SHARED_DATASETS, "scifact", "corpus.csv")), { columns: true }) as Record<string, string>[];
  const cell = (v: string) => `"${v.replace(/"/g, '""')}"`;
  const columns = Object.keys(corpus[0]);
  writeFileSync(
    path.join(dir, "scifact", "corpus.csv"),
    [columns.join(","), ...corpus.slice(0, 10).map((r) => columns.map((c) => cell(r[c])).join(","))].join("\n"),
  );
  mkdirSync(path.join(dir, "tatqa"));
  const tatqa = JSON.parse(readFileSync(path.join(SHARED_DATASETS, "tatqa", "tatqa_dataset_dev.json"), "utf8")) as unknown[];
  writeFileSync(path.join(dir, "tatqa", "tatqa_dataset_dev.json"), JSON.stringify(tatqa.slice(0, 1)));
  cpSync(path.join(SHARED_DATASETS, "text2cypher"), path.join(dir, "text2cypher"), { recursive: true });
  return dir;
}
