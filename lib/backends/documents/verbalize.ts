import { passVector } from "../../models/known-vectors";
import { evidenceId, formatScalar, linearizeRow } from "../evidence";
import type { BackendContext, EvidencePiece, PassageData, RawResult, RowData, Scalar } from "../types";
import { capitalizedSpans } from "./entity-spans";
import { isSearchRecord, type PassageRecord, type TableRowRecord } from "./records";

const MAX_ENTITIES = 12;

function unique(values: string[]): string[] {
  return [...new Set(values.map((v) => v.trim()).filter((v) => v.length > 1))].slice(0, MAX_ENTITIES);
}

/** "Title / Section: passage text": the heading tells a reader (and the re-ranker) where the passage is from. */
export function passageText(r: Pick<PassageRecord, "documentTitle" | "section" | "text">): string {
  const heading = r.section ? `${r.documentTitle} / ${r.section}` : r.documentTitle;
  return `${heading}: ${r.text}`;
}

function isNumberLike(v: string): boolean {
  return /^[\s$€£¥%()+\-.,\d]*$/.test(v);
}

function passagePiece(ctx: BackendContext, r: PassageRecord, query: string, language: string): EvidencePiece {
  const location: Record<string, Scalar> = { document: r.documentId, chunk: r.chunkIndex, ...r.location };
  const data: PassageData = {
    documentId: r.documentId,
    documentTitle: r.documentTitle,
    chunkIndex: r.chunkIndex,
    start: r.start,
    end: r.end,
    sentences: r.sentences,
    firstSentenceIndex: r.firstSentenceIndex,
    engineScore: r.score,
  };
  return {
    id: evidenceId(ctx.kbId, "passage", location),
    kind: "passage",
    text: passageText(r),
    provenance: { kb: ctx.kbId, kbName: ctx.kbName, sourceObject: r.sourceObject, query, language: "search", location },
    entities: unique([...capitalizedSpans(r.documentTitle, language, 4), ...capitalizedSpans(r.text, language, MAX_ENTITIES)]),
    data,
  };
}

function rowPiece(ctx: BackendContext, r: TableRowRecord, query: string, language: string): EvidencePiece {
  const location: Record<string, Scalar> = { document: r.documentId, table: r.tableKey, row: r.rowIndex, ...r.tableMetadata };
  const data: RowData = {
    table: r.caption,
    section: r.section ?? undefined,
    columns: r.columns,
    values: r.values,
    rowIndex: r.rowIndex,
    engineScore: r.score,
  };
  // The row label (first non-numeric cell) is what a question names: "Total sales", "EMEA", "Tom Hanks".
  const label = r.values.map((v) => formatScalar(v)).find((v) => v !== "" && !isNumberLike(v));
  const names = r.values.flatMap((v) => (typeof v === "string" && !isNumberLike(v) ? capitalizedSpans(v, language, 3) : []));
  return {
    id: evidenceId(ctx.kbId, "row", location),
    kind: "row",
    text: linearizeRow(r.caption, r.section ?? undefined, r.columns, r.values),
    provenance: { kb: ctx.kbId, kbName: ctx.kbName, sourceObject: r.sourceObject, query, language: "search", location },
    entities: unique([...(label ? [label] : []), r.caption, ...names]),
    data,
  };
}

/**
 * The native query as the evidence panel shows it: the search text, and for a hybrid search a second
 * line saying so, with the fusion and its weights.
 */
export function shownQuery(text: string, retrieval: string | undefined): string {
  return retrieval ? `${text}\n[${retrieval}]` : text;
}

/** Pure: turns search records into evidence pieces (Quasar's verbalized pool). Foreign records are ignored. */
export function verbalizeSearchResult(
  ctx: BackendContext,
  result: RawResult,
  language: string,
  fallbackSourceObject?: string | null,
): EvidencePiece[] {
  const pieces: EvidencePiece[] = [];
  for (const record of result.records) {
    if (!isSearchRecord(record)) continue;
    const r = { ...record, sourceObject: record.sourceObject ?? fallbackSourceObject ?? null } as typeof record;
    const query = shownQuery(result.query.text, r.retrieval);
    const piece = r.kind === "passage" ? passagePiece(ctx, r, query, language) : rowPiece(ctx, r, query, language);
    // The stored vector of the passage or row travels with the piece (for the dense scorer).
    passVector(record, piece);
    pieces.push(piece);
  }
  return pieces;
}
