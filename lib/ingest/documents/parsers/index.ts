import path from "node:path";
import { parseCsv } from "./csv";
import { parseHtml } from "./html";
import { parseJson } from "./json";
import { parseMarkdown } from "./markdown";
import { parsePdf } from "./pdf";
import { parseText } from "./text";
import { DocumentParseError, type ParsedDocument } from "./types";

export { DocumentParseError, type ParsedDocument, type ParsedTable, type TextBlock } from "./types";

export const DOCUMENT_FORMATS = ["txt", "md", "html", "pdf", "csv", "json"] as const;
export type DocumentFormat = (typeof DOCUMENT_FORMATS)[number];

export const MEDIA_TYPES: Record<DocumentFormat, string> = {
  txt: "text/plain",
  md: "text/markdown",
  html: "text/html",
  pdf: "application/pdf",
  csv: "text/csv",
  json: "application/json",
};

const BY_EXTENSION: Record<string, DocumentFormat> = {
  ".txt": "txt",
  ".text": "txt",
  ".md": "md",
  ".markdown": "md",
  ".html": "html",
  ".htm": "html",
  ".pdf": "pdf",
  ".csv": "csv",
  ".json": "json",
};

const BY_MEDIA_TYPE: Record<string, DocumentFormat> = {
  "text/plain": "txt",
  "text/markdown": "md",
  "text/x-markdown": "md",
  "text/html": "html",
  "application/xhtml+xml": "html",
  "application/pdf": "pdf",
  "text/csv": "csv",
  "application/json": "json",
};

/** The declared media type wins over the extension; a PDF signature wins over both (mislabelled uploads). */
export function detectFormat(name: string, bytes: Buffer, mediaType?: string): DocumentFormat | null {
  if (bytes.subarray(0, 5).toString("latin1") === "%PDF-") return "pdf";
  const declared = mediaType ? BY_MEDIA_TYPE[mediaType.split(";")[0].trim().toLowerCase()] : undefined;
  return declared ?? BY_EXTENSION[path.extname(name).toLowerCase()] ?? null;
}

/** "q3-report_final.md" → "q3 report final": the title when the file has none of its own. */
export function titleFromName(name: string): string {
  const base = path.basename(name, path.extname(name)).replace(/[_-]+/g, " ").replace(/\s+/g, " ").trim();
  return base || name;
}

function decodeText(bytes: Buffer): string {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw new DocumentParseError(`not UTF-8 text (save it as UTF-8 and upload it again)`);
  }
}

/** Reads one uploaded file into the format-independent document shape, or throws DocumentParseError. */
export async function parseDocument(file: {
  name: string;
  bytes: Buffer;
  mediaType?: string;
}): Promise<{ format: DocumentFormat; parsed: ParsedDocument }> {
  const { name, bytes } = file;
  if (bytes.length === 0) throw new DocumentParseError(`the file is empty`);
  const format = detectFormat(name, bytes, file.mediaType);
  if (!format) {
    throw new DocumentParseError(`unsupported file type; upload .txt, .md, .html, .pdf, .csv or .json files`);
  }
  const title = titleFromName(name);
  if (format === "pdf") return { format, parsed: await parsePdf(bytes, title) };
  const text = decodeText(bytes);
  switch (format) {
    case "txt":
      return { format, parsed: parseText(text, title) };
    case "md":
      return { format, parsed: parseMarkdown(text, title) };
    case "html":
      return { format, parsed: parseHtml(text, title) };
    case "csv":
      return { format, parsed: parseCsv(text, title) };
    case "json":
      return { format, parsed: parseJson(text, title) };
  }
}
