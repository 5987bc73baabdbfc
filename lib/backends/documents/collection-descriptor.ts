import { boundText, COMPACT_MAX_CHARS, DESCRIPTOR_MAX_CHARS, descriptorVersion } from "../descriptor";
import type { Descriptor } from "../types";
import type { CollectionCounts, ContentStats } from "./collection-stats";
import type { IndexDb } from "./index-db";
import { COLLECTION_UNIT } from "./records";
import { count } from "../../format/count";

const SAMPLE_TITLES = 15;
const LISTED_TABLES = 300;
const COMPACT_TABLES = 30;

export interface DescribedTable {
  key: string;
  caption: string;
  section: string | null;
  header: string[];
  rowCount: number;
  /** Title of the document holding it. */
  title: string;
}

/** What the descriptor reads of a collection, whichever engine holds it. */
export interface DescriptorInput {
  counts: CollectionCounts;
  stats: ContentStats;
  /** The first SAMPLE_TITLES ready documents in ingestion order. */
  titles: { id: string; title: string }[];
  /** The first LISTED_TABLES tables in ingestion order. */
  tables: DescribedTable[];
  /** Ready documents per media type, most frequent first. */
  formats: { mediaType: string; n: number }[];
}

export const DESCRIPTOR_SAMPLE_TITLES = SAMPLE_TITLES;
export const DESCRIPTOR_LISTED_TABLES = LISTED_TABLES;

const QUERY_HELP = [
  'Native query: {"language": "search", "text": "<free text; words are OR-ed and ranked by BM25, no operators>",',
  ` "filters": {"contentType": "text" | "table", "documentIds": ["<id>"], "sourceObject": "${COLLECTION_UNIT}" | "<document id>" | "<document id>#table-<n>"}}.`,
  'Hits are passages ("Title / section: text") and table rows ("Caption / section / Column: value, …").',
].join("\n");

/**
 * OmniRetrieval's corpus descriptor c_b: what the collection is about (frequent terms, sample titles)
 * and every table with its columns, so a caller can write a search and pick a table. Deterministic:
 * the same content gives the same text and version.
 */
export function buildCollectionDescriptor(db: IndexDb, name: string, counts: CollectionCounts, stats: ContentStats): Descriptor {
  const titles = db.prepare("SELECT id, title FROM documents WHERE status = 'ready' ORDER BY rowid LIMIT ?").all(SAMPLE_TITLES) as {
    id: string;
    title: string;
  }[];
  const tables = (
    db
      .prepare(
        `SELECT t.key, t.caption, t.section, t.header, t.row_count, d.title
         FROM doc_tables t JOIN documents d ON d.id = t.document_id ORDER BY d.rowid, t.table_index LIMIT ?`,
      )
      .all(LISTED_TABLES) as { key: string; caption: string; section: string | null; header: string; row_count: number; title: string }[]
  ).map((t) => ({
    key: t.key,
    caption: t.caption,
    section: t.section,
    header: JSON.parse(t.header) as string[],
    rowCount: t.row_count,
    title: t.title,
  }));
  const formats = (
    db
      .prepare(
        "SELECT media_type, count(*) AS n FROM documents WHERE status = 'ready' GROUP BY media_type ORDER BY n DESC, media_type DESC",
      )
      .all() as { media_type: string; n: number }[]
  ).map((r) => ({ mediaType: r.media_type, n: r.n }));
  return composeCollectionDescriptor(name, { counts, stats, titles, tables, formats });
}

/** The descriptor text from what was read of the collection (pure: the same input gives the same text and version). */
export function composeCollectionDescriptor(name: string, input: DescriptorInput): Descriptor {
  const { counts, stats, titles, tables } = input;
  const header = `Document collection "${name}": ${count(counts.documents, "document")}, ${count(counts.chunks, "passage")}, ${count(counts.tables, "table")} (${count(counts.tableRows, "table row")}).`;
  const terms = stats.terms.map((t) => t.term);
  const tableLine = (t: DescribedTable) =>
    `- ${t.key}: "${t.caption}"${t.section ? ` [section: ${t.section}]` : ""}${t.caption === t.title ? "" : ` in "${t.title}"`}; columns: ${t.header.join(", ")}; ${count(t.rowCount, "row")}`;

  const lines = [
    header,
    `Formats: ${input.formats.map((f) => `${f.mediaType} ${f.n}`).join(", ") || "none"}.`,
    `Frequent terms: ${terms.join(", ") || "(none)"}.`,
    counts.documents > 0 ? `Documents (${Math.min(SAMPLE_TITLES, counts.documents)} of ${counts.documents}):` : "No documents yet.",
    ...titles.map((t) => `- ${t.id}: ${t.title}`),
  ];
  if (counts.tables > 0) {
    lines.push(`Tables (${counts.tables}):`, ...tables.map(tableLine));
    if (counts.tables > tables.length) lines.push(`… ${counts.tables - tables.length} more tables.`);
  }
  lines.push(QUERY_HELP);
  const text = boundText(lines.join("\n"), DESCRIPTOR_MAX_CHARS);

  const compactLines = [header, `About: ${terms.slice(0, 15).join(", ") || "(no text)"}.`];
  if (counts.tables > 0) {
    compactLines.push(
      `Tables: ${tables
        .slice(0, COMPACT_TABLES)
        .map((t) => `${t.key} "${t.caption}"`)
        .join("; ")}${counts.tables > COMPACT_TABLES ? `; … ${counts.tables - COMPACT_TABLES} more` : ""}.`,
    );
  }
  const compact = boundText(compactLines.join("\n"), COMPACT_MAX_CHARS);

  return {
    text,
    compact,
    version: descriptorVersion(text),
    stats: {
      documents: counts.documents,
      chunks: counts.chunks,
      tables: counts.tables,
      tableRows: counts.tableRows,
      failedDocuments: counts.failedDocuments,
    },
  };
}
