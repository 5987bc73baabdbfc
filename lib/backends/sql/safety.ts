import { QueryRejectedError, QuerySyntaxError } from "../errors";
import { queryLimits, type QueryLimits } from "../limits";
import type { SqlDialect } from "./dialect";
import { calledNames, leadingKeyword, parenNesting, statementSpans, type Token, tokenize } from "./lexical";
import { type Grammar, type ParseFailure, sqlParsePool } from "./parse-pool";
import { checkPostgresTree } from "./postgres/query-tree";
import { fromTable, type ResultSource, resultSource } from "./query-shape";
import { checkSqliteTree } from "./sqlite/query-tree";
import { isTreeNode, type TreeNode } from "../tree-walk";
import { count } from "../../format/count";

/**
 * The first wall of the SQL safety rules (DESIGN.md), bounded at every step:
 *
 * 1. Cheap checks on the engine-faithful tokens, linear in the text: a size limit, exactly one
 *    statement that starts like a read, parentheses that match and nest at most QUERY_MAX_NESTING deep.
 * 2. Parsing off the main thread (parse-pool.ts) within QUERY_CHECK_TIMEOUT_MS: PostgreSQL's own parser
 *    (libpg-query) for PostgreSQL, node-sql-parser for SQLite. A parse over budget is refused.
 * 3. Allow, don't block: exactly one SELECT whose every function, operator, cast and table passes the
 *    dialect's allow-list (allow-list.ts, sqlite/query-tree.ts, postgres/query-tree.ts).
 *
 * The second wall is the engine: SQLite prepares the statement, must call it read-only, and every
 * function in its compiled program must be on the allow-list (sqlite/query-child.mjs); PostgreSQL runs
 * it in a READ ONLY transaction with a statement timeout, on a role an admin checked (postgres/privileges.ts).
 */

export interface CheckedSql {
  /** The one statement as written, without a trailing `;` or comments: what the engine runs. */
  normalized: string;
  /** Which table the rows are, when that is plain from the query (evidence titles); null for computed results. */
  source: ResultSource | null;
  /** The table named first in FROM when FROM names exactly one. */
  fromTable: string | null;
}

export interface SqlCheckOptions {
  /** Other bounds than the settings' (tests). */
  limits?: Partial<Pick<QueryLimits, "maxChars" | "maxNesting" | "checkTimeoutMs">>;
}

/**
 * SQLite functions refused on sight in the raw text, before any parser: node-sql-parser's SQLite
 * grammar lexes `#` and `\'` differently from SQLite, so this engine-faithful reading backs up the
 * allow-list on the tree (and SQLite's own compiled program is checked again before anything runs).
 */
const SQLITE_REFUSED_CALLS = [
  /^load_extension$/,
  /^readfile$/,
  /^writefile$/,
  /^edit$/,
  /^fts3_tokenizer$/,
  /^fsdir$/,
  /^lsdir$/,
  /^zipfile/,
  /^eval$/,
  /^sqlar_/,
  /^pragma_/,
];

const READ_KEYWORDS = new Set(["SELECT", "WITH", "VALUES", "TABLE"]);

/** Keywords that, in a text the parser cannot read, make the clearer message "X is not allowed" the right one. */
const WRITE_KEYWORDS = new Set([
  "INSERT",
  "UPDATE",
  "DELETE",
  "REPLACE",
  "MERGE",
  "UPSERT",
  "CREATE",
  "DROP",
  "ALTER",
  "TRUNCATE",
  "ATTACH",
  "DETACH",
  "PRAGMA",
  "VACUUM",
  "REINDEX",
  "ANALYZE",
  "COPY",
  "GRANT",
  "REVOKE",
  "LOCK",
  "CALL",
  "DO",
  "EXECUTE",
  "PREPARE",
  "NOTIFY",
  "LISTEN",
  "SET",
  "RESET",
  "BEGIN",
  "COMMIT",
  "ROLLBACK",
  "SAVEPOINT",
  "RELEASE",
]);

/**
 * Grammars tried in order. node-sql-parser's SQLite grammar lacks INTERSECT and EXCEPT (34 of the 484
 * Spider dev gold queries use them) and reads some table names as keywords (`FROM show`), so a SQLite
 * query it cannot read is tried with its PostgreSQL grammar, then with PostgreSQL's own parser, whose
 * SELECT covers SQLite's common one. Whatever read it, SQLite's own checks apply when it runs.
 */
const GRAMMARS: Record<SqlDialect, Grammar[]> = { sqlite: ["sqlite", "postgresql", "libpg-query"], postgres: ["libpg-query"] };

/** Accepted checks, newest last: the pipeline checks a query when it formulates it and again when it runs. */
const VERDICT_CACHE_SIZE = 1_000;
const verdicts = new Map<string, CheckedSql>();

function cacheKey(sql: string, dialect: SqlDialect): string {
  return `${dialect}\u0000${sql}`;
}

function remember(key: string, checked: CheckedSql): void {
  verdicts.delete(key);
  verdicts.set(key, checked);
  if (verdicts.size > VERDICT_CACHE_SIZE) verdicts.delete(verdicts.keys().next().value as string);
}

/**
 * The table a recently checked query reads its rows from, for verbalizing its result without parsing
 * again (verbalize runs on the main thread and does no I/O). Undefined when the query was not checked here.
 */
export function knownResultSource(sql: string, dialect: SqlDialect): ResultSource | null | undefined {
  return verdicts.get(cacheKey(sql, dialect))?.source;
}

function lineAndColumn(sql: string, offset: number): string {
  const before = sql.slice(0, Math.max(0, offset));
  const line = before.split("\n").length;
  const column = offset - before.lastIndexOf("\n");
  return `line ${line}, column ${column}`;
}

