import { isTreeNode, type TreeNode, walkTree } from "../tree-walk";

/**
 * Which table a result's rows are, when that is plain from the query: one table in FROM, no join,
 * no set operation (UNION …), no WITH, no GROUP BY and no aggregate in the select list. Then each
 * record is a row (or a projection of a row) of that table and evidence can say "Table singer / …";
 * otherwise the rows are a computed "Query result". This file reads node-sql-parser's tree (SQLite);
 * postgres/query-tree.ts applies the same rule to PostgreSQL's own tree.
 */
export interface ResultSource {
  table: string;
  /** The schema or attached database named in the query, if any. */
  schema: string | null;
}

function hasGrouping(groupby: unknown): boolean {
  if (Array.isArray(groupby)) return groupby.length > 0;
  if (isTreeNode(groupby)) return Array.isArray(groupby.columns) && groupby.columns.length > 0;
  return false;
}

/** Looks for aggregates in the select list itself, not inside subqueries (whose own rows are separate). */
function hasAggregate(node: unknown): boolean {
  let found = false;
  walkTree(node, (n) => {
    if (found || (isTreeNode(n.ast) && "tableList" in n)) return false;
    if (n.type === "aggr_func") found = true;
  });
  return found;
}

/** The table named first in FROM when FROM names exactly one (joins are further FROM items). */
export function fromTable(ast: TreeNode): string | null {
  const from = Array.isArray(ast.from) ? ast.from : [];
  return from.length === 1 && isTreeNode(from[0]) && typeof from[0].table === "string" ? from[0].table : null;
}

export function resultSource(ast: TreeNode): ResultSource | null {
  if (ast.type !== "select" || ast._next || (Array.isArray(ast.with) && ast.with.length > 0)) return null;
  const from = Array.isArray(ast.from) ? ast.from : [];
  if (from.length !== 1 || !isTreeNode(from[0])) return null;
  const source = from[0];
  if (typeof source.table !== "string" || source.expr || source.join) return null;
  if (hasGrouping(ast.groupby) || hasAggregate(ast.columns)) return null;
  return { table: source.table, schema: typeof source.db === "string" ? source.db : null };
}
