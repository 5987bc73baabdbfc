import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { BackendConfigError } from "../../errors";
import type { BackendContext } from "../../types";
import { contentHash, type IngestReport } from "../ingest";
import { mergeHeaderRows } from "../parsers/table-header";
import type { ParsedDocument } from "../parsers/types";
import { normalizeWhitespace } from "../sentences";
import { commitDatasetRecords, type DatasetLoadOptions, type DatasetRecord } from "./batch-commit";

export const TATQA_DEV = "tatqa/tatqa_dataset_dev.json";

const contextSchema = z.object({
  table: z.object({ uid: z.string().min(1), table: z.array(z.array(z.string())) }),
  paragraphs: z.array(z.object({ uid: z.string(), order: z.number(), text: z.string() })),
});
type TatQaContext = z.infer<typeof contextSchema>;

/**
 * TAT-QA tables put column headers in leading rows whose first cell (the row-label column) is blank,
 * sometimes under a title row that has only a first cell ("Income statement expense").
 */
function isHeaderRow(row: string[]): boolean {
  return !row[0]?.trim() || row.slice(1).every((c) => !c.trim());
}

function splitHeader(grid: string[][]): { header: string[]; rows: string[][]; headerRows: number } {
  let headerRows = 0;
  while (headerRows < Math.min(3, grid.length - 1) && isHeaderRow(grid[headerRows])) headerRows++;
  if (headerRows === 0 && grid.length > 1) headerRows = 1;
  return { header: mergeHeaderRows(grid.slice(0, headerRows)), rows: grid.slice(headerRows), headerRows };
}

/** Reports have no title: "Sales by Contract Type: Substantially all…" gives "Sales by Contract Type". */
function titleOf(ctx: TatQaContext): string {
  // Skip page numbers and similar scraps ("24") that some contexts start with.
  const paragraphs = [...ctx.paragraphs].sort((a, b) => a.order - b.order).map((p) => normalizeWhitespace(p.text));
  const first = paragraphs.find((p) => /\p{L}{3}/u.test(p)) ?? "";
  // A short first paragraph is a heading ("24. Post employment benefits").
  if (first.length <= 100 && !/[.!?]\s+\S/.test(first.replace(/^\d+(\.\d+)*\.\s/, ""))) return first.replace(/[.:]$/, "");
  const lead = /^([^:.]{3,80}):\s/.exec(first);
  if (lead) return lead[1];
  const sentence = first.split(/(?<=[.!?])\s/)[0] ?? "";
  if (!sentence) return `Financial report table ${ctx.table.uid}`;
  return sentence.length <= 100 ? sentence.replace(/[.:]$/, "") : `${sentence.slice(0, 97).replace(/\s+\S*$/, "")}…`;
}

function toDocument(c: TatQaContext): ParsedDocument {
  const paragraphs = [...c.paragraphs].sort((a, b) => a.order - b.order);
  const { header, rows, headerRows } = splitHeader(c.table.table);
  const title = titleOf(c);
  return {
    title,
    blocks: paragraphs.map((p) => ({ text: p.text, location: { paragraph: p.order, paragraphUid: p.uid } })),
    tables: [
      {
        caption: title,
        header,
        rows,
        beforeBlock: paragraphs.length,
        // Row r of the stored table is row r + headerRows of TAT-QA's grid (for matching gold cells).
        metadata: { tableUid: c.table.uid, headerRows },
      },
    ],
    metadata: { dataset: "tatqa", tableUid: c.table.uid, paragraphUids: paragraphs.map((p) => p.uid) },
  };
}

/**
 * TAT-QA dev (Zhu et al. 2021): each of the 278 contexts (one table plus paragraphs of a financial
 * report) becomes one document, id = the table's uid; paragraphs keep their order and uid as the
 * passage location, the table keeps its uid in its metadata.
 */
export async function loadTatQa(ctx: BackendContext, datasetsDir: string, opts: DatasetLoadOptions = {}): Promise<IngestReport> {
  const file = path.join(datasetsDir, TATQA_DEV);
  if (!existsSync(file)) {
    throw new BackendConfigError(`TAT-QA dev set not found at ${file}. Point DATASETS_DIR at the folder that holds ${TATQA_DEV}.`);
  }
  const contexts = JSON.parse(readFileSync(file, "utf8")) as unknown[];
  if (!Array.isArray(contexts)) throw new BackendConfigError(`${file} is not a JSON array of TAT-QA contexts.`);
  return loadTatQaContexts(ctx, contexts, TATQA_DEV, opts);
}

/** TAT-QA contexts already read (any file in TAT-QA's format, e.g. a question file given to the evaluation), as loadTatQa stores them. */
export async function loadTatQaContexts(ctx: BackendContext, contexts: unknown[], sourceName: string, opts: DatasetLoadOptions = {}): Promise<IngestReport> {
  const chosen = opts.limit !== undefined ? contexts.slice(0, opts.limit) : contexts;
  const records: DatasetRecord[] = chosen.map((raw, i) => {
    const uid = (raw as { table?: { uid?: unknown } })?.table?.uid;
    const id = typeof uid === "string" && uid ? uid : `context-${i + 1}`;
    return {
      id,
      sourceName: `${sourceName}#${id}`,
      mediaType: "application/json",
      contentHash: contentHash(JSON.stringify([(raw as { table?: unknown })?.table, (raw as { paragraphs?: unknown })?.paragraphs])),
      read: () => {
        const parsed = contextSchema.safeParse(raw);
        if (!parsed.success) throw new Error(`TAT-QA context ${i + 1} has an unexpected shape (${parsed.error.issues[0]?.message})`);
        return toDocument(parsed.data);
      },
    };
  });
  return commitDatasetRecords(ctx, records, opts);
}
