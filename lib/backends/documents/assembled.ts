import type { Scalar } from "../types";

/** What a collection stores for one document, whichever engine holds it: ingestion (lib/ingest/documents) builds it. */

export interface ChunkingSettings {
  language: string;
  chunkMaxChars: number;
}

export interface AssembledChunk {
  chunkIndex: number;
  section: string | null;
  text: string;
  start: number;
  end: number;
  firstSentenceIndex: number;
  sentences: string[];
  location: Record<string, Scalar>;
}

export interface AssembledTable {
  tableIndex: number;
  caption: string;
  section: string | null;
  /** Character offset in the document text where the table stands. */
  position: number;
  header: string[];
  rows: Scalar[][];
  metadata: Record<string, Scalar | Scalar[]>;
}

/** A document ready to store: its normalized text, its passages (offsets into that text) and its tables. */
export interface AssembledDocument {
  title: string;
  text: string;
  chunks: AssembledChunk[];
  tables: AssembledTable[];
  metadata: Record<string, Scalar | Scalar[]>;
}
