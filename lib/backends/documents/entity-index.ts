import { formatScalar } from "../evidence";
import type { EntityIndexEntry, Scalar } from "../types";
import type { ContentStats } from "./collection-stats";
import type { IndexDb } from "./index-db";
import { COLLECTION_UNIT } from "./records";

export const DEFAULT_ENTITY_LIMIT = 10_000;
/** Longer strings are sentences, not names a question would contain. */
const MAX_LABEL_CHARS = 120;

function isNumeric(v: string): boolean {
  return /^[\s$€£¥%()+\-.,\d]*$/.test(v);
}

/**
 * Labels worth linking questions against, most specific first: table captions, column names and row
 * labels (first-column cells), then capitalized phrases frequent in the text, then document titles.
 */
export function buildEntityIndex(db: IndexDb, stats: ContentStats, limit = DEFAULT_ENTITY_LIMIT): EntityIndexEntry[] {
  const tables = (
    db.prepare("SELECT key, caption, header, rows FROM doc_tables ORDER BY id").all() as {
      key: string;
      caption: string;
      header: string;
      rows: string;
    }[]
  ).map((t) => ({
    key: t.key,
    caption: t.caption,
    header: JSON.parse(t.header) as string[],
    rows: JSON.parse(t.rows) as Scalar[][],
  }));
  // A generator opens the cursor only if the documents are reached, and closes it when the limit stops the loop.
  function* documents() {
    yield* db.prepare("SELECT id, title FROM documents WHERE status = 'ready' ORDER BY rowid").iterate() as Iterable<{
      id: string;
      title: string;
    }>;
  }
  return composeEntityIndex({ tables, phrases: stats.phrases, documents: documents() }, limit);
}

/**
 * Whether an entry's ref is only a place where its label occurs, not the thing it names: a frequent
 * phrase of a collection ("Cells", "DNA") points at one document it was seen in, one of many, so a
 * passage of that document is no more about the phrase than any other passage naming it.
 */
export function isOccurrenceRef(entry: { kind: string; sourceObject: string | null }): boolean {
  return entry.kind === "label" && entry.sourceObject === COLLECTION_UNIT;
}

export interface EntityIndexInput {
  /** Every table in the order it was stored. */
  tables: { key: string; caption: string; header: string[]; rows: Scalar[][] }[];
  phrases: ContentStats["phrases"];
  /** Ready documents in ingestion order. */
  documents: Iterable<{ id: string; title: string }>;
}

/** The entity index from what was read of the collection (pure). */
export function composeEntityIndex(input: EntityIndexInput, limit = DEFAULT_ENTITY_LIMIT): EntityIndexEntry[] {
  const out: EntityIndexEntry[] = [];
  const seen = new Set<string>();
  const add = (e: EntityIndexEntry): boolean => {
    const label = e.label.replace(/\s+/g, " ").trim();
    const key = `${e.kind}\u0000${label.toLowerCase()}\u0000${e.sourceObject}`;
    if (!label || label.length > MAX_LABEL_CHARS || seen.has(key)) return out.length < limit;
    seen.add(key);
    out.push({ ...e, label });
    return out.length < limit;
  };

  const tableList = input.tables;
  for (const t of tableList) {
    if (!add({ label: t.caption, kind: "table", ref: t.key, sourceObject: t.key })) return out;
    for (const col of t.header) {
      if (/^Column \d+$/.test(col)) continue; // a generated name, not something a question says
      if (!add({ label: col, kind: "column", ref: `${t.key}.${col}`, sourceObject: t.key })) return out;
    }
  }
  for (const t of tableList) {
    t.rows.forEach((row, i) => {
      const label = formatScalar(row[0] ?? null);
      if (label && !isNumeric(label)) add({ label, kind: "value", ref: `${t.key}:row-${i}`, sourceObject: t.key });
    });
    if (out.length >= limit) return out;
  }
  for (const p of input.phrases) {
    if (!add({ label: p.term, kind: "label", ref: p.documentId, sourceObject: COLLECTION_UNIT })) return out;
  }
  for (const d of input.documents) {
    if (!add({ label: d.title, kind: "document", ref: d.id, sourceObject: COLLECTION_UNIT })) return out;
  }
  return out;
}
