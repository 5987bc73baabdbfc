import type { Scalar } from "../../../backends/types";

/** A run of prose from a document, in reading order. */
export interface TextBlock {
  text: string;
  /** Nearest heading above the block (markdown/HTML), when the format has headings. */
  section?: string;
  /** Where the block is in the source, kept with every passage made from it (PDF page, TAT-QA paragraph). */
  location?: Record<string, Scalar>;
  /** Sentences given by the source (SciFact abstracts); when present they are kept exactly, not re-split. */
  sentences?: string[];
}

export interface ParsedTable {
  caption?: string;
  section?: string;
  header: string[];
  rows: Scalar[][];
  /** The table sits just before this block (blocks.length: after all text). */
  beforeBlock: number;
  metadata?: Record<string, Scalar | Scalar[]>;
}

/** What every format parser produces; assembling passages and storing them is format-independent. */
export interface ParsedDocument {
  title: string;
  blocks: TextBlock[];
  tables: ParsedTable[];
  metadata?: Record<string, Scalar | Scalar[]>;
}

/** A file the parser cannot read; the message says what is wrong with it (the caller adds the file name). */
export class DocumentParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DocumentParseError";
  }
}
