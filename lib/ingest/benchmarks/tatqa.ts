import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { periodsIn } from "../../tables/periods";
import { type ScaleNote, scaleInHeader, scaleInProse } from "../../tables/scale";
import { BackendConfigError } from "../../backends/errors";
import type { BackendContext } from "../../backends/types";
import { type IngestReport } from "../documents/ingest-files";
import { contentHash } from "../../backends/documents/ingest-target";
import { mergeHeaderRows } from "../documents/parsers/table-header";
import type { ParsedDocument } from "../documents/parsers/types";
import { normalizeWhitespace } from "../../backends/documents/sentences";
import { commitDatasetRecords, type DatasetLoadOptions, type DatasetRecord } from "./batch-commit";

export const TATQA_DEV = "tatqa/tatqa_dataset_dev.json";
/**
 * 2: captions state the table's scale when its header does not. 3: a labelled row of periods is a header row.
 * 4: a "$'000" unit row and "(in 000's)" prose state the scale; a row led by a scale note and holding no figure is a header row.
 */
const LOADER_VERSION = 4;

const contextSchema = z.object({
  table: z.object({ uid: z.string().min(1), table: z.array(z.array(z.string())) }),
  paragraphs: z.array(z.object({ uid: z.string(), order: z.number(), text: z.string() })),
});
type TatQaContext = z.infer<typeof contextSchema>;

/**
 * TAT-QA tables put column headers in leading rows whose first cell (the row-label column) is blank,
 * sometimes under a title row that has only a first cell ("Income statement expense"), and sometimes
 * with a label before the periods ("For the year ended December 31:", "2019", "2018").
 */
function isHeaderRow(row: string[]): boolean {
  return !row[0]?.trim() || row.slice(1).every((c) => !c.trim()) || isPeriodRow(row) || isUnitHeaderRow(row);
}

/**
 * A row whose first cell states the figures' scale ("(in millions of €)", "(Dollars in thousands)")
 * and which holds no figure (years and words only: "2019", "2018", "Actual", "% Change") heads the
 * columns: the scale note stands where a row label would.
 */
function isUnitHeaderRow(row: string[]): boolean {
  return (
    !!scaleInHeader(row[0] ?? "") &&
    row.slice(1).some((c) => c.trim()) &&
    row.slice(1).every((c) => !/\d/.test(c.replace(/\b(19|20)\d\d\b/g, "")))
  );
}

/** A row whose cells after the first name periods and nothing else: "2019", "2018 (4)", "April 27, 2019". */
function isPeriodRow(row: string[]): boolean {
  const cells = row.slice(1).filter((c) => c.trim());
  return (
    cells.length > 0 &&
    cells.every((c) => {
      const periods = periodsIn(c);
      if (periods.length === 0) return false;
      // What remains besides the periods may be words and footnote marks, not figures.
      const rest = periods.reduce((t, p) => t.replace(p.text, " "), c).replace(/\(\s*\d{1,2}\s*\)/g, " ");
      return !/\d/.test(rest);
    })
  );
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

/**
 * Reports state the scale of a table's figures in its header ("$'000", "€m"), in a unit row
 * ("(in millions)") or in the sentence that introduces it ("… consists of the following (in
 * thousands):"). When the header does not carry it, the caption does, so every row read alone still
 * says what its figures mean.
 */
function scaleNoteFor(grid: string[][], headerRows: number, paragraphs: { text: string }[]): string | null {
  if (grid.slice(0, headerRows).some((r) => r.some((c) => scaleInHeader(c)))) return null;
  // A unit row holds no figure: its only digits are years and the "000" of "$'000".
  const noFigure = (c: string) => !/\d/.test(c.replace(/\b(19|20)\d\d\b/g, "").replace(/['’‘]?000['’]?s?\b/g, ""));
  const unitRow = grid
    .slice(headerRows)
    .find((r) => r.some((c) => c.trim()) && r.every(noFigure) && r.some((c) => c.length <= 40 && scaleInHeader(c)));
  const note: ScaleNote | null = unitRow
    ? (unitRow.map((c) => (c.length <= 40 ? scaleInHeader(c) : null)).find((n) => n) ?? null)
    : (paragraphs.map((p) => scaleInProse(p.text)).find((n) => n) ?? null);
  if (!note) return null;
  return `in ${note.scale}s${note.except.length ? `, except ${note.except.join(" and ")} figures` : ""}`;
}

function toDocument(c: TatQaContext): ParsedDocument {
  const paragraphs = [...c.paragraphs].sort((a, b) => a.order - b.order);
  const { header, rows, headerRows } = splitHeader(c.table.table);
  const title = titleOf(c);
  const scaleNote = scaleNoteFor(c.table.table, headerRows, paragraphs);
  return {
    title,
    blocks: paragraphs.map((p) => ({ text: p.text, location: { paragraph: p.order, paragraphUid: p.uid } })),
    tables: [
      {
        caption: scaleNote ? `${title} (${scaleNote})` : title,
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
export async function loadTatQaContexts(
  ctx: BackendContext,
  contexts: unknown[],
  sourceName: string,
  opts: DatasetLoadOptions = {},
): Promise<IngestReport> {
  const chosen = opts.limit !== undefined ? contexts.slice(0, opts.limit) : contexts;
  const records: DatasetRecord[] = chosen.map((raw, i) => {
    const uid = (raw as { table?: { uid?: unknown } })?.table?.uid;
    const id = typeof uid === "string" && uid ? uid : `context-${i + 1}`;
    return {
      id,
      sourceName: `${sourceName}#${id}`,
      mediaType: "application/json",
      // The loader's version is part of the hash: a change in how contexts become documents re-ingests them.
      contentHash: contentHash(
        JSON.stringify([LOADER_VERSION, (raw as { table?: unknown })?.table, (raw as { paragraphs?: unknown })?.paragraphs]),
      ),
      read: () => {
        const parsed = contextSchema.safeParse(raw);
        if (!parsed.success) throw new Error(`TAT-QA context ${i + 1} has an unexpected shape (${parsed.error.issues[0]?.message})`);
        return toDocument(parsed.data);
      },
    };
  });
  return commitDatasetRecords(ctx, records, opts);
}
