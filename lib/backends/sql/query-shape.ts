import type { AstNode } from "./safety";

/**
 * Which table a result's rows are, when that is plain from the query: one table in FROM, no join,
 * no set operation (UNION …), no WITH, no GROUP BY and no aggregate in the select list. Then each
 * record is a row (or a projection of a row) of that table and evidence can say "Table singer / …";
 * otherwise the rows are a computed "Query result".
 */
export interface ResultSource {
  table: string;
  /** The schema or attached database named in the query, if any. */
  schema: string | null;
}

function isNode(v: unknown): v is AstNode {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function hasGrouping(groupby: unknown): boolean {
  if (Array.isArray(groupby)) return groupby.length > 0;
  if (isNode(groupby)) return Array.isArray(groupby.columns) && groupby.columns.length > 0;
  return false;
}

/** Looks for aggregates in the select list itself, not inside subqueries (whose own rows are separate). */
function hasAggregate(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(hasAggregate);
  if (!isNode(node)) return false;
  if (node.type === "aggr_func") return true;
  return Object.entries(node).some(([key, value]) => key !== "ast" && typeof value === "object" && value !== null && hasAggregate(value));
}

export function resultSource(ast: AstNode): ResultSource | null {
  if (ast.type !== "select" || ast._next || (Array.isArray(ast.with) && ast.with.length > 0)) return null;
  const from = Array.isArray(ast.from) ? ast.from : [];
  if (from.length !== 1 || !isNode(from[0])) return null;
  const source = from[0];
  if (typeof source.table !== "string" || source.expr || source.join) return null;
  if (hasGrouping(ast.groupby) || hasAggregate(ast.columns)) return null;
  return { table: source.table, schema: typeof source.db === "string" ? source.db : null };
}
