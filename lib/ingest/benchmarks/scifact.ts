import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { parse } from "csv-parse/sync";
import { BackendConfigError } from "../../backends/errors";
import type { BackendContext } from "../../backends/types";
import { type IngestReport } from "../documents/ingest-files";
import { contentHash } from "../../backends/documents/ingest-target";
import { commitDatasetRecords, type DatasetLoadOptions, type DatasetRecord } from "./batch-commit";
import { parsePythonStringList } from "./python-string-list";

interface CorpusRow {
  doc_id: string;
  title: string;
  abstract: string;
  structured: string;
}

export const SCIFACT_CORPUS = "scifact/corpus.csv";

/**
 * SciFact (Wadden et al. 2020, CC BY-NC 2.0): each abstract becomes a document whose id is SciFact's
 * doc_id and whose sentences are exactly the dataset's, so claims' evidence sentence indexes point at
 * the same sentences (PassageData.firstSentenceIndex + position in the passage).
 */
export async function loadSciFact(ctx: BackendContext, datasetsDir: string, opts: DatasetLoadOptions = {}): Promise<IngestReport> {
  const file = path.join(datasetsDir, SCIFACT_CORPUS);
  if (!existsSync(file)) {
    throw new BackendConfigError(`SciFact corpus not found at ${file}. Point DATASETS_DIR at the folder that holds ${SCIFACT_CORPUS}.`);
  }
  let rows = parse(readFileSync(file), { columns: true, skip_empty_lines: true }) as CorpusRow[];
  if (opts.limit !== undefined) rows = rows.slice(0, opts.limit);
  const records: DatasetRecord[] = rows.map((row) => ({
    id: row.doc_id,
    sourceName: `${SCIFACT_CORPUS}#${row.doc_id}`,
    mediaType: "text/plain",
    contentHash: contentHash(JSON.stringify([row.doc_id, row.title, row.abstract])),
    read: () => {
      let sentences: string[];
      try {
        sentences = parsePythonStringList(row.abstract);
      } catch (e) {
        throw new Error(`the abstract of SciFact document ${row.doc_id} is not a list of sentences (${(e as Error).message})`);
      }
      return {
        title: row.title,
        blocks: [{ text: "", sentences }],
        tables: [],
        metadata: { dataset: "scifact", docId: row.doc_id, structured: row.structured === "True" },
      };
    },
  }));
  return commitDatasetRecords(ctx, records, opts);
}