function describeSyntaxError(sql: string, err: ParseFailure): string {
  if (err.location?.start) {
    const where = `line ${err.location.start.line}, column ${err.location.start.column}`;
    return err.found == null ? `the query ends early (${where})` : `unexpected ${JSON.stringify(err.found)} at ${where}`;
  }
  // libpg-query: PostgreSQL's own message, with a 1-based offset into the text.
  if (typeof err.cursorPosition === "number" && err.cursorPosition > 0)
    return `${err.message} (${lineAndColumn(sql, err.cursorPosition - 1)})`;
  return err.message;
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

/** Step 1: what can be decided on the tokens alone. Returns the tokens and the statement's span. */
function lexicalChecks(
  sql: string,
  dialect: SqlDialect,
  limits: Pick<QueryLimits, "maxChars" | "maxNesting">,
): { tokens: Token[]; start: number; end: number } {
  if (sql.length > limits.maxChars) {
    throw new QueryRejectedError(
      `the query is ${sql.length.toLocaleString("en")} characters long, and at most ${limits.maxChars.toLocaleString("en")} are allowed`,
      sql,
    );
  }
  const tokens = tokenize(sql, dialect);
  const spans = statementSpans(tokens);
  if (spans.length === 0) throw new QuerySyntaxError("the query is empty (only spaces or comments)", sql);
  if (spans.length > 1) {
    throw new QueryRejectedError(`only a single SELECT statement may run, and this text holds ${count(spans.length, "statement")}`, sql);
  }
  const keyword = leadingKeyword(sql, tokens);
  if (!READ_KEYWORDS.has(keyword) && tokens[0]?.kind !== "open-paren") {
    throw new QueryRejectedError(`only a single SELECT statement may run, and ${keyword ? `${keyword} is` : "this is"} not allowed`, sql);
  }
  if (dialect === "sqlite") {
    for (const name of calledNames(sql, tokens)) {
      if (SQLITE_REFUSED_CALLS.some((re) => re.test(name)))
        throw new QueryRejectedError(`the function ${name}() is not allowed (it reaches outside the database)`, sql);
    }
  }
  const nesting = parenNesting(tokens);
  if (nesting.unmatched !== 0) {
    const n = Math.abs(nesting.unmatched);
    const what = `${n} ${n === 1 ? "parenthesis is" : "parentheses are"} ${nesting.unmatched > 0 ? "opened but never closed" : "closed without being opened"}`;
    throw new QuerySyntaxError(`${what}. Write one standard SELECT statement.`, sql);
  }
  if (nesting.depth > limits.maxNesting) {
    throw new QueryRejectedError(
      `the query nests parentheses ${nesting.depth} levels deep, and at most ${limits.maxNesting} are allowed; write it more simply`,
      sql,
    );
  }
  return { tokens, start: spans[0].start, end: spans[0].end };
}

function sqliteVerdict(tree: unknown, sql: string): Pick<CheckedSql, "source" | "fromTable"> {
  const statements = (Array.isArray(tree) ? tree : [tree]).filter(isTreeNode);
  if (statements.length !== 1) {
    throw new QueryRejectedError(
      `only a single SELECT statement may run, and this text holds ${count(statements.length, "statement")}`,
      sql,
    );
  }
  const [statement] = statements as TreeNode[];
  const type = String(statement.type).toLowerCase();
  if (type !== "select")
    throw new QueryRejectedError(`only a single SELECT statement may run, and ${type.toUpperCase()} is not allowed`, sql);
  checkSqliteTree(statement, sql);
  return { source: resultSource(statement), fromTable: fromTable(statement) };
}

/**
 * Accepts exactly one read-only SELECT or throws QueryRejectedError (it is not a safe single SELECT, or
 * it is too large or too complex to check) or QuerySyntaxError (it is not readable SQL for this
 * dialect). Never runs anything, and never parses on the calling thread.
 */
export async function checkSqlSafety(sql: string, dialect: SqlDialect, options: SqlCheckOptions = {}): Promise<CheckedSql> {
  const key = cacheKey(sql, dialect);
  const cached = options.limits ? undefined : verdicts.get(key);
  if (cached) {
    remember(key, cached);
    return cached;
  }
  const limits = { ...queryLimits(), ...options.limits };
  const { tokens, start, end } = lexicalChecks(sql, dialect, limits);

  const outcome = await sqlParsePool().parse({ sql, grammars: GRAMMARS[dialect] }, limits.checkTimeoutMs);
  if (outcome.kind === "over-budget") {
    const why = outcome.why === "time" ? `within ${+(limits.checkTimeoutMs / 1000).toFixed(1)} s` : "within the checker's memory";
    throw new QueryRejectedError(
      `the query is too complex to check ${why}; write it more simply (fewer nested parentheses or subqueries)`,
      sql,
    );
  }
  if (outcome.kind === "syntax") {
    const write = writeKeywordIn(sql, tokens);
    if (write) throw new QueryRejectedError(`${write} is not allowed; only reading with a single SELECT is`, sql);
    throw new QuerySyntaxError(`${describeSyntaxError(sql, outcome.error)}. Write one standard SELECT statement.`, sql);
  }
  const verdict = outcome.grammar === "libpg-query" ? checkPostgresTree(outcome.tree, sql, dialect) : sqliteVerdict(outcome.tree, sql);
  const checked: CheckedSql = { normalized: sql.slice(start, end), source: verdict.source, fromTable: verdict.fromTable };
  if (!options.limits) remember(key, checked);
  return checked;
}
