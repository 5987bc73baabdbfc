import type { TextEmbeddings } from "../../../../models/text-embeddings";
import type { Embedder } from "../../../../models/types";
import { cosine, questionVector } from "../../../scorers/dense";
import type { Intent } from "../../../contracts";
import { UNRELATED_COSINE } from "../../select/semantic";
import { columnSemanticText } from "../../../../catalog/semantic-texts";
import { VIEW_ID, columnKey } from "../plan/relational-view";
import type { SqlStructure } from "./sql-structure";

/**
 * Column-level dense linking: how close in meaning each column is to the question, so "How old is …"
 * reaches an `age` column and "how much does it cost" a `price` column though no word names them.
 * Column texts ("age of singer", semantic.ts) are embedded once per (model, text) and cached
 * (models/text-embeddings.ts; the catalog job embeds SQL tables' columns ahead); the question's vector
 * is the run's one (scorers/dense.ts), so a question costs no model call for the schema it has seen.
 *
 * Every column text of a table carries the table's words, so the whole table sits close to a question
 * about its subject; what tells the columns apart is how far one stands out from its table's other
 * columns. The closeness is that margin over the table's median cosine, calibrated to 0..1.
 */

/** Calibrated closeness (0..1) by column: `columnKey(table, column)`. Absent = nothing to say. */
export type ColumnMeaning = ReadonlyMap<string, number>;

export { columnKey };

/**
 * A margin at or below this over the table's median says nothing: between the columns of one table
 * that a question does not single out (its subject's columns alike) the spread is within a few
 * hundredths. Above it the margin is rescaled to reach 1 at MARGIN_FULL, the margin of a column
 * the question names in other words ("How old …" → age of singer stands ≈ 0.3 above the singer table's
 * median with all-MiniLM-L6-v2).
 */
export const MARGIN_FLOOR = 0.05;
export const MARGIN_FULL = 0.3;

/**
 * A schema's column texts missing from the cache are embedded with the question that first needs
 * them (once: they are cached); a larger schema waits for the catalog job and counts by words meanwhile.
 */
export const INLINE_COLUMN_TEXTS = 512;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** The calibrated closeness of each column in `cosines` (one table's columns) from its margin over their median. */
export function columnCloseness(cosines: number[]): number[] {
  // A lone column has nothing to stand out from; the table's own closeness (source selection) speaks for it.
  if (cosines.length < 2) return cosines.map(() => 0);
  const m = median(cosines);
  return cosines.map((c) => (c <= UNRELATED_COSINE ? 0 : Math.max(0, Math.min(1, (c - m - MARGIN_FLOOR) / (MARGIN_FULL - MARGIN_FLOOR)))));
}

/** The columns that have words: a graph seen as tables adds a node-id column (VIEW_ID) that has none. */
function worded(table: SqlStructure["tables"][number]): string[] {
  return table.columns.map((c) => c.name).filter((c) => c !== VIEW_ID);
}

/** Every column text of a structure, in table then column order. */
export function columnTexts(structure: SqlStructure): string[] {
  return structure.tables.flatMap((t) =>
    t.columns.filter((c) => c.name !== VIEW_ID).map((c) => columnSemanticText(t.name, c.name, notedMeaning(c))),
  );
}

/** What an analyst said a column means and calls it (table-notes.ts), as words the embedder reads after the column's own. */
function notedMeaning(column: SqlStructure["tables"][number]["columns"][number]): string | undefined {
  const said = [column.description ?? "", column.synonyms?.length ? `Also called ${column.synonyms.join(", ")}.` : ""].filter(Boolean);
  return said.length > 0 ? said.join(" ") : undefined;
}

export interface ColumnMeaningResult {
  meaning: ColumnMeaning;
  /** Column texts not embedded yet (left to the catalog job): their columns count by their words only. */
  pending: number;
}

export async function columnMeaning(
  embedder: Embedder,
  texts: TextEmbeddings,
  intent: Intent,
  structure: SqlStructure,
  signal?: AbortSignal,
): Promise<ColumnMeaningResult> {
  const items = columnTexts(structure);
  let stored = await texts.stored(items);
  let pending = new Set(items.filter((_, i) => !stored[i])).size;
  if (pending > 0 && pending <= INLINE_COLUMN_TEXTS) {
    await texts.vectors(
      items.filter((_, i) => !stored[i]),
      { signal },
    );
    stored = await texts.stored(items);
    pending = 0;
  }
  const q = await questionVector(embedder, intent, signal);
  const meaning = new Map<string, number>();
  let at = 0;
  for (const t of structure.tables) {
    const columns = worded(t);
    const vectors = stored.slice(at, at + columns.length);
    at += columns.length;
    // A table partly embedded is left out whole: a median over some of its columns would mislead.
    if (vectors.some((v) => !v)) continue;
    const closeness = columnCloseness(vectors.map((v) => cosine(q, v!)));
    columns.forEach((c, i) => {
      if (closeness[i] > 0) meaning.set(columnKey(t.name, c), closeness[i]);
    });
  }
  return { meaning, pending };
}
