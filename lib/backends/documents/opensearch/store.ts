import { linearizeRow } from "../../evidence";
import { BackendUnavailableError } from "../../errors";
import { passageHeading, slugId, tableKey, type CommitOutcome, type DocumentToCommit } from "../store";
import { call } from "./connection";
import { documentRecordId, type OpenSearchCollection, UNITS_PER_DOCUMENT } from "./collection";

/**
 * All writes to an OpenSearch collection, with the same outcomes as SQLite's CollectionWriter (added,
 * replaced, skipped; failures listed, a good earlier version kept). OpenSearch has no transaction over
 * several records, so a document becomes visible in one step instead: its passages, rows and tables are
 * written first, tagged with the new content hash (`document_version`), and only then does the
 * document record take that hash. Searches and reads keep units and tables whose version is the
 * record's, so they see the old version or the new one, never a mix, and a crash in between leaves
 * only invisible leftovers, removed by the next write of that document.
 */

export interface DocumentRecord {
  type: "document";
  id: string;
  title: string;
  source_name: string;
  media_type: string;
  content_hash: string;
  status: "ready" | "failed";
  error: string | null;
  text: string;
  ingested_at: string;
  metadata: Record<string, unknown>;
  seq: number;
  /** Sentences of all its passages (what SelectSentenceIdxs numbers). */
  sentence_count: number;
}

export interface TableRecord {
  type: "table";
  key: string;
  document_id: string;
  document_version: string;
  table_index: number;
  caption: string;
  section: string | null;
  position: number;
  header: string[];
  rows: unknown[][];
  row_count: number;
  metadata: Record<string, unknown>;
  seq: number;
}

/** A passage or table row as the units index holds it. */
export interface UnitRecord {
  kind: "chunk" | "row";
  document_id: string;
  document_version: string;
  seq: number;
  search_text: string;
  heading: string;
  body: string;
  title: string;
  section: string | null;
  // passages
  text?: string;
  chunk_index?: number;
  start?: number;
  end?: number;
  first_sentence_index?: number;
  sentences?: string[];
  location?: Record<string, unknown>;
  // table rows
  table_key?: string;
  caption?: string;
  columns?: string[];
  values?: unknown[];
  row_index?: number;
  table_metadata?: Record<string, unknown>;
  vector_model?: string;
}

/** The text BM25 reads: heading and body, as one FTS5 row of SQLite's `search_index` holds them. */
export function searchText(heading: string, body: string): string {
  return heading ? `${heading}\n${body}` : body;
}

const version = (hash: string) => hash.slice(0, 16);

export class OpenSearchCollectionWriter {
  /** Hashes committed by this writer, visible before the next refresh. */
  constructor(private readonly c: OpenSearchCollection) {}

  private async findDocument(
    field: "content_hash" | "source_name",
    value: string,
    readyOnly: boolean,
  ): Promise<DocumentRecord | undefined> {
    const filter: object[] = [{ term: { type: "document" } }, { term: { [field]: value } }];
    if (readyOnly) filter.push({ term: { status: "ready" } });
    const res = await this.c.search<DocumentRecord>(this.c.names.contentAlias, {
      query: { bool: { filter } },
      size: 1,
      _source: { excludes: ["text"] },
    });
    return res.hits.hits[0]?._source;
  }

  private async findDocuments(field: "content_hash" | "source_name", values: string[], readyOnly: boolean): Promise<DocumentRecord[]> {
    const filter: object[] = [{ term: { type: "document" } }, { terms: { [field]: [...new Set(values)] } }];
    if (readyOnly) filter.push({ term: { status: "ready" } });
    const res = await this.c.search<DocumentRecord>(this.c.names.contentAlias, {
      query: { bool: { filter } },
      size: values.length,
      _source: { excludes: ["text"] },
    });
    return res.hits.hits.map((h) => h._source);
  }

  /** Committed document with this exact content, if any (the resumability check). */
  async readyWithHash(contentHash: string): Promise<string | undefined> {
    return (await this.findDocument("content_hash", contentHash, true))?.id;
  }

  async commit(input: DocumentToCommit): Promise<{ outcome: CommitOutcome; documentId: string }> {
    return (await this.commitMany([input]))[0]!;
  }

