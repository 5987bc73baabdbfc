import { parseCsv } from "./csv";
import { type DocumentFormat, detectFormat, titleFromName } from "./formats";
import { parseHtml } from "./html";
import { parseJson } from "./json";
import { parseMarkdown } from "./markdown";
import { parsePdf } from "./pdf";
import { parseText } from "./text";
import { DocumentParseError, type ParsedDocument } from "./types";

export { DocumentParseError };

function decodeText(bytes: Buffer): string {
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw new DocumentParseError(`not UTF-8 text (save it as UTF-8 and upload it again)`);
  }
}

/**
 * Reads one uploaded file into the format-independent document shape, or throws DocumentParseError.
 * In this thread: only the parse process (parse-child.mjs) calls it; the server uses parseDocument().
 */
export async function readDocument(file: {
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
