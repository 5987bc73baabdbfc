import type { Scalar } from "../types";

/** The source unit that holds every passage of the collection (tables are units of their own). */
export const COLLECTION_UNIT = "collection";

/** A passage hit, as `execute` returns it: everything `verbalize` needs, JSON-safe. */
export interface PassageRecord {
  kind: "passage";
  /** Higher is better: -bm25() of a lexical search, the fused score of a hybrid one. */
  score: number;
  /** How the search ranked (a hybrid search says so, with its weights); absent for plain BM25. */
  retrieval?: string;
  sourceObject: string;
  documentId: string;
  documentTitle: string;
  section: string | null;
  chunkIndex: number;
  text: string;
  start: number;
  end: number;
  sentences: string[];
  firstSentenceIndex: number;
  /** Where in the source (PDF page, TAT-QA paragraph order/uid). */
  location: Record<string, Scalar>;
}

/** A table-row hit. */
export interface TableRowRecord {
  kind: "row";
  score: number;
  retrieval?: string;
  sourceObject: string;
  documentId: string;
  documentTitle: string;
  tableKey: string;
  caption: string;
  section: string | null;
  columns: string[];
  values: Scalar[];
  rowIndex: number;
  /** Scalars describing the table in its source (TAT-QA's table uid and header row count). */
  tableMetadata: Record<string, Scalar>;
}

export type SearchRecord = PassageRecord | TableRowRecord;

export const SEARCH_RESULT_COLUMNS = [
  "kind",
  "score",
  "sourceObject",
  "documentId",
  "documentTitle",
  "section",
  "chunkIndex",
  "text",
  "start",
  "end",
  "sentences",
  "firstSentenceIndex",
  "location",
  "tableKey",
  "caption",
  "columns",
  "values",
  "rowIndex",
  "tableMetadata",
  "retrieval",
];

export function isSearchRecord(r: Record<string, unknown>): r is SearchRecord & Record<string, unknown> {
  return (r.kind === "passage" || r.kind === "row") && typeof r.documentId === "string";
}

export function scalarEntries(value: unknown): Record<string, Scalar> {
  const out: Record<string, Scalar> = {};
  if (typeof value !== "object" || value === null) return out;
  for (const [k, v] of Object.entries(value)) {
    if (v === null || typeof v === "string" || typeof v === "number" || typeof v === "boolean") out[k] = v;
  }
  return out;
}