  /**
   * Stores several documents in a few round trips (dataset loads): one lookup of their hashes and names,
   * one bulk request of their passages, rows and tables, then one of their records (each document's
   * switch), one refresh. Same outcomes as committing them one by one, in order.
   */
  async commitMany(inputs: DocumentToCommit[]): Promise<{ outcome: CommitOutcome; documentId: string }[]> {
    if (!inputs.length) return [];
    if (new Set(inputs.map((i) => i.sourceName)).size < inputs.length) {
      // The same file twice in one batch: the later one replaces the earlier, as one-by-one commits would.
      const out = [];
      for (const input of inputs) out.push(...(await this.commitMany([input])));
      return out;
    }
    const ready = new Map<string, string>();
    for (const d of await this.findDocuments(
      "content_hash",
      inputs.map((i) => i.contentHash),
      true,
    ))
      ready.set(d.content_hash, d.id);
    const bySource = new Map(
      (
        await this.findDocuments(
          "source_name",
          inputs.map((i) => i.sourceName),
          false,
        )
      ).map((d) => [d.source_name, d]),
    );

    const results: { outcome: CommitOutcome; documentId: string }[] = [];
    const planned: { input: DocumentToCommit; id: string; seq: number | null; existing: DocumentRecord | undefined }[] = [];
    const claimed = new Set<string>();
    for (const input of inputs) {
      const duplicate = ready.get(input.contentHash);
      if (duplicate) {
        results.push({ outcome: "skipped", documentId: duplicate });
        continue;
      }
      const existing = bySource.get(input.sourceName);
      const id = existing?.id ?? (await this.freshId(input.preferredId ?? slugId(input.sourceName), claimed));
      claimed.add(id);
      ready.set(input.contentHash, id);
      // A new version of the same file keeps its place in the collection's order, as SQLite keeps its rowid.
      planned.push({ input, id, seq: existing?.seq ?? null, existing });
      results.push({ outcome: existing?.status === "ready" ? "replaced" : "added", documentId: id });
    }
    if (!planned.length) return results;
    const fresh = planned.filter((p) => p.seq === null);
    let next = fresh.length ? (await this.c.nextSeq(fresh.length)) - fresh.length + 1 : 0;
    for (const p of fresh) p.seq = next++;

    const lines: object[] = [];
    const records: object[] = [];
    for (const p of planned) {
      lines.push(...this.contentLines(p.id, version(p.input.contentHash), p.seq!, p.input.document));
      const record: DocumentRecord = {
        type: "document",
        id: p.id,
        title: p.input.document.title,
        source_name: p.input.sourceName,
        media_type: p.input.mediaType,
        content_hash: p.input.contentHash,
        status: "ready",
        error: null,
        text: p.input.document.text,
        ingested_at: new Date().toISOString(),
        metadata: p.input.document.metadata,
        seq: p.seq!,
        sentence_count: p.input.document.chunks.reduce((n, ch) => n + ch.sentences.length, 0),
      };
      records.push({ index: { _index: this.c.names.contentAlias, _id: documentRecordId(p.id) } }, record);
    }
    await this.bulk(lines);
    // The switch: from here on, readers see these versions. Refreshed, so the next duplicate check sees them.
    await this.bulk(records, true);
    await this.c.bumpContentVersion();
    for (const p of planned) if (p.existing) await this.removeOtherVersions(p.id, version(p.input.contentHash));
    return results;
  }

  /** Bulk lines of a document's passages and table rows (units index) and its tables (content index). */
  private contentLines(id: string, v: string, seq: number, doc: DocumentToCommit["document"]): object[] {
    const lines: object[] = [];
    let position = 0;
    const unit = (unitId: string, record: UnitRecord) => lines.push({ index: { _index: this.c.names.unitsAlias, _id: unitId } }, record);
    for (const ch of doc.chunks) {
      const heading = passageHeading(doc.title, ch.section);
      unit(`${id}@${v}#c${ch.chunkIndex}`, {
        kind: "chunk",
        document_id: id,
        document_version: v,
        seq: seq * UNITS_PER_DOCUMENT + position++,
        search_text: searchText(heading, ch.text),
        heading,
        body: ch.text,
        title: doc.title,
        section: ch.section,
        text: ch.text,
        chunk_index: ch.chunkIndex,
        start: ch.start,
        end: ch.end,
        first_sentence_index: ch.firstSentenceIndex,
        sentences: ch.sentences,
        location: ch.location,
      });
    }
    for (const t of doc.tables) {
      const key = tableKey(id, t.tableIndex);
      const table: TableRecord = {
        type: "table",
        key,
        document_id: id,
        document_version: v,
        table_index: t.tableIndex,
        caption: t.caption,
        section: t.section,
        position: t.position,
        header: t.header,
        rows: t.rows,
        row_count: t.rows.length,
        metadata: t.metadata,
        seq: seq * 1000 + t.tableIndex,
      };
      lines.push({ index: { _index: this.c.names.contentAlias, _id: `table:${key}@${v}` } }, table);
      t.rows.forEach((values, rowIndex) => {
        const body = linearizeRow(t.caption, t.section ?? undefined, t.header, values);
        unit(`${id}@${v}#t${t.tableIndex}r${rowIndex}`, {
          kind: "row",
          document_id: id,
          document_version: v,
          seq: seq * UNITS_PER_DOCUMENT + position++,
          search_text: searchText(doc.title, body),
          heading: doc.title,
          body,
          title: doc.title,
          section: t.section,
          table_key: key,
          caption: t.caption,
          columns: t.header,
          values,
          row_index: rowIndex,
          table_metadata: t.metadata,
        });
      });
    }
    return lines;
  }

