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

  const tables = db.prepare("SELECT key, caption, header, rows FROM doc_tables ORDER BY id").iterate() as Iterable<{
    key: string;
    caption: string;
    header: string;
    rows: string;
  }>;
  const tableList = [...tables];
  for (const t of tableList) {
    if (!add({ label: t.caption, kind: "table", ref: t.key, sourceObject: t.key })) return out;
    for (const col of JSON.parse(t.header) as string[]) {
      if (/^Column \d+$/.test(col)) continue; // a generated name, not something a question says
      if (!add({ label: col, kind: "column", ref: `${t.key}.${col}`, sourceObject: t.key })) return out;
    }
  }
  for (const t of tableList) {
    (JSON.parse(t.rows) as Scalar[][]).forEach((row, i) => {
      const label = formatScalar(row[0] ?? null);
      if (label && !isNumeric(label)) add({ label, kind: "value", ref: `${t.key}:row-${i}`, sourceObject: t.key });
    });
    if (out.length >= limit) return out;
  }
  for (const p of stats.phrases) {
    if (!add({ label: p.term, kind: "label", ref: p.documentId, sourceObject: COLLECTION_UNIT })) return out;
  }
  for (const d of db.prepare("SELECT id, title FROM documents WHERE status = 'ready' ORDER BY rowid").iterate() as Iterable<{ id: string; title: string }>) {
    if (!add({ label: d.title, kind: "document", ref: d.id, sourceObject: COLLECTION_UNIT })) return out;
  }
  return out;
}
