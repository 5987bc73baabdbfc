import type Database from "better-sqlite3";
import { linearizeRow } from "../evidence";
import type { AssembledDocument } from "./assembled";
import type { IndexDb } from "./index-db";

export type CommitOutcome = "added" | "replaced" | "skipped";

export interface DocumentToCommit {
  /** Wanted id (dataset ids such as SciFact's doc_id); uploads get one derived from the file name. */
  preferredId?: string;
  sourceName: string;
  mediaType: string;
  contentHash: string;
  document: AssembledDocument;
}

export function tableKey(documentId: string, tableIndex: number): string {
  return `${documentId}#table-${tableIndex + 1}`;
}

/** "Q3 Report (final).pdf" → "q3-report-final-pdf": readable ids that survive in URLs and source object keys. */
export function slugId(name: string): string {
  const slug = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 80);
  return slug || "document";
}

/** Heading of a passage in the search index: what BM25 matches besides the passage itself. */
export function passageHeading(title: string, section: string | null): string {
  return section ? `${title} / ${section}` : title;
}

/**
 * All writes to a collection go through here. Callers wrap calls in a transaction (one per uploaded
 * document, one per batch for dataset loaders), so a crash leaves only whole documents behind.
 */
export class CollectionWriter {
  private readonly s: Record<string, Database.Statement>;

