import { isBackendError } from "../errors";
import type { EntityIndexEntry } from "../types";
import type { SqlEngine } from "./engine";
import { quoteIdent } from "./dialect";
import { isTextColumn, type TableInfo } from "./schema";
import { identifierWords, looksLikeName, toJsonSafe } from "./values";

export const DEFAULT_ENTITY_LIMIT = 5_000;
/** No single column may crowd out the others (a 10,000-name column would otherwise fill the index). */
const MAX_VALUES_PER_COLUMN = 200;
const MIN_VALUES_PER_COLUMN = 10;
/** Distinct values are taken from this many leading rows, so a huge table costs the same as a small one. */
const SCANNED_ROWS = 5_000;
const STEP_TIMEOUT_MS = 10_000;

/**
 * Labels worth linking questions against: table names, column names as words ("Singer ID"), and
 * short name-like values of text columns ("France", "Joe Sharp"), each with a ref in the KB's own
 * terms (`table`, `table.column`, `table.column=value`).
 */
export async function buildEntityIndex(engine: SqlEngine, tables: TableInfo[], limit = DEFAULT_ENTITY_LIMIT): Promise<EntityIndexEntry[]> {
  const entries: EntityIndexEntry[] = [];
  const add = (e: EntityIndexEntry) => {
    if (entries.length < limit) entries.push(e);
  };
  for (const t of tables) add({ label: identifierWords(t.name), kind: "table", ref: t.name, sourceObject: t.name });
  for (const t of tables)
    for (const c of t.columns) add({ label: identifierWords(c.name), kind: "column", ref: `${t.name}.${c.name}`, sourceObject: t.name });

  const textColumns = tables.flatMap((t) =>
    t.columns.filter((c) => isTextColumn(c, engine.dialect)).map((c) => ({ table: t, column: c.name })),
  );
  let remaining = limit - entries.length;
  for (let i = 0; i < textColumns.length && remaining > 0; i++) {
    const { table, column } = textColumns[i];
    const fairShare = Math.floor(remaining / (textColumns.length - i));
    const quota = Math.min(MAX_VALUES_PER_COLUMN, Math.max(MIN_VALUES_PER_COLUMN, fairShare), remaining);
    const col = quoteIdent(column);
    let rows: unknown[][];
    try {
      ({ rows } = await engine.readInternal(
        `SELECT DISTINCT ${col} FROM (SELECT ${col} FROM ${engine.tableRef(table)} WHERE ${col} IS NOT NULL LIMIT ${SCANNED_ROWS}) AS sampled`,
        { timeoutMs: STEP_TIMEOUT_MS, maxRows: quota * 2, table },
      ));
    } catch (e) {
      // A view too slow or too large to sample (or one calling what queries may not) links no values.
      if (!isBackendError(e) || e.code === "KB_UNAVAILABLE") throw e;
      continue;
    }
    const values = rows
      .map((r) => toJsonSafe(r[0]))
      .filter(looksLikeName)
      .slice(0, quota);
    for (const v of values) add({ label: v.trim(), kind: "value", ref: `${table.name}.${column}=${v}`, sourceObject: table.name });
    remaining = limit - entries.length;
  }
  return entries;
}