  /**
   * Remembers a file that could not be read, so the collection can list it. A good earlier version of
   * the same file is kept untouched: a broken re-upload must not destroy searchable content.
   */
  async recordFailure(input: { sourceName: string; mediaType: string; contentHash: string; error: string }): Promise<void> {
    const existing = await this.findDocument("source_name", input.sourceName, false);
    if (existing?.status === "ready") return;
    const id = existing?.id ?? (await this.freshId(slugId(input.sourceName)));
    const record: DocumentRecord = {
      type: "document",
      id,
      title: input.sourceName,
      source_name: input.sourceName,
      media_type: input.mediaType,
      content_hash: input.contentHash,
      status: "failed",
      error: input.error,
      text: "",
      ingested_at: new Date().toISOString(),
      metadata: {},
      seq: existing?.seq ?? (await this.c.nextSeq()),
      sentence_count: 0,
    };
    await call(this.c.conn, "PUT", `/${this.c.names.contentAlias}/_doc/${encodeURIComponent(documentRecordId(id))}`, record, {
      querystring: { refresh: "true" },
    });
  }

  /**
   * Removes a document: its record first, which hides its passages, rows and tables from every reader
   * at once (they are read only at the record's version), then those parts. A crash in between leaves
   * invisible parts that the next removal or write of that id deletes. False: no document has this id.
   */
  async remove(documentId: string): Promise<boolean> {
    const res = await call(
      this.c.conn,
      "DELETE",
      `/${this.c.names.contentAlias}/_doc/${encodeURIComponent(documentRecordId(documentId))}`,
      undefined,
      { ignore: [404], querystring: { refresh: "true" } },
    );
    const found = res.status !== 404;
    await call(
      this.c.conn,
      "POST",
      `/${this.c.names.unitsAlias},${this.c.names.contentAlias}/_delete_by_query`,
      { query: { bool: { filter: [{ term: { document_id: documentId } }] } } },
      { querystring: { conflicts: "proceed", refresh: "true" } },
    );
    if (found) await this.c.bumpContentVersion();
    return found;
  }

  /** An id no stored document has (nor one already `claimed` in the same batch). */
  private async freshId(base: string, claimed: Set<string> = new Set()): Promise<string> {
    let id = base;
    for (let n = 2; ; n++) {
      if (!claimed.has(id)) {
        const res = await call(
          this.c.conn,
          "HEAD",
          `/${this.c.names.contentAlias}/_doc/${encodeURIComponent(documentRecordId(id))}`,
          undefined,
          { ignore: [404] },
        );
        if (res.status === 404) return id;
      }
      id = `${base}-${n}`;
    }
  }

  private async bulk(lines: object[], refresh = false): Promise<void> {
    // Bounded requests: a document with a very large table (or a large batch) is sent in parts.
    for (let i = 0; i < lines.length; i += 2_000) {
      const res = await call<{ errors: boolean; items: Record<string, { error?: { type?: string; reason?: string } }>[] }>(
        this.c.conn,
        "POST",
        "/_bulk",
        undefined,
        {
          bulkBody: lines.slice(i, i + 2_000),
          querystring: refresh ? { refresh: "true" } : undefined,
        },
      );
      if (res.body.errors) {
        const failed = res.body.items.map((item) => Object.values(item)[0]?.error).find(Boolean);
        throw new BackendUnavailableError(
          `OpenSearch at ${this.c.conn.url} did not store part of the document: ${failed?.type ?? "error"}${failed?.reason ? ` (${failed.reason})` : ""}.`,
        );
      }
    }
  }

  /** Units and tables of the document's earlier versions, and leftovers of an interrupted write. */
  private async removeOtherVersions(documentId: string, keep: string): Promise<void> {
    const query = { bool: { filter: [{ term: { document_id: documentId } }], must_not: [{ term: { document_version: keep } }] } };
    await call(
      this.c.conn,
      "POST",
      `/${this.c.names.unitsAlias},${this.c.names.contentAlias}/_delete_by_query`,
      { query },
      { querystring: { conflicts: "proceed", refresh: "true" } },
    );
  }
}
