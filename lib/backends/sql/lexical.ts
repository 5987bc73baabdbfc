import type { SqlDialect } from "./dialect";

/**
 * A tokenizer that reads SQL text the way the engine does: strings, quoted identifiers and comments
 * are skipped by each engine's own rules (PostgreSQL nests block comments and has E'' and $$ strings;
 * SQLite has `…` and […] identifiers and no backslash escapes).
 *
 * It never decides that a query is safe: node-sql-parser does (safety.ts). It exists because the
 * parser's grammars do not lex exactly like the engines (node-sql-parser's SQLite grammar reads `#`
 * as a comment and `\'` as an escaped quote; SQLite does neither), so a parser-only check could be
 * shown one statement while the engine runs two, or miss a function call the parser took for a
 * comment. The safety check therefore also refuses when this engine-faithful reading finds more than
 * one statement or a refused function call, and uses it to cut the trailing `;` and comments off the
 * accepted statement (PostgreSQL runs it inside `DECLARE … CURSOR FOR`).
 */
export type TokenKind = "word" | "quoted" | "string" | "semicolon" | "open-paren" | "close-paren" | "other";

export interface Token {
  kind: TokenKind;
  start: number;
  end: number;
}

export interface StatementSpan {
  /** Offset of the statement's first token. */
  start: number;
  /** Offset just past its last token (before any `;`, trailing spaces and comments). */
  end: number;
}

const SPACE = /\s/;
const WORD_START = /[A-Za-z_\u0080-\uffff]/;
const WORD_CHAR = /[A-Za-z0-9_$\u0080-\uffff]/;

function skipLineComment(sql: string, i: number): number {
  const nl = sql.indexOf("\n", i);
  return nl < 0 ? sql.length : nl + 1;
}

function skipBlockComment(sql: string, i: number, nested: boolean): number {
  let depth = 1;
  let j = i + 2;
  while (j < sql.length && depth > 0) {
    if (nested && sql[j] === "/" && sql[j + 1] === "*") {
      depth++;
      j += 2;
    } else if (sql[j] === "*" && sql[j + 1] === "/") {
      depth--;
      j += 2;
    } else j++;
  }
  return j;
}

/** A run closed by `close`; a doubled quote stands for itself; backslash escapes only in PostgreSQL E'' strings. */
function skipQuoted(sql: string, i: number, close: string, backslashEscapes: boolean): number {
  let j = i + 1;
  while (j < sql.length) {
    const c = sql[j];
    if (backslashEscapes && c === "\\") j += 2;
    else if (c === close && sql[j + 1] === close && close !== "]") j += 2;
    else if (c === close) return j + 1;
    else j++;
  }
  return j;
}

function dollarQuoteEnd(sql: string, i: number): number | null {
  const tag = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.exec(sql.slice(i, i + 64));
  if (!tag) return null;
  const end = sql.indexOf(tag[0], i + tag[0].length);
  return end < 0 ? sql.length : end + tag[0].length;
}

export function tokenize(sql: string, dialect: SqlDialect): Token[] {
  const pg = dialect === "postgres";
  const tokens: Token[] = [];
  let i = 0;
  while (i < sql.length) {
    const c = sql[i];
    const next = sql[i + 1];
    if (SPACE.test(c)) {
      i++;
      continue;
    }
    if (c === "-" && next === "-") {
      i = skipLineComment(sql, i);
      continue;
    }
    if (c === "/" && next === "*") {
      i = skipBlockComment(sql, i, pg);
      continue;
    }
    const start = i;
    let kind: TokenKind;
    if (pg && (c === "E" || c === "e") && next === "'") {
      kind = "string";
      i = skipQuoted(sql, i + 1, "'", true);
    } else if (WORD_START.test(c)) {
      kind = "word";
      while (i < sql.length && WORD_CHAR.test(sql[i])) i++;
    } else if (c === "'") {
      kind = "string";
      i = skipQuoted(sql, i, "'", false);
    } else if (c === '"' || (!pg && (c === "`" || c === "["))) {
      kind = "quoted";
      i = skipQuoted(sql, i, c === "[" ? "]" : c, false);
    } else if (pg && c === "$" && dollarQuoteEnd(sql, i) !== null) {
      kind = "string";
      i = dollarQuoteEnd(sql, i) as number;
    } else {
      kind = c === ";" ? "semicolon" : c === "(" ? "open-paren" : c === ")" ? "close-paren" : "other";
      i++;
    }
    tokens.push({ kind, start, end: i });
  }
  return tokens;
}

/** The statements of a text: runs of tokens between semicolons (empty runs, like `;;`, are not statements). */
export function statementSpans(tokens: Token[]): StatementSpan[] {
  const spans: StatementSpan[] = [];
  let current: StatementSpan | null = null;
  for (const t of tokens) {
    if (t.kind === "semicolon") {
      if (current) spans.push(current);
      current = null;
    } else if (current) current.end = t.end;
    else current = { start: t.start, end: t.end };
  }
  if (current) spans.push(current);
  return spans;
}

/** Names written as calls (`name(`), lower-cased, with any quotes removed: `"PG_SLEEP"(1)` gives pg_sleep. */
export function calledNames(sql: string, tokens: Token[]): string[] {
  const names: string[] = [];
  for (let k = 0; k + 1 < tokens.length; k++) {
    const t = tokens[k];
    if (tokens[k + 1].kind !== "open-paren") continue;
    if (t.kind === "word") names.push(sql.slice(t.start, t.end).toLowerCase());
    else if (t.kind === "quoted") names.push(sql.slice(t.start + 1, t.end - 1).toLowerCase());
  }
  return names;
}

/** The first keyword of a text, upper-cased ("SELECT", "COPY"), or "" when it starts with something else. */
export function leadingKeyword(sql: string, tokens: Token[]): string {
  const first = tokens[0];
  return first?.kind === "word" ? sql.slice(first.start, first.end).toUpperCase() : "";
}

export interface ParenNesting {
  /** Deepest nesting reached. */
  depth: number;
  /** Parentheses opened but never closed (positive) or closed without being opened (negative). */
  unmatched: number;
}

/**
 * How deeply a text nests parentheses, from the engine-faithful tokens (parentheses inside strings,
 * quoted names and comments do not count). Linear in the text, so it can run before any parser.
 */
export function parenNesting(tokens: Token[]): ParenNesting {
  let open = 0;
  let depth = 0;
  let stray = 0;
  for (const t of tokens) {
    if (t.kind === "open-paren") depth = Math.max(depth, ++open);
    else if (t.kind === "close-paren") {
      if (open === 0) stray++;
      else open--;
    }
  }
  return { depth, unmatched: open > 0 ? open : -stray };
}
