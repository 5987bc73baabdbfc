import { QueryRejectedError } from "../../errors";
import {
  ALLOWED_FUNCTIONS,
  ALLOWED_POSTGRES_OPERATORS,
  ALLOWED_POSTGRES_TYPES,
  ALLOWED_POSTGRES_VALUE_FUNCTIONS,
  BUILTIN_SCHEMA,
  isSystemRelation,
} from "../allow-list";
import type { SqlDialect } from "../dialect";
import type { ResultSource } from "../query-shape";
import { notAllowedFunction } from "../sqlite/query-tree";
import { isTreeNode, type TreeNode, walkTree } from "../../tree-walk";

/**
 * The rules for a PostgreSQL query, decided on the tree PostgreSQL's own parser builds (libpg-query is
 * the server's parser compiled to WebAssembly), so what is checked is exactly what the server will run:
 * a string the server reads as a literal is a literal here too, and every call, operator and cast is
 * seen. Allow, don't block: every node kind, function, operator, cast type and value function must be
 * on a list of what a read-only question needs; anything else is refused by name.
 */

/** The node kinds a read-only SELECT is built from. Anything else (XML, JSON_TABLE, parameters, DML) is refused. */
const ALLOWED_NODES = new Set([
  "SelectStmt",
  "ResTarget",
  "ColumnRef",
  "A_Star",
  "A_Const",
  "String",
  "Integer",
  "Float",
  "Boolean",
  "BitString",
  "List",
  "RangeVar",
  "JoinExpr",
  "RangeSubselect",
  "RangeFunction",
  "FuncCall",
  "A_Expr",
  "BoolExpr",
  "NullTest",
  "BooleanTest",
  "SubLink",
  "CaseExpr",
  "CaseWhen",
  "CoalesceExpr",
  "MinMaxExpr",
  "TypeCast",
  "TypeName",
  "SortBy",
  "WindowDef",
  "CommonTableExpr",
  "WithClause",
  "CTESearchClause",
  "CTECycleClause",
  "Alias",
  "A_Indices",
  "A_Indirection",
  "A_ArrayExpr",
  "RowExpr",
  "SQLValueFunction",
  "GroupingSet",
  "CollateClause",
  "NamedArgExpr",
]);

/** Statement kinds by the word a person wrote, for refusals of whole statements. */
const STATEMENT_WORDS: Record<string, string> = {
  InsertStmt: "INSERT",
  UpdateStmt: "UPDATE",
  DeleteStmt: "DELETE",
  MergeStmt: "MERGE",
  CreateStmt: "CREATE",
  CreateTableAsStmt: "CREATE TABLE AS",
  DropStmt: "DROP",
  AlterTableStmt: "ALTER",
  TruncateStmt: "TRUNCATE",
  CopyStmt: "COPY",
  VariableSetStmt: "SET",
  VariableShowStmt: "SHOW",
  DoStmt: "DO",
  CallStmt: "CALL",
  LockStmt: "LOCK",
  NotifyStmt: "NOTIFY",
  ListenStmt: "LISTEN",
  UnlistenStmt: "UNLISTEN",
  PrepareStmt: "PREPARE",
  ExecuteStmt: "EXECUTE",
  DeallocateStmt: "DEALLOCATE",
  ExplainStmt: "EXPLAIN",
  TransactionStmt: "transaction control (BEGIN, COMMIT …)",
  GrantStmt: "GRANT",
  GrantRoleStmt: "GRANT",
  VacuumStmt: "VACUUM or ANALYZE",
  ClusterStmt: "CLUSTER",
  ReindexStmt: "REINDEX",
  DeclareCursorStmt: "DECLARE",
  FetchStmt: "FETCH",
  ClosePortalStmt: "CLOSE",
  DiscardStmt: "DISCARD",
  LoadStmt: "LOAD",
  CheckPointStmt: "CHECKPOINT",
  RefreshMatViewStmt: "REFRESH",
  CreateFunctionStmt: "CREATE FUNCTION",
  ViewStmt: "CREATE VIEW",
  IndexStmt: "CREATE INDEX",
  CreateExtensionStmt: "CREATE EXTENSION",
  AlterSystemStmt: "ALTER SYSTEM",
  CreateRoleStmt: "CREATE ROLE",
  AlterRoleStmt: "ALTER ROLE",
  SecLabelStmt: "SECURITY LABEL",
  CommentStmt: "COMMENT",
  ReturnStmt: "RETURN",
};

const NODE_WORDS: Record<string, string> = {
  XmlExpr: "XML functions",
  XmlSerialize: "XMLSERIALIZE",
  RangeTableFunc: "XMLTABLE",
  JsonTable: "JSON_TABLE",
  RangeTableSample: "TABLESAMPLE",
  ParamRef: "a query parameter ($1)",
  IntoClause: "SELECT … INTO",
  LockingClause: "row locks (FOR UPDATE / FOR SHARE)",
  MultiAssignRef: "a multi-column assignment",
  SetToDefault: "DEFAULT",
};

