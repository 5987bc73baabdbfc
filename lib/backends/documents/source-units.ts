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
  const mediaTypes = db.prepare("SELECT DISTINCT media_type FROM documents WHERE status = 'ready' ORDER BY media_type").pluck().all() as string[];
  const samples = db.prepare("SELECT title FROM documents WHERE status = 'ready' ORDER BY rowid LIMIT 3").pluck().all() as string[];
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

  const tables = db
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
  }[];
  const tableUnits = tables.map((t): SourceUnit => {
    const header = JSON.parse(t.header) as string[];
    const rows = JSON.parse(t.rows) as Scalar[][];
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
        `Table${from}${t.section ? ` (section "${t.section}")` : ""} with ${count(t.row_count, "row")}; columns: ${header.join(", ")}.` +
        (labels.length ? ` First rows: ${labels.join("; ")}.` : ""),
      tags: ["table", FORMAT_TAGS[t.media_type] ?? t.media_type],
      metadata: { document: t.document_id, tableIndex: t.table_index, columns: header, rows: t.row_count },
    };
  });
  return [collection, ...tableUnits];
}
