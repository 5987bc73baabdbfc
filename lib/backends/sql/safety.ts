// The per-dialect builds load two grammars instead of all of them; they are CommonJS modules whose
// exports Node cannot list statically, hence the default imports.
import postgresGrammar from "node-sql-parser/build/postgresql";
import sqliteGrammar from "node-sql-parser/build/sqlite";
import { QueryRejectedError, QuerySyntaxError } from "../errors";
import type { SqlDialect } from "./dialect";
import { calledNames, leadingKeyword, statementSpans, type Token, tokenize } from "./lexical";

/**
 * The first wall of the SQL safety rules (DESIGN.md): a query runs only if node-sql-parser reads it
 * as exactly ONE SELECT, every WITH clause holds only SELECTs, it creates nothing (SELECT … INTO),
 * takes no row locks, and calls no function with side effects. The second wall is the engine: SQLite
 * files are opened read-only with `query_only`, and statements that would write are refused again by
 * SQLite itself (sqlite/query-child.mjs); PostgreSQL runs every query in a READ ONLY transaction
 * with a statement timeout (postgres/engine.ts).
 */

export type AstNode = Record<string, unknown>;

export interface CheckedSql {
  /** The one statement as written, without a trailing `;` or comments: what the engine runs. */
  normalized: string;
  /** node-sql-parser's tree of the SELECT (used to tell which table the rows come from). */
  ast: AstNode;
}

/**
 * Functions refused even inside a SELECT: they read or write files, reach other servers, signal other
 * sessions, change settings or sequences, take locks, or run SQL text of their own (query_to_xml)
 * where this check cannot see it. pg_sleep stays allowed: the statement timeout stops it.
 */
const REFUSED_FUNCTIONS: Record<SqlDialect, RegExp[]> = {
  sqlite: [/^load_extension$/, /^readfile$/, /^writefile$/, /^edit$/, /^fts3_tokenizer$/, /^fsdir$/, /^lsdir$/, /^zipfile/, /^eval$/, /^sqlar_/],
  postgres: [
    /^pg_read_(binary_)?file$/,
    /^pg_ls_/,
    /^pg_stat_file$/,
    /^pg_file_/,
    /^pg_logdir_ls$/,
    /^lo_/,
    /^lo(read|write)$/,
    /^dblink/,
    /^pg_(terminate|cancel)_backend$/,
    /^pg_reload_conf$/,
    /^pg_rotate_logfile/,
    /^pg_promote$/,
    /^set_config$/,
    /^(nextval|setval)$/,
    /^pg_(try_)?advisory_/,
    /^txid_/,
    /^pg_current_xact_id/,
    /^pg_notify$/,
    /^pg_logical_/,
    /^pg_replication_/,
    /^pg_(create|drop|copy)_/,
    /^pg_switch_wal$/,
    /^pg_wal_replay_/,
    /^pg_(start|stop)_backup$/,
    /^pg_backup_/,
    /^pg_stat_reset/,
    /^pg_import_system_collations$/,
    /^pg_export_snapshot$/,
    /^pg_log_backend_memory_contexts$/,
    /_to_xml(schema|_and_xmlschema)?$/,
    /^http(_|$)/,
  ],
};

/**
 * Statement kinds node-sql-parser produces that change data, schema, settings or sessions; any of
 * them anywhere in the tree is refused. (Not "desc"/"show": ORDER BY items carry type "DESC" too,
 * and those statements are refused at the top level anyway.)
 */
const STATEMENT_TYPES = new Set([
  "insert", "update", "delete", "replace", "merge", "upsert", "create", "drop", "alter", "truncate", "rename", "grant",
  "revoke", "call", "exec", "execute", "transaction", "set", "use", "lock", "unlock", "attach", "detach", "load_data",
  "copy", "vacuum", "analyze", "reindex", "pragma", "declare", "deallocate",
]);

const READ_KEYWORDS = new Set(["SELECT", "WITH", "VALUES", "TABLE"]);

/** Keywords that, in a text the parser cannot read, make the clearer message "X is not allowed" the right one. */
const WRITE_KEYWORDS = new Set([
  "INSERT", "UPDATE", "DELETE", "REPLACE", "MERGE", "UPSERT", "CREATE", "DROP", "ALTER", "TRUNCATE", "ATTACH", "DETACH",
  "PRAGMA", "VACUUM", "REINDEX", "ANALYZE", "COPY", "GRANT", "REVOKE", "LOCK", "CALL", "DO", "EXECUTE", "PREPARE", "NOTIFY",
  "LISTEN", "SET", "RESET", "BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE",
]);

const parsers = { sqlite: new sqliteGrammar.Parser(), postgresql: new postgresGrammar.Parser() };

/**
 * Grammars tried in order. node-sql-parser's SQLite grammar lacks INTERSECT and EXCEPT (34 of the 484
 * Spider dev gold queries use them), so a SQLite query it cannot read is tried with the PostgreSQL
 * grammar, whose SELECT is a superset for those. That is a parser reading, not a string check; the
 * engine-faithful tokenizer checks below and SQLite's own refusals still apply.
 */
const GRAMMARS: Record<SqlDialect, ("sqlite" | "postgresql")[]> = { sqlite: ["sqlite", "postgresql"], postgres: ["postgresql"] };

interface PegSyntaxError {
  message: string;
  found?: string | null;
  location?: { start: { line: number; column: number } };
}

function describeSyntaxError(e: unknown): string {
  const err = e as PegSyntaxError;
  if (err?.location?.start) {
    const where = `line ${err.location.start.line}, column ${err.location.start.column}`;
    return err.found == null ? `the query ends early (${where})` : `unexpected ${JSON.stringify(err.found)} at ${where}`;
  }
  return err instanceof Error ? err.message : String(e);
}

