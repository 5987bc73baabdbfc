import type { AssembledDocument } from "./assembled";
import type { IndexDb } from "./index-db";
import type { DocumentToCommit } from "./store";
import type { Scalar } from "../types";

/** The stored documents of a SQLite collection, rebuilt as the writer takes them, in ingestion order (the move and the workspace export read them). */
export function* storedDocuments(
  db: IndexDb,
): Generator<{ input: DocumentToCommit } | { failed: { sourceName: string; mediaType: string; contentHash: string; error: string } }> {
  const chunksOf = db.prepare(
    "SELECT chunk_index, section, text, start_offset, end_offset, first_sentence_index, sentences, location FROM chunks WHERE document_id = ? ORDER BY chunk_index",
  );
  const tablesOf = db.prepare(
    "SELECT table_index, caption, section, position, header, rows, metadata FROM doc_tables WHERE document_id = ? ORDER BY table_index",
  );
  const docs = db
    .prepare("SELECT id, title, source_name, media_type, content_hash, status, error, text, metadata FROM documents ORDER BY rowid")
    .all() as {
    id: string;
    title: string;
    source_name: string;
    media_type: string;
    content_hash: string;
    status: string;
    error: string | null;
    text: string;
    metadata: string;
  }[];
  for (const d of docs) {
    if (d.status !== "ready") {
      yield {
        failed: { sourceName: d.source_name, mediaType: d.media_type, contentHash: d.content_hash, error: d.error ?? "could not be read" },
      };
      continue;
    }
    const document: AssembledDocument = {
      title: d.title,
      text: d.text,
      metadata: JSON.parse(d.metadata) as Record<string, Scalar | Scalar[]>,
      chunks: (
        chunksOf.all(d.id) as {
          chunk_index: number;
          section: string | null;
          text: string;
          start_offset: number;
          end_offset: number;
          first_sentence_index: number;
          sentences: string;
          location: string;
        }[]
      ).map((c) => ({
        chunkIndex: c.chunk_index,
        section: c.section,
        text: c.text,
        start: c.start_offset,
        end: c.end_offset,
        firstSentenceIndex: c.first_sentence_index,
        sentences: JSON.parse(c.sentences) as string[],
        location: JSON.parse(c.location) as Record<string, Scalar>,
      })),
      tables: (
        tablesOf.all(d.id) as {
          table_index: number;
          caption: string;
          section: string | null;
          position: number;
          header: string;
          rows: string;
          metadata: string;
        }[]
      ).map((t) => ({
        tableIndex: t.table_index,
        caption: t.caption,
        section: t.section,
        position: t.position,
        header: JSON.parse(t.header) as string[],
        rows: JSON.parse(t.rows) as Scalar[][],
        metadata: JSON.parse(t.metadata) as Record<string, Scalar | Scalar[]>,
      })),
    };
    yield { input: { preferredId: d.id, sourceName: d.source_name, mediaType: d.media_type, contentHash: d.content_hash, document } };
  }
}
