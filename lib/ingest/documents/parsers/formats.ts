import path from "node:path";

/** Which parser reads an upload: decided in the server (cheap), the reading itself happens in the parse process. */
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