function isNode(v: unknown): v is AstNode {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Visits every object in the tree (arrays included), parents before children. */
function walk(node: unknown, visit: (n: AstNode) => void): void {
  if (Array.isArray(node)) {
    for (const item of node) walk(item, visit);
    return;
  }
  if (!isNode(node)) return;
  visit(node);
  for (const value of Object.values(node)) if (typeof value === "object" && value !== null) walk(value, visit);
}

/** A function node's own name, lower-cased: `pg_catalog.pg_read_file` gives pg_read_file. */
function functionName(node: AstNode): string | null {
  const name = node.name;
  if (typeof name === "string") return name.toLowerCase();
  if (isNode(name) && Array.isArray(name.name)) {
    const parts = name.name as { value?: unknown }[];
    const last = parts[parts.length - 1]?.value;
    return typeof last === "string" ? last.toLowerCase() : null;
  }
  return null;
}

function refusedFunction(name: string, dialect: SqlDialect): boolean {
  return REFUSED_FUNCTIONS[dialect].some((re) => re.test(name));
}

function parse(sql: string, dialect: SqlDialect): unknown {
  let firstError: unknown = null;
  for (const grammar of GRAMMARS[dialect]) {
    try {
      return parsers[grammar].astify(sql, { database: grammar });
    } catch (e) {
      firstError ??= e;
    }
  }
  throw firstError;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function checkTree(select: AstNode, dialect: SqlDialect, sql: string): void {
  const refuse = (reason: string) => {
    throw new QueryRejectedError(reason, sql);
  };
  for (const cte of Array.isArray(select.with) ? select.with : []) {
    const stmt = isNode(cte) ? cte.stmt : null;
    const inner = isNode(stmt) && isNode(stmt.ast) ? stmt.ast : stmt;
    const type = isNode(inner) ? String(inner.type) : "unknown";
    if (type !== "select") refuse(`a WITH clause may only hold SELECT queries, and this one holds ${type.toUpperCase()} (writes inside a CTE are not allowed)`);
  }
  walk(select, (node) => {
    const type = typeof node.type === "string" ? node.type.toLowerCase() : "";
    if (STATEMENT_TYPES.has(type)) refuse(`${type.toUpperCase()} is not allowed inside a query; only reading with SELECT is`);
    if (isNode(node.ast) && "tableList" in node) {
      const innerType = String((node.ast as AstNode).type);
      if (innerType !== "select") refuse(`a subquery may only be a SELECT, and this one is ${innerType.toUpperCase()}`);
    }
    if (type === "function" || type === "aggr_func") {
      const name = functionName(node);
      if (name && refusedFunction(name, dialect)) refuse(`the function ${name}() is not allowed (it has side effects outside the query)`);
    }
    if (isNode(node.into) && (node.into.expr || node.into.type === "into")) refuse("SELECT … INTO creates a table; only reading is allowed");
    if (node.for_update || node.locking_read) refuse("row locks (FOR UPDATE / FOR SHARE) are not allowed");
  });
}

/** A write or control keyword used as a keyword (not as a call like replace(…)), for messages about unreadable texts. */
function writeKeywordIn(sql: string, tokens: Token[]): string | null {
  for (let k = 0; k < tokens.length; k++) {
    const t = tokens[k];
    if (t.kind !== "word" || tokens[k + 1]?.kind === "open-paren") continue;
    const word = sql.slice(t.start, t.end).toUpperCase();
    if (WRITE_KEYWORDS.has(word)) return word;
  }
  return null;
}

/**
 * Accepts exactly one read-only SELECT or throws QueryRejectedError (it is not a safe single SELECT)
 * or QuerySyntaxError (it is not readable SQL for this dialect). Never runs anything.
 */
export function checkSqlSafety(sql: string, dialect: SqlDialect): CheckedSql {
  const tokens = tokenize(sql, dialect);
  const spans = statementSpans(tokens);
  if (spans.length === 0) throw new QuerySyntaxError("the query is empty (only spaces or comments)", sql);
  if (spans.length > 1) {
    throw new QueryRejectedError(`only a single SELECT statement may run, and this text holds ${plural(spans.length, "statement")}`, sql);
  }
  const keyword = leadingKeyword(sql, tokens);
  if (!READ_KEYWORDS.has(keyword) && tokens[0]?.kind !== "open-paren") {
    throw new QueryRejectedError(`only a single SELECT statement may run, and ${keyword ? `${keyword} is` : "this is"} not allowed`, sql);
  }
  for (const name of calledNames(sql, tokens)) {
    if (refusedFunction(name, dialect)) throw new QueryRejectedError(`the function ${name}() is not allowed (it has side effects outside the query)`, sql);
  }

  let parsed: unknown;
  try {
    parsed = parse(sql, dialect);
  } catch (e) {
    const write = writeKeywordIn(sql, tokens);
    if (write) throw new QueryRejectedError(`${write} is not allowed; only reading with a single SELECT is`, sql);
    throw new QuerySyntaxError(`${describeSyntaxError(e)}. Write one standard SELECT statement.`, sql);
  }
  const statements = (Array.isArray(parsed) ? parsed : [parsed]).filter(isNode);
  if (statements.length !== 1) {
    throw new QueryRejectedError(`only a single SELECT statement may run, and this text holds ${plural(statements.length, "statement")}`, sql);
  }
  const [statement] = statements;
  const type = String(statement.type).toLowerCase();
  if (type !== "select") throw new QueryRejectedError(`only a single SELECT statement may run, and ${type.toUpperCase()} is not allowed`, sql);
  checkTree(statement, dialect, sql);
  return { normalized: sql.slice(spans[0].start, spans[0].end), ast: statement };
}
