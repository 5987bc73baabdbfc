import { formatScalar } from "../evidence";
import type { Scalar, SourceUnit } from "../types";
import type { CollectionCounts, ContentStats } from "./collection-stats";
import type { IndexDb } from "./index-db";
import { COLLECTION_UNIT } from "./records";
import { count } from "../../format/count";

const FORMAT_TAGS: Record<string, string> = {
  "text/plain": "txt",
  "text/markdown": "markdown",
  "text/html": "html",
  "application/pdf": "pdf",
  "text/csv": "csv",
  "application/json": "json",
};

/**
 * AU-RAG source objects of a collection: the collection's text as one unit, and each document table
 * as its own unit, with descriptions generated from the content (analysts may edit them later).
 */
export function buildSourceUnits(db: IndexDb, name: string, counts: CollectionCounts, stats: ContentStats): SourceUnit[] {
  const mediaTypes = db
    .prepare("SELECT DISTINCT media_type FROM documents WHERE status = 'ready' ORDER BY media_type")
    .pluck()
    .all() as string[];
  const samples = db
    .prepare("SELECT title FROM documents WHERE status = 'ready' ORDER BY rowid LIMIT ?")
    .pluck()
    .all(SOURCE_UNIT_SAMPLES) as string[];
  const tables = (
    db
      .prepare(
        `SELECT t.key, t.document_id, t.table_index, t.caption, t.section, t.header, t.rows, t.row_count, d.title, d.media_type
         FROM doc_tables t JOIN documents d ON d.id = t.document_id ORDER BY d.rowid, t.table_index`,
      )
      .all() as {
      key: string;
      document_id: string;
      table_index: number;
      caption: string;
      section: string | null;
      header: string;
      rows: string;
      row_count: number;
      title: string;
      media_type: string;
    }[]
  ).map((t) => ({
    key: t.key,
    documentId: t.document_id,
    tableIndex: t.table_index,
    caption: t.caption,
    section: t.section,
    header: JSON.parse(t.header) as string[],
    rows: JSON.parse(t.rows) as Scalar[][],
    rowCount: t.row_count,
    title: t.title,
    mediaType: t.media_type,
  }));
  return composeSourceUnits(name, { counts, stats, mediaTypes, samples, tables });
}

export const SOURCE_UNIT_SAMPLES = 3;

/** A document table as the source units and the entity index read it. */
export interface UnitTable {
  key: string;
  documentId: string;
  tableIndex: number;
  caption: string;
  section: string | null;
  header: string[];
  rows: Scalar[][];
  rowCount: number;
  /** Title and media type of the document holding it. */
  title: string;
  mediaType: string;
}

export interface SourceUnitsInput {
  counts: CollectionCounts;
  stats: ContentStats;
  /** Media types of ready documents, sorted. */
  mediaTypes: string[];
  /** Titles of the first SOURCE_UNIT_SAMPLES ready documents in ingestion order. */
  samples: string[];
  /** Every table, in ingestion order. */
  tables: UnitTable[];
}

/** The source units from what was read of the collection (pure). */
export function composeSourceUnits(name: string, input: SourceUnitsInput): SourceUnit[] {
  const { counts, stats, mediaTypes, samples } = input;
  const about = stats.terms.slice(0, 12).map((t) => t.term);
  const collection: SourceUnit = {
    key: COLLECTION_UNIT,
    name,
    contentType: "TEXT",
    description:
      `${count(counts.documents, "document")} in ${count(counts.chunks, "passage")}` +
      (about.length ? `, mostly about ${about.join(", ")}` : "") +
      (samples.length ? `. For example: ${samples.map((s) => `"${s}"`).join("; ")}.` : "."),
    tags: ["documents", ...mediaTypes.map((m) => FORMAT_TAGS[m] ?? m)],
    metadata: { documents: counts.documents, passages: counts.chunks, tables: counts.tables },
  };

  const tableUnits = input.tables.map((t): SourceUnit => {
    const { header, rows } = t;
    const labels = rows
      .map((r) => formatScalar(r[0] ?? null))
      .filter(Boolean)
      .slice(0, 5);
    const from = t.caption === t.title ? "" : ` from "${t.title}"`;
    return {
      key: t.key,
      name: t.caption,
      contentType: "TABLE",
      description:
        `Table${from}${t.section ? ` (section "${t.section}")` : ""} with ${count(t.rowCount, "row")}; columns: ${header.join(", ")}.` +
        (labels.length ? ` First rows: ${labels.join("; ")}.` : ""),
      tags: ["table", FORMAT_TAGS[t.mediaType] ?? t.mediaType],
      metadata: { document: t.documentId, tableIndex: t.tableIndex, columns: header, rows: t.rowCount },
    };
  });
  return [collection, ...tableUnits];
}
