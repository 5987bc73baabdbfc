import type { AssembledChunk, AssembledDocument, ChunkingSettings } from "../../backends/documents/assembled";
import type { Scalar } from "../../backends/types";
import { chunkSentences } from "./chunking";
import type { ParsedDocument, ParsedTable, TextBlock } from "./parsers/types";
import { normalizeWhitespace, splitSentences, type SentenceSpan } from "../../backends/documents/sentences";

const BLOCK_SEPARATOR = "\n\n";

interface PlacedBlock {
  block: TextBlock;
  start: number;
  sentences: SentenceSpan[];
}

/**
 * The document text is its blocks (whitespace-normalized) joined by blank lines; passages never cross
 * a change of section or location, so each passage has one heading and one page/paragraph.
 */
export function assembleDocument(parsed: ParsedDocument, settings: ChunkingSettings): AssembledDocument {
  const title = normalizeWhitespace(parsed.title) || "Untitled document";
  const placed: PlacedBlock[] = [];
  const blockStarts: number[] = [];
  let text = "";
  for (const block of parsed.blocks) {
    const body = block.sentences ? block.sentences.map(normalizeWhitespace).join(" ") : normalizeWhitespace(block.text);
    if (!body) {
      blockStarts.push(text.length);
      continue;
    }
    const start = text.length === 0 ? 0 : text.length + BLOCK_SEPARATOR.length;
    text = text.length === 0 ? body : text + BLOCK_SEPARATOR + body;
    blockStarts.push(start);
    const sentences = block.sentences
      ? givenSentenceSpans(block.sentences, start)
      : splitSentences(body, settings.language, settings.chunkMaxChars * 3).map((s) => ({
          ...s,
          start: s.start + start,
          end: s.end + start,
        }));
    placed.push({ block, start, sentences });
  }

  const chunks: AssembledChunk[] = [];
  let sentenceIndex = 0;
  for (const segment of segmentsOf(placed)) {
    const sentences = segment.flatMap((p) => p.sentences);
    const first = segment[0].block;
    for (const chunk of chunkSentences(sentences, settings.chunkMaxChars)) {
      chunks.push({
        chunkIndex: chunks.length,
        section: first.section ? normalizeWhitespace(first.section) || null : null,
        text: text.slice(chunk.start, chunk.end),
        start: chunk.start,
        end: chunk.end,
        firstSentenceIndex: sentenceIndex + chunk.firstSentence,
        sentences: chunk.sentences.map((s) => s.text),
        location: first.location ?? {},
      });
    }
    sentenceIndex += sentences.length;
  }

  const tables = parsed.tables
    .flatMap((t) => {
      const normalized = normalizeTable(t);
      return normalized ? [normalized] : [];
    })
    .map((t, i) => ({
      tableIndex: i,
      caption: t.caption || `Table ${i + 1} of ${title}`,
      section: t.section,
      position: blockStarts[t.beforeBlock] ?? text.length,
      header: t.header,
      rows: t.rows,
      metadata: t.metadata,
    }));

  return { title, text, chunks, tables, metadata: parsed.metadata ?? {} };
}

/**
 * Given sentences (SciFact) keep their positions even when one is blank after trimming, because gold
 * evidence refers to sentences by index.
 */
function givenSentenceSpans(sentences: string[], blockStart: number): SentenceSpan[] {
  const spans: SentenceSpan[] = [];
  let offset = blockStart;
  sentences.forEach((raw, i) => {
    const s = normalizeWhitespace(raw);
    if (i > 0) offset += 1; // the joining space
    spans.push({ text: s, start: offset, end: offset + s.length });
    offset += s.length;
  });
  return spans;
}

function segmentsOf(placed: PlacedBlock[]): PlacedBlock[][] {
  const segments: PlacedBlock[][] = [];
  let key: string | null = null;
  for (const p of placed) {
    const k = JSON.stringify([p.block.section ?? null, p.block.location ?? null]);
    if (k !== key || segments.length === 0) segments.push([]);
    segments[segments.length - 1].push(p);
    key = k;
  }
  return segments;
}

function normalizeCell(v: Scalar | undefined): Scalar {
  if (v === undefined || v === null) return null;
  if (typeof v === "string") {
    const s = normalizeWhitespace(v);
    return s === "" ? null : s;
  }
  return v;
}

/** Gives every column a distinct, non-empty name and every row the header's width; drops empty rows. */
function normalizeTable(t: ParsedTable) {
  const width = Math.max(t.header.length, ...t.rows.map((r) => r.length), 0);
  if (width === 0) return null;
  const seen = new Map<string, number>();
  const named = t.header.map((h) => normalizeWhitespace(h ?? ""));
  // Financial and report tables leave the row-label column unnamed while naming the others.
  const labelColumn = !named[0] && named.slice(1).some(Boolean) ? "Item" : "";
  const header = Array.from({ length: width }, (_, j) => {
    const name = named[j] || (j === 0 && labelColumn) || `Column ${j + 1}`;
    const n = (seen.get(name) ?? 0) + 1;
    seen.set(name, n);
    return n === 1 ? name : `${name} (${n})`;
  });
  const rows = t.rows.map((r) => Array.from({ length: width }, (_, j) => normalizeCell(r[j]))).filter((r) => r.some((v) => v !== null));
  if (rows.length === 0 && t.header.every((h) => !normalizeWhitespace(h ?? ""))) return null;
  return {
    caption: t.caption ? normalizeWhitespace(t.caption) || undefined : undefined,
    section: t.section ? normalizeWhitespace(t.section) || null : null,
    header,
    rows,
    beforeBlock: t.beforeBlock,
    metadata: t.metadata ?? {},
  };
}