const AGGREGATES = new Set([
  "count",
  "sum",
  "avg",
  "min",
  "max",
  "array_agg",
  "bool_and",
  "bool_or",
  "every",
  "string_agg",
  "stddev",
  "stddev_pop",
  "stddev_samp",
  "variance",
  "var_pop",
  "var_samp",
  "percentile_cont",
  "percentile_disc",
  "mode",
  "json_agg",
  "jsonb_agg",
]);

const VALUE_FUNCTION_WORDS: Record<string, string> = {
  SVFOP_CURRENT_ROLE: "CURRENT_ROLE",
  SVFOP_CURRENT_USER: "CURRENT_USER",
  SVFOP_USER: "USER",
  SVFOP_SESSION_USER: "SESSION_USER",
  SVFOP_CURRENT_CATALOG: "CURRENT_CATALOG",
  SVFOP_CURRENT_SCHEMA: "CURRENT_SCHEMA",
};

/** `[{String: {sval: "pg_catalog"}}, {String: {sval: "now"}}]` → ["pg_catalog", "now"]. */
function names(list: unknown): string[] {
  if (!Array.isArray(list)) return [];
  return list.map((item) => (isTreeNode(item) && isTreeNode(item.String) && typeof item.String.sval === "string" ? item.String.sval : "?"));
}

function statementWord(kind: string): string {
  return STATEMENT_WORDS[kind] ?? kind.replace(/Stmt$/, "").toUpperCase();
}

function onlyKey(node: unknown): [string, TreeNode] | null {
  if (!isTreeNode(node)) return null;
  const keys = Object.keys(node);
  return keys.length === 1 && isTreeNode(node[keys[0]]) ? [keys[0], node[keys[0]] as TreeNode] : null;
}

export interface CheckedPostgresTree {
  select: TreeNode;
  source: ResultSource | null;
  fromTable: string | null;
}

/** The one statement of a parse, or a refusal saying how many there are or what kind it is. */
function singleSelect(parsed: unknown, refuse: (reason: string) => never): TreeNode {
  const stmts = isTreeNode(parsed) && Array.isArray(parsed.stmts) ? parsed.stmts : [];
  if (stmts.length === 0) throw new Error("empty parse");
  if (stmts.length > 1) refuse(`only a single SELECT statement may run, and this text holds ${stmts.length} statements`);
  const stmt = onlyKey(isTreeNode(stmts[0]) ? stmts[0].stmt : null);
  if (!stmt) refuse("the statement could not be read");
  const [kind, body] = stmt!;
  if (kind !== "SelectStmt") refuse(`only a single SELECT statement may run, and ${statementWord(kind)} is not allowed`);
  return body;
}

/**
 * `dialect` is the engine the query will run on: a SQLite query that only PostgreSQL's parser could read
 * (see safety.ts) is held to SQLite's function list, and SQLite's CAST only changes affinity, so any type name goes.
 */
export function checkPostgresTree(parsed: unknown, sql: string, dialect: SqlDialect = "postgres"): CheckedPostgresTree {
  const refuse = (reason: string): never => {
    throw new QueryRejectedError(reason, sql);
  };
  const select = singleSelect(parsed, refuse);
  walkTree(select, (node) => {
    if (node.intoClause) refuse("SELECT … INTO creates a table; only reading is allowed");
    if (Array.isArray(node.lockingClause) && node.lockingClause.length > 0) refuse("row locks (FOR UPDATE / FOR SHARE) are not allowed");
    for (const [kind, body] of Object.entries(node)) {
      if (!/^[A-Z]/.test(kind) || !isTreeNode(body)) continue;
      if (!ALLOWED_NODES.has(kind)) {
        if (/Stmt$/.test(kind)) refuse(`${statementWord(kind)} is not allowed inside a query; only reading with SELECT is`);
        refuse(`${NODE_WORDS[kind] ?? kind} ${NODE_WORDS[kind] ? "are" : "is"} not allowed in a query`);
      }
      checkNode(kind, body, dialect, refuse);
    }
  });
  return { select, source: resultSource(select), fromTable: fromTable(select) };
}

