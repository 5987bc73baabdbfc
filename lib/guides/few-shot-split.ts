import { mulberry32 } from "../random";

/**
 * The few-shot protocol's split (issue 28): per database, a seeded draw of its distinct question texts
 * becomes guides and the rest is asked; `swap` gives the other half to the guides (the protocol's "both
 * ways"). The split is by question text, so no asked question is itself a guide anywhere: a text asked of
 * two databases keeps the side it was first drawn to (databases are visited in name order).
 */
export interface FewShotSplitOptions {
  seed: number;
  /** The guides' share of each database's distinct question texts, strictly between 0 and 1. */
  share: number;
  swap?: boolean;
}

export function fewShotSplit<T>(
  items: readonly T[],
  databaseOf: (item: T) => string,
  questionOf: (item: T) => string,
  opts: FewShotSplitOptions,
): { guides: T[]; asked: T[]; databases: number } {
  if (!Number.isInteger(opts.seed)) throw new Error("The seed must be a whole number.");
  if (!(opts.share > 0 && opts.share < 1)) throw new Error("The guides' share must be between 0 and 1.");
  const byDb = new Map<string, T[]>();
  for (const it of items) {
    const db = databaseOf(it);
    const list = byDb.get(db);
    if (list) list.push(it);
    else byDb.set(db, [it]);
  }
  const guides: T[] = [];
  const asked: T[] = [];
  const rand = mulberry32(opts.seed);
  const sideOf = new Map<string, "guide" | "asked">();
  for (const [, qs] of [...byDb].sort(([a], [b]) => a.localeCompare(b))) {
    // Distinct question texts are the unit drawn (Fisher–Yates with the seed).
    const texts = [...new Set(qs.map((q) => questionOf(q).trim()))];
    for (let i = texts.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [texts[i], texts[j]] = [texts[j], texts[i]];
    }
    const cut = Math.round(texts.length * opts.share);
    const drawn = new Set(opts.swap ? texts.slice(cut) : texts.slice(0, cut));
    for (const t of texts) if (!sideOf.has(t)) sideOf.set(t, drawn.has(t) ? "guide" : "asked");
    for (const q of qs) (sideOf.get(questionOf(q).trim()) === "guide" ? guides : asked).push(q);
  }
  return { guides, asked, databases: byDb.size };
}

/** One CSV field as RFC 4180 writes it: quoted, inner quotes doubled (questions hold commas and quotes). */
function csvField(value: string): string {
  return `"${value.replace(/"/g, '""')}"`;
}

/** Rows as CSV text with a header line, every field quoted. */
export function toCsv(columns: readonly string[], rows: readonly Record<string, string>[]): string {
  const lines = [columns.map(csvField).join(",")];
  for (const r of rows) lines.push(columns.map((c) => csvField(r[c] ?? "")).join(","));
  return `${lines.join("\n")}\n`;
}
