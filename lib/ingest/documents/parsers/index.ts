import { documentParsePool, type UploadToParse } from "./parse-process";
import type { DocumentFormat } from "./formats";
import type { ParsedDocument } from "./types";

export { DOCUMENT_FORMATS, MEDIA_TYPES, detectFormat, titleFromName, type DocumentFormat } from "./formats";
export { DOCUMENT_LIMITS } from "./limits";
export { DEFAULT_PARSE_BUDGET, DocumentParsePool, UnreadableUploadError, type ParseBudget } from "./parse-process";
export { DocumentParseError, type ParsedDocument, type ParsedTable, type TextBlock } from "./types";

/**
 * Reads one uploaded file into the format-independent document shape, in a helper process with a
 * time and memory budget (parse-process.ts); a file that cannot be read rejects with UnreadableUploadError.
 */
export function parseDocument(file: UploadToParse): Promise<{ format: DocumentFormat; parsed: ParsedDocument }> {
  return documentParsePool().parse(file);
}