function checkNode(kind: string, body: TreeNode, dialect: SqlDialect, refuse: (reason: string) => never): void {
  switch (kind) {
    case "FuncCall": {
      const parts = names(body.funcname);
      const name = parts[parts.length - 1]!.toLowerCase();
      if (parts.length > 1 && parts[0]!.toLowerCase() !== BUILTIN_SCHEMA)
        refuse(`the function ${parts.join(".")}() is not allowed; only built-in functions may be called`);
      if (!ALLOWED_FUNCTIONS[dialect].has(name)) refuse(notAllowedFunction(name));
      return;
    }
    case "A_Expr": {
      // SQLite's operators are all its own built-ins (== included); only PostgreSQL can define more.
      if (dialect === "sqlite") return;
      const parts = names(body.name);
      const op = parts[parts.length - 1] ?? "?";
      if (parts.length > 1 && parts[0]!.toLowerCase() !== BUILTIN_SCHEMA)
        refuse(`the operator ${parts.join(".")} is not allowed; only built-in operators may be used`);
      if (!ALLOWED_POSTGRES_OPERATORS.has(op)) refuse(`the operator ${op} is not allowed in a query`);
      return;
    }
    case "TypeCast": {
      if (dialect === "sqlite") return;
      const typeName = isTreeNode(body.typeName) ? body.typeName : null;
      const parts = names(typeName?.names);
      const name = (parts[parts.length - 1] ?? "?").toLowerCase();
      if (parts.length > 1 && parts[0]!.toLowerCase() !== BUILTIN_SCHEMA)
        refuse(`casting to ${parts.join(".")} is not allowed; only built-in value types may be cast to`);
      if (!ALLOWED_POSTGRES_TYPES.has(name))
        refuse(`casting to ${name} is not allowed; only number, text, date, time, boolean and JSON types may be cast to`);
      return;
    }
    case "RangeVar": {
      const relname = typeof body.relname === "string" ? body.relname : "?";
      const schema = typeof body.schemaname === "string" ? body.schemaname : null;
      if (typeof body.catalogname === "string")
        refuse(`${body.catalogname}.${schema}.${relname} names another database; only this knowledge base's tables may be read`);
      if (isSystemRelation(dialect, schema, relname)) {
        refuse(
          `${schema ? `${schema}.` : ""}${relname} is a system catalog of the server, not a table of this knowledge base, and may not be read`,
        );
      }
      return;
    }
    case "A_Indirection": {
      // PostgreSQL reads (expr).f as the call f(expr) when the value has no field f: a function call the
      // allow-list above would never see as one. Subscripts (x)[1] and (x).* stay allowed.
      if (dialect === "sqlite") return;
      const fields = Array.isArray(body.indirection) ? body.indirection : [];
      for (const item of fields) {
        const field = isTreeNode(item) && isTreeNode(item.String) && typeof item.String.sval === "string" ? item.String.sval : null;
        if (field === null) continue;
        if (!ALLOWED_FUNCTIONS.postgres.has(field.toLowerCase()))
          refuse(
            `(…).${field} is not allowed: PostgreSQL runs it as the function ${field}() when the value has no field ${field}, and ${field}() is not allowed in queries`,
          );
        refuse(
          `(…).${field} is not allowed: PostgreSQL may run it as the function ${field}(); write ${field}(…) directly, or name a column as table.column`,
        );
      }
      return;
    }
    case "SQLValueFunction": {
      const op = String(body.op ?? "");
      if (!ALLOWED_POSTGRES_VALUE_FUNCTIONS.has(op)) refuse(`${VALUE_FUNCTION_WORDS[op] ?? op} is not allowed in a query`);
      return;
    }
    case "CommonTableExpr": {
      const inner = onlyKey(body.ctequery);
      if (inner && inner[0] !== "SelectStmt") {
        refuse(
          `a WITH clause may only hold SELECT queries, and this one holds ${statementWord(inner[0])} (writes inside a CTE are not allowed)`,
        );
      }
      return;
    }
    default:
      return;
  }
}

function isAggregateCall(node: unknown): boolean {
  let found = false;
  walkTree(node, (n) => {
    // Subqueries produce their own rows; only the select list's own calls matter.
    if (found || isTreeNode(n.SubLink)) return false;
    const call = isTreeNode(n.FuncCall) ? n.FuncCall : null;
    if (!call || call.over) return;
    const parts = names(call.funcname);
    if (AGGREGATES.has((parts[parts.length - 1] ?? "").toLowerCase()) || call.agg_star) found = true;
  });
  return found;
}

function singleFromTable(select: TreeNode): { schema: string | null; name: string } | null {
  const from = Array.isArray(select.fromClause) ? select.fromClause : [];
  if (from.length !== 1) return null;
  const range = isTreeNode(from[0]) && isTreeNode(from[0].RangeVar) ? from[0].RangeVar : null;
  if (!range || typeof range.relname !== "string") return null;
  return { schema: typeof range.schemaname === "string" ? range.schemaname : null, name: range.relname };
}

function fromTable(select: TreeNode): string | null {
  return select.op === "SETOP_NONE" ? (singleFromTable(select)?.name ?? null) : null;
}

/** Which table the rows are, when plain from the query (see query-shape.ts for the rule). */
function resultSource(select: TreeNode): ResultSource | null {
  if (select.op !== "SETOP_NONE" || select.withClause) return null;
  const table = singleFromTable(select);
  if (!table) return null;
  if (Array.isArray(select.groupClause) && select.groupClause.length > 0) return null;
  if (isAggregateCall(select.targetList)) return null;
  return { table: table.name, schema: table.schema };
}
