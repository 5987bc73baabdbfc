import { QueryExecutionError } from "../backends/errors";
import { openBackend, type KbRecord } from "../backends/registry";
import type { NativeQuery, Scalar } from "../backends/types";
import type { CatalogDeps } from "../deps";
import { type GuideActionParams, describeAction } from "../pipeline/guide-actions";

function sqlLiteral(v: Scalar, dialect: "sqlite" | "postgres"): string {
  if (typeof v === "number") {
    if (!Number.isFinite(v)) throw new Error(`cannot compare with ${v}`);
    return String(v);
  }
  if (typeof v === "boolean") return dialect === "postgres" ? (v ? "TRUE" : "FALSE") : v ? "1" : "0";
  return `'${String(v)
    .replace(/\u0000/g, "")
    .replace(/'/g, "''")}'`;
}

const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

/**
 * SelectCoordinates on a relational table. AU-RAG addresses rows by position, which a database does
 * not keep; so the selection (positions in the table's preview) becomes the SQL that reads those cells
 * by primary key (every column when there is none), and that query is what runs and what a guide stores.
 */
export async function sqlCoordinatesQuery(
  kb: KbRecord,
  deps: CatalogDeps,
  params: GuideActionParams<"SELECT_COORDINATES">,
): Promise<NativeQuery> {
  const action = describeAction({ kind: "SELECT_COORDINATES", params });
  const backend = openBackend(kb, deps);
  const structure = await backend.structure();
  if (structure.kind !== "sql") throw new QueryExecutionError(`${kb.name} is not a relational database.`, action);
  const table = structure.tables.find((t) => t.name === params.tableKey);
  if (!table)
    throw new QueryExecutionError(
      `There is no table "${params.tableKey}" in ${kb.name}. Refresh the source objects to see the current tables.`,
      action,
    );
  const preview = await backend.preview(table.name, { limit: Math.max(...params.rows) + 1 });
  if (preview.kind !== "table") throw new QueryExecutionError(`"${table.name}" cannot be read as a table.`, action);
  const badRows = params.rows.filter((i) => i >= preview.rows.length);
  if (badRows.length)
    throw new QueryExecutionError(
      `Table "${table.name}" has no row ${badRows.join(", ")}: it has rows 0 to ${preview.rows.length - 1}.`,
      action,
    );
  const columns = params.columns.map((c) => (typeof c === "number" ? preview.columns[c] : c));
  const badCols = params.columns.filter((c, k) => !columns[k] || !preview.columns.includes(columns[k]));
  if (badCols.length)
    throw new QueryExecutionError(
      `Table "${table.name}" has no column ${badCols.map((c) => JSON.stringify(c)).join(", ")}; its columns are ${preview.columns.join(", ")}.`,
      action,
    );
  const keys = table.primaryKey.length && table.primaryKey.every((k) => preview.columns.includes(k)) ? table.primaryKey : preview.columns;
  const rows = [...new Set(params.rows)].sort((a, b) => a - b);
  const where = rows.map((i) => {
    const row = preview.rows[i];
    const cells = keys.map((k) => {
      const v = row[preview.columns.indexOf(k)] ?? null;
      return v === null ? `${quoteIdent(k)} IS NULL` : `${quoteIdent(k)} = ${sqlLiteral(v, structure.dialect)}`;
    });
    return cells.length > 1 ? `(${cells.join(" AND ")})` : cells[0];
  });
  const text = `SELECT ${[...new Set(columns)].map(quoteIdent).join(", ")}\nFROM ${quoteIdent(table.name)}\nWHERE ${where.join("\n   OR ")}\nORDER BY ${keys.map(quoteIdent).join(", ")}`;
  return { language: "sql", text };
}