  constructor(db: IndexDb) {
    const p = (sql: string) => db.prepare(sql);
    this.s = {
      readyByHash: p("SELECT id FROM documents WHERE content_hash = ? AND status = 'ready' LIMIT 1"),
      bySource: p("SELECT id, status FROM documents WHERE source_name = ?"),
      idTaken: p("SELECT 1 FROM documents WHERE id = ?"),
      insertDocument: p(
        `INSERT INTO documents (id, title, source_name, media_type, content_hash, status, error, text, ingested_at, metadata)
         VALUES (@id, @title, @sourceName, @mediaType, @contentHash, @status, @error, @text, @ingestedAt, @metadata)`,
      ),
      updateDocument: p(
        `UPDATE documents SET title = @title, media_type = @mediaType, content_hash = @contentHash, status = @status,
           error = @error, text = @text, ingested_at = @ingestedAt, metadata = @metadata WHERE id = @id`,
      ),
      insertChunk: p(
        `INSERT INTO chunks (document_id, chunk_index, section, text, start_offset, end_offset, first_sentence_index, sentences, location)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      insertTable: p(
        `INSERT INTO doc_tables (key, document_id, table_index, caption, section, position, header, rows, row_count, metadata)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      insertSearchRow: p("INSERT INTO search_rows (kind, document_id, chunk_id, table_id, row_index) VALUES (?, ?, ?, ?, ?)"),
      insertFts: p("INSERT INTO search_index (rowid, heading, body) VALUES (?, ?, ?)"),
      deleteFts: p("DELETE FROM search_index WHERE rowid IN (SELECT rowid FROM search_rows WHERE document_id = ?)"),
      deleteSearchRows: p("DELETE FROM search_rows WHERE document_id = ?"),
      deleteVectors: p("DELETE FROM search_vectors WHERE rowid IN (SELECT rowid FROM search_rows WHERE document_id = ?)"),
      deleteChunks: p("DELETE FROM chunks WHERE document_id = ?"),
      deleteTables: p("DELETE FROM doc_tables WHERE document_id = ?"),
      deleteDocument: p("DELETE FROM documents WHERE id = ?"),
      // Bumped in every committing transaction, so cached statistics know when they are stale.
      bumpContentVersion: p("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'content_version'"),
    };
  }

  /** Committed document with this exact content, if any (the resumability check). */
  readyWithHash(contentHash: string): string | undefined {
    return (this.s.readyByHash.get(contentHash) as { id: string } | undefined)?.id;
  }

  /** Stores a document with its passages, tables and search rows; skips content already stored. */
  commit(input: DocumentToCommit): { outcome: CommitOutcome; documentId: string } {
    const duplicate = this.readyWithHash(input.contentHash);
    if (duplicate) return { outcome: "skipped", documentId: duplicate };
    const existing = this.s.bySource.get(input.sourceName) as { id: string; status: string } | undefined;
    const doc = input.document;
    const row = {
      id: existing?.id ?? this.freshId(input.preferredId ?? slugId(input.sourceName)),
      title: doc.title,
      sourceName: input.sourceName,
      mediaType: input.mediaType,
      contentHash: input.contentHash,
      status: "ready",
      error: null,
      text: doc.text,
      ingestedAt: new Date().toISOString(),
      metadata: JSON.stringify(doc.metadata),
    };
    if (existing) {
      // A new version of the same file replaces the old one; its id (and source object keys) stay.
      this.deleteContent(existing.id);
      this.s.updateDocument.run(row);
    } else {
      this.s.insertDocument.run(row);
    }
    this.writeContent(row.id, doc);
    this.s.bumpContentVersion.run();
    return { outcome: existing?.status === "ready" ? "replaced" : "added", documentId: row.id };
  }

  /**
   * Remembers a file that could not be read, so the collection can list it. A good earlier version of
   * the same file is kept untouched: a broken re-upload must not destroy searchable content.
   */
  recordFailure(input: { sourceName: string; mediaType: string; contentHash: string; error: string }): void {
    const existing = this.s.bySource.get(input.sourceName) as { id: string; status: string } | undefined;
    if (existing?.status === "ready") return;
    const row = {
      id: existing?.id ?? this.freshId(slugId(input.sourceName)),
      title: input.sourceName,
      sourceName: input.sourceName,
      mediaType: input.mediaType,
      contentHash: input.contentHash,
      status: "failed",
      error: input.error,
      text: "",
      ingestedAt: new Date().toISOString(),
      metadata: "{}",
    };
    if (existing) this.s.updateDocument.run(row);
    else this.s.insertDocument.run(row);
  }

  /**
   * Removes a document and everything stored for it (passages, tables, search rows, vectors), whether it
   * was read or listed as unreadable. Returns false when the collection holds no document with this id.
   */
  remove(documentId: string): boolean {
    if (!this.s.idTaken.get(documentId)) return false;
    this.deleteContent(documentId);
    this.s.deleteDocument.run(documentId);
    this.s.bumpContentVersion.run();
    return true;
  }

  private freshId(base: string): string {
    let id = base;
    for (let n = 2; this.s.idTaken.get(id); n++) id = `${base}-${n}`;
    return id;
  }

  private deleteContent(documentId: string): void {
    // Vectors and FTS rows are found through search_rows, so they go first.
    this.s.deleteVectors.run(documentId);
    this.s.deleteFts.run(documentId);
    this.s.deleteSearchRows.run(documentId);
    this.s.deleteChunks.run(documentId);
    this.s.deleteTables.run(documentId);
  }

  private addSearchRow(
    kind: "chunk" | "row",
    documentId: string,
    ref: { chunkId?: number; tableId?: number; rowIndex?: number },
    heading: string,
    body: string,
  ) {
    const rowid = this.s.insertSearchRow.run(
      kind,
      documentId,
      ref.chunkId ?? null,
      ref.tableId ?? null,
      ref.rowIndex ?? null,
    ).lastInsertRowid;
    this.s.insertFts.run(rowid, heading, body);
  }

  private writeContent(documentId: string, doc: AssembledDocument): void {
    for (const c of doc.chunks) {
      const chunkId = Number(
        this.s.insertChunk.run(
          documentId,
          c.chunkIndex,
          c.section,
          c.text,
          c.start,
          c.end,
          c.firstSentenceIndex,
          JSON.stringify(c.sentences),
          JSON.stringify(c.location),
        ).lastInsertRowid,
      );
      this.addSearchRow("chunk", documentId, { chunkId }, passageHeading(doc.title, c.section), c.text);
    }
    for (const t of doc.tables) {
      const tableId = Number(
        this.s.insertTable.run(
          tableKey(documentId, t.tableIndex),
          documentId,
          t.tableIndex,
          t.caption,
          t.section,
          t.position,
          JSON.stringify(t.header),
          JSON.stringify(t.rows),
          t.rows.length,
          JSON.stringify(t.metadata),
        ).lastInsertRowid,
      );
      t.rows.forEach((values, rowIndex) => {
        this.addSearchRow(
          "row",
          documentId,
          { tableId, rowIndex },
          doc.title,
          linearizeRow(t.caption, t.section ?? undefined, t.header, values),
        );
      });
    }
  }
}
