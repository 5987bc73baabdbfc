import { createHash } from "node:crypto";

/** Descriptors are bounded so a catalog of hundreds of KBs fits a prompt or a BM25 index. */
export const DESCRIPTOR_MAX_CHARS = 24_000;
export const COMPACT_MAX_CHARS = 4_000;

export function descriptorVersion(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 16);
}

/** Cuts at a line boundary and says how much was left out, so a reader knows the text is partial. */
export function boundText(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const cut = text.lastIndexOf("\n", maxChars - 80);
  const kept = text.slice(0, cut > 0 ? cut : maxChars - 80);
  const omittedLines = text.slice(kept.length).split("\n").filter(Boolean).length;
  return `${kept}\n… (${omittedLines} more lines omitted)`;
}
