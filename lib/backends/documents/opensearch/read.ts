import type { Scalar } from "../../types";
import type { CollectionCounts, StatsDocument } from "../collection-stats";
import type { StoredDocument, StoredTable } from "../content-access";
import { scalarEntries } from "../records";
import { documentRecordId, type OpenSearchCollection } from "./collection";
import type { DocumentRecord, TableRecord, UnitRecord } from "./store";

/**
 * Reads of an OpenSearch collection in the shapes the engine-neutral builders take (descriptor,
 * source units, entity index, statistics, previews, retrieval actions). Tables and passages count only
 * in the version their document record holds (see store.ts).
 */

const READY_DOCUMENTS = { bool: { filter: [{ term: { type: "document" } }, { term: { status: "ready" } }] } };
const versionOf = (d: Pick<DocumentRecord, "content_hash">) => d.content_hash.slice(0, 16);

export interface OutlineDocument {
  id: string;
  title: string;
  mediaType: string;
  version: string;
  sentences: number;
}

export interface OutlineTable extends StoredTable {
  documentMediaType: string;
}

/** The ready documents and their tables in ingestion order: what the catalog views are built from. */
export interface CollectionOutline {
  counts: CollectionCounts;
  documents: OutlineDocument[];
  tables: OutlineTable[];
}

export async function readOutline(c: OpenSearchCollection): Promise<CollectionOutline> {
  const documents: OutlineDocument[] = [];
  for await (const hit of c.scan<DocumentRecord>(
    c.names.contentAlias,
    READY_DOCUMENTS,
    [{ seq: "asc" }],
    ["id", "title", "media_type", "content_hash", "sentence_count"],
  )) {
    const d = hit._source;
    documents.push({ id: d.id, title: d.title, mediaType: d.media_type, version: versionOf(d), sentences: d.sentence_count ?? 0 });
  }
  const byId = new Map(documents.map((d) => [d.id, d]));
  const tables: OutlineTable[] = [];
  for await (const hit of c.scan<TableRecord>(c.names.contentAlias, { term: { type: "table" } }, [{ seq: "asc" }], { excludes: [] })) {
    const doc = byId.get(hit._source.document_id);
    if (doc && doc.version === hit._source.document_version)
      tables.push({ ...storedTable(hit._source, doc.title), documentMediaType: doc.mediaType });
  }
  const [failedDocuments, chunks] = await Promise.all([
    c.count(c.names.contentAlias, { bool: { filter: [{ term: { type: "document" } }, { term: { status: "failed" } }] } }),
    c.count(c.names.unitsAlias, { term: { kind: "chunk" } }),
  ]);
  return {
    counts: {
      documents: documents.length,
      failedDocuments,
      chunks,
      tables: tables.length,
      tableRows: tables.reduce((n, t) => n + t.rows.length, 0),
    },
    documents,
    tables,
  };
}

/**
 * The collection's size from counts alone (a health check must not read every document). Tables of a
 * version being switched on at this moment may count twice for an instant; nothing else differs from
 * the outline's counts.
 */
export async function quickCounts(c: OpenSearchCollection): Promise<CollectionCounts> {
  const [documents, failedDocuments, chunks, tables] = await Promise.all([
    c.count(c.names.contentAlias, READY_DOCUMENTS),
    c.count(c.names.contentAlias, { bool: { filter: [{ term: { type: "document" } }, { term: { status: "failed" } }] } }),
    c.count(c.names.unitsAlias, { term: { kind: "chunk" } }),
    c.search<never>(c.names.contentAlias, {
      query: { term: { type: "table" } },
      size: 0,
      track_total_hits: true,
      aggs: { rows: { sum: { field: "row_count" } } },
    }),
  ]);
  return { documents, failedDocuments, chunks, tables: tables.hits.total?.value ?? 0, tableRows: tables.aggregations?.rows?.value ?? 0 };
}

function storedTable(t: TableRecord, documentTitle: string): StoredTable {
  return {
    key: t.key,
    documentId: t.document_id,
    documentTitle,
    tableIndex: t.table_index,
    caption: t.caption,
    section: t.section,
    position: t.position,
    header: t.header,
    rows: t.rows as Scalar[][],
    metadata: scalarEntries(t.metadata),
  };
}

/** Each ready document's prose with its tables' captions and headers, for the content statistics. */
export async function* statsDocuments(c: OpenSearchCollection, outline: CollectionOutline): AsyncGenerator<StatsDocument> {
  const tablesOf = new Map<string, { caption: string; header: string[] }[]>();
  for (const t of outline.tables)
    tablesOf.set(t.documentId, [...(tablesOf.get(t.documentId) ?? []), { caption: t.caption, header: t.header }]);
  for await (const hit of c.scan<DocumentRecord>(c.names.contentAlias, READY_DOCUMENTS, [{ seq: "asc" }], ["id", "title", "text"], 200)) {
    yield { id: hit._source.id, title: hit._source.title, text: hit._source.text, tables: tablesOf.get(hit._source.id) ?? [] };
  }
}

export async function loadDocumentRecord(c: OpenSearchCollection, id: string): Promise<(StoredDocument & { version: string }) | null> {
  const d = (
    await c.getContent<DocumentRecord>([documentRecordId(id)], ["id", "title", "source_name", "media_type", "status", "content_hash"])
  ).get(documentRecordId(id));
  return d && d.status === "ready"
    ? { id: d.id, title: d.title, sourceName: d.source_name, mediaType: d.media_type, version: versionOf(d) }
    : null;
}

export async function loadTableRecord(c: OpenSearchCollection, key: string): Promise<StoredTable | null> {
  const res = await c.search<TableRecord>(c.names.contentAlias, {
    query: { bool: { filter: [{ term: { type: "table" } }, { term: { key } }] } },
    size: 10,
  });
  for (const hit of res.hits.hits) {
    const doc = await loadDocumentRecord(c, hit._source.document_id);
    if (doc && doc.version === hit._source.document_version) return storedTable(hit._source, doc.title);
  }
  return null;
}

/** The document's passages' sentences in order (sentence i = PassageData.firstSentenceIndex numbering). */
export async function documentSentencesOf(c: OpenSearchCollection, documentId: string, onlyFirstPassage = false): Promise<string[]> {
  const doc = await loadDocumentRecord(c, documentId);
  if (!doc) return [];
  const query = {
    bool: { filter: [{ term: { kind: "chunk" } }, { term: { document_id: documentId } }, { term: { document_version: doc.version } }] },
  };
  const out: string[] = [];
  for await (const hit of c.scan<Pick<UnitRecord, "sentences">>(c.names.unitsAlias, query, [{ chunk_index: "asc" }], ["sentences"])) {
    out.push(...(hit._source.sentences ?? []));
    if (onlyFirstPassage) break;
  }
  return out;
}
