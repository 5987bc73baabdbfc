import type { ParsedDocument } from "./types";

/** A first paragraph that is one short line without closing punctuation reads as the document's title. */
function titleLine(paragraph: string | undefined): string | undefined {
  if (!paragraph || paragraph.includes("\n") || paragraph.length > 120) return undefined;
  return /[.!?:;,]$/.test(paragraph) ? undefined : paragraph;
}

/** Plain text: paragraphs are separated by blank lines; wrapped lines inside a paragraph are joined later. */
export function parseText(source: string, fallbackTitle: string): ParsedDocument {
  const paragraphs = source
    .split(/\r?\n\s*\r?\n/)
    .map((p) => p.trim())
    .filter((p) => p.length > 0);
  const title = titleLine(paragraphs[0]);
  // The title line is searchable as every passage's heading; as text it would only repeat itself.
  const body = title ? paragraphs.slice(1) : paragraphs;
  return { title: title ?? fallbackTitle, blocks: body.map((text) => ({ text })), tables: [] };
}
