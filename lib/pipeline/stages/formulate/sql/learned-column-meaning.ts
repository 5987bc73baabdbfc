import type { CrossEncoder } from "../../../../models/types";
import type { Intent } from "../../../contracts";
import { linkerColumnText } from "../../../../catalog/semantic-texts";
import { VIEW_ID, columnKey } from "../plan/relational-view";
import type { ColumnMeaning } from "./column-meaning";
import type { SqlStructure } from "./sql-structure";

/**
 * Column-level linking by the learned question–schema scorer (lib/models/schema-linker.ts): each
 * column in words beside the question, one log-odds per pair that the query answering the question
 * reads the column. It was fitted on which columns the training databases' gold queries read, so it
 * closes in on "wealth" → net worth, "how old" → age or "t fed rev" → total federal revenue from what
 * columns and questions mean, on schemas it never saw, where the embedder's closeness only says a
 * column is about the question's subject.
 */

/** Schemas with more column pairs than this are linked by the embedder's cached vectors alone (one question's scoring stays under ~0.3 s on a busy core). */
export const MAX_LINKER_PAIRS = 400;

/**
 * The scorer's probability rescaled to the closeness schema linking weighs (0..1): even odds or less
 * says nothing, certainty is 1. Probabilities were fitted against the columns gold queries read, so
 * the midpoint is where reading and not reading are equally likely.
 */
export function closenessFromLogit(logit: number): number {
  const p = 1 / (1 + Math.exp(-logit));
  return Math.max(0, Math.min(1, 2 * p - 1));
}

/** The columns that have words (a graph seen as tables adds a node-id column, VIEW_ID, that has none). */
function wordedColumns(structure: SqlStructure): { table: string; column: string }[] {
  return structure.tables.flatMap((t) => t.columns.filter((c) => c.name !== VIEW_ID).map((c) => ({ table: t.name, column: c.name })));
}

/** Closeness by column, or null when the schema is too large to score per question. */
export async function learnedColumnMeaning(
  linker: CrossEncoder,
  intent: Intent,
  structure: SqlStructure,
  signal?: AbortSignal,
): Promise<ColumnMeaning | null> {
  const columns = wordedColumns(structure);
  if (columns.length === 0 || columns.length > MAX_LINKER_PAIRS) return null;
  const question = intent.completed || intent.question;
  const logits = await linker.score(
    columns.map((c) => [question, linkerColumnText(c.table, c.column)]),
    { signal },
  );
  const meaning = new Map<string, number>();
  columns.forEach((c, i) => {
    const closeness = closenessFromLogit(logits[i]!);
    if (closeness > 0) meaning.set(columnKey(c.table, c.column), closeness);
  });
  return meaning;
}
