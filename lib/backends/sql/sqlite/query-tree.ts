import { QueryRejectedError } from "../../errors";
import { ALLOWED_FUNCTIONS, isSystemRelation } from "../allow-list";
import { isTreeNode, type TreeNode, walkTree } from "../../tree-walk";

/**
 * The rules for a SQLite query on node-sql-parser's tree (SQLite's own verdict comes when the query is
 * prepared: query-child.mjs checks the statement is read-only and that every function in its compiled
 * program is on the allow-list). One SELECT, WITH clauses and subqueries that only read, nothing created
 * (SELECT … INTO), no row locks, only allowed functions, no pragma_* or raw-page tables.
 */

/**
 * Statement kinds node-sql-parser produces that change data, schema, settings or sessions; any of
 * them anywhere in the tree is refused. (Not "desc"/"show": ORDER BY items carry type "DESC" too,
 * and those statements are refused at the top level anyway.)
 */
const STATEMENT_TYPES = new Set([
  "insert",
  "update",
  "delete",
  "replace",
  "merge",
  "upsert",
  "create",
  "drop",
  "alter",
  "truncate",
  "rename",
  "grant",
  "revoke",
  "call",
  "exec",
  "execute",
  "transaction",
  "set",
  "use",
  "lock",
  "unlock",
  "attach",
  "detach",
  "load_data",
  "copy",
  "vacuum",
  "analyze",
  "reindex",
  "pragma",
  "declare",
  "deallocate",
]);

/** A function node's own name, lower-cased: `main.abs` gives abs. */
function functionName(node: TreeNode): string | null {
  const name = node.name;
  if (typeof name === "string") return name.toLowerCase();
  if (isTreeNode(name) && Array.isArray(name.name)) {
    const parts = name.name as { value?: unknown }[];
    const last = parts[parts.length - 1]?.value;
    return typeof last === "string" ? last.toLowerCase() : null;
  }
  return null;
}

/** A FROM item naming a table: `{ db, table, as }` (column references carry `column` as well). */
function tableOf(node: TreeNode): { schema: string | null; name: string } | null {
  if (typeof node.table !== "string" || "column" in node || !("as" in node)) return null;
  return { schema: typeof node.db === "string" ? node.db : null, name: node.table };
}

export function notAllowedFunction(name: string): string {
  return `the function ${name}() is not allowed; queries may call only the aggregate, text, date, number, JSON and window functions questions need`;
}

export function checkSqliteTree(select: TreeNode, sql: string): void {
  const refuse = (reason: string): never => {
    throw new QueryRejectedError(reason, sql);
  };
  for (const cte of Array.isArray(select.with) ? select.with : []) {
    const stmt = isTreeNode(cte) ? cte.stmt : null;
    const inner = isTreeNode(stmt) && isTreeNode(stmt.ast) ? stmt.ast : stmt;
    const type = isTreeNode(inner) ? String(inner.type) : "unknown";
    if (type !== "select")
      refuse(`a WITH clause may only hold SELECT queries, and this one holds ${type.toUpperCase()} (writes inside a CTE are not allowed)`);
  }
  walkTree(select, (node) => {
    const type = typeof node.type === "string" ? node.type.toLowerCase() : "";
    if (STATEMENT_TYPES.has(type)) refuse(`${type.toUpperCase()} is not allowed inside a query; only reading with SELECT is`);
    if (isTreeNode(node.ast) && "tableList" in node) {
      const innerType = String((node.ast as TreeNode).type);
      if (innerType !== "select") refuse(`a subquery may only be a SELECT, and this one is ${innerType.toUpperCase()}`);
    }
    if (type === "function" || type === "aggr_func" || type === "window_func") {
      const name = functionName(node);
      if (name === null) refuse("a function whose name cannot be read is not allowed");
      else if (!ALLOWED_FUNCTIONS.sqlite.has(name)) refuse(notAllowedFunction(name));
    }
    const table = tableOf(node);
    if (table && isSystemRelation("sqlite", table.schema, table.name))
      refuse(`${table.name} is not allowed: it shows the server's files and settings, not the knowledge base's data`);
    if (isTreeNode(node.into) && (node.into.expr || node.into.type === "into"))
      refuse("SELECT … INTO creates a table; only reading is allowed");
    if (node.for_update || node.locking_read) refuse("row locks (FOR UPDATE / FOR SHARE) are not allowed");
  });
}
