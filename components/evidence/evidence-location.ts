import { COMPUTED_ROWS_TABLE, type Scalar } from "@/lib/backends/types";

/** Whether rows titled `table` were computed by a query (an aggregate, a join) rather than read from a stored table. */
export function isComputedTable(table: string | null | undefined): boolean {
  return table === COMPUTED_ROWS_TABLE;
}

/**
 * The one-line summary of a piece for its panel header. Computed rows are linearized under the computed
 * table's name ("Query result / number of orders: 7", which is what retrieval ranks); a reader needs only
 * the cells.
 */
export function evidenceHeadline(text: string): string {
  const prefix = `${COMPUTED_ROWS_TABLE} / `;
  return text.startsWith(prefix) ? text.slice(prefix.length) : text;
}

/** Positions the evidence kind's own view already shows (row, chunk, the triple's IRIs) and internal keys. */
const SHOWN_ELSEWHERE = new Set(["row", "chunk", "query", "subject", "predicate", "object", "paragraphUid", "tableUid", "headerRows"]);

const LABELS: Record<string, string> = {
  document: "Document",
  table: "Table",
  key: "Row key",
  page: "Page",
  paragraph: "Paragraph",
  section: "Section",
  node: "Node id",
  path: "Path",
};

/**
 * Positions a reader can use without knowing the engine: a page, a section, a paragraph. The others
 * (document slugs, table and node ids, row keys, paths) are identifiers, shown only with Details.
 */
const READABLE = new Set(["page", "section", "paragraph"]);

export interface LocationLine {
  label: string;
  value: string;
}

/**
 * Where a piece of evidence sits, in words for the evidence panel: "Table: customers · Row key: id=7",
 * "Page: 4". Backends record locations under short keys; a computed result row has no table, so it says so
 * instead of naming the verbalizer's internal title. Keys without a label (a table's own metadata) are
 * shown as they were stored. Without `identifiers` (a business user's default view) only READABLE positions remain.
 */
export function locationLines(
  location: Record<string, Scalar> | undefined | null,
  { identifiers = true }: { identifiers?: boolean } = {},
): LocationLine[] {
  return Object.entries(location ?? {})
    .filter(([key, value]) => value !== null && value !== "" && !SHOWN_ELSEWHERE.has(key))
    .filter(([key]) => identifiers || READABLE.has(key))
    .map(([key, value]) =>
      key === "table" && isComputedTable(String(value))
        ? { label: "Table", value: "none (rows computed by the query)" }
        : { label: LABELS[key] ?? key, value: String(value) },
    );
}
