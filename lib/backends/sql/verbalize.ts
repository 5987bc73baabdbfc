import { createHash } from "node:crypto";
import { evidenceId, linearizeRow } from "../evidence";
import {
  type BackendContext,
  COMPUTED_ROWS_TABLE,
  type EvidencePiece,
  provenanceParams,
  type RawResult,
  type RowData,
  type Scalar,
} from "../types";
import type { SqlDialect } from "./dialect";
import { knownResultSource } from "./safety";
import { findTable, type TableInfo } from "./schema";
import { looksLikeName, toScalar } from "./values";

/** How a result is titled when its rows are computed (joins, aggregates, unions) rather than one table's rows. */
export const QUERY_RESULT_TITLE = COMPUTED_ROWS_TABLE;

function queryHash(sql: string): string {
  return createHash("sha256").update(sql.trim()).digest("hex").slice(0, 12);
}

/**
 * The source of the rows: a known table of the KB, a table the query names that the catalog lacks, or
 * none. The query was checked (and its shape read) when it ran; verbalizing never parses again.
 */
function sourceOf(result: RawResult, dialect: SqlDialect, tables: TableInfo[] | null): { name: string; table: TableInfo | null } {
  const named = knownResultSource(result.query.text, dialect)?.table ?? null;
  if (!named) return { name: QUERY_RESULT_TITLE, table: null };
  const table = tables ? (findTable(tables, named) ?? null) : null;
  return { name: table?.name ?? named, table };
}

/** The result columns holding the table's primary key, when the query kept all of them. */
function keyColumns(table: TableInfo | null, columns: string[]): string[] | null {
  if (!table || table.primaryKey.length === 0) return null;
  const found = table.primaryKey.map((pk) => columns.find((c) => c === pk) ?? columns.find((c) => c.toLowerCase() === pk.toLowerCase()));
  return found.every((c): c is string => c !== undefined) ? found : null;
}

/**
 * Each record becomes a "row" evidence piece in Quasar's linearization ("singer / Name: Joe Sharp,
 * Country: Netherlands"). A row of one table that carries its primary key is located by that key, so
 * the same row found by two queries is one piece with one id; other rows are located by the query and
 * their position in its result. `tables` is the catalog the backend loaded while executing; without
 * it a single-table result is still titled by the table the query names, but located by position.
 */
export function verbalizeRows(
  result: RawResult,
  ctx: BackendContext,
  dialect: SqlDialect,
  tables: TableInfo[] | null,
  sourceObject?: string | null,
): EvidencePiece[] {
  const source = sourceOf(result, dialect, tables);
  const keys = keyColumns(source.table, result.columns);
  const hash = queryHash(result.query.text);
  return result.records.map((record, index) => {
    const values: Scalar[] = result.columns.map((c) => toScalar(record[c]));
    const key = keys ? Object.fromEntries(keys.map((c) => [c, toScalar(record[c])])) : undefined;
    const location: Record<string, Scalar> = key
      ? {
          table: source.name,
          key: Object.entries(key)
            .map(([c, v]) => `${c}=${v}`)
            .join(", "),
        }
      : { table: source.name, query: hash, row: index };
    const data: RowData = { table: source.name, columns: result.columns, values, ...(key ? { key } : { rowIndex: index }) };
    return {
      id: evidenceId(ctx.kbId, "row", location),
      kind: "row" as const,
      text: linearizeRow(source.name, undefined, result.columns, values),
      provenance: {
        kb: ctx.kbId,
        kbName: ctx.kbName,
        sourceObject: sourceObject !== undefined ? sourceObject : (source.table?.name ?? null),
        query: result.query.text,
        ...provenanceParams(result.query),
        language: "sql" as const,
        location,
      },
      entities: [...new Set(values.filter(looksLikeName).map((v) => v.trim()))],
      data,
    };
  });
}
