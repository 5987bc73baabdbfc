import { tokenize } from "../lexical";

/**
 * SQLite's legacy reading of "double-quoted" text: a name that matches no column is taken as a string
 * literal. better-sqlite3 builds SQLite without it (SQLITE_DQS=0), yet much SQL in the wild relies on
 * it (about one in eight Spider gold queries: `WHERE name = "Kyle"`). SQLite still says which name it
 * could not resolve, so the legacy rule can be applied exactly where SQLite itself would have applied
 * it: that name, and only that name, becomes a single-quoted string and the query is prepared again.
 * Turning a quoted name into a string literal cannot add anything the safety check has not seen.
 */
const UNRESOLVED_DOUBLE_QUOTED = /no such column: "((?:[^"]|"")*)" - should this be a string literal in single-quotes\?/;

/** The unresolved double-quoted name SQLite's error message points at, or null. */
export function unresolvedDoubleQuoted(message: string): string | null {
  const m = UNRESOLVED_DOUBLE_QUOTED.exec(message);
  return m ? m[1].replace(/""/g, '"') : null;
}

/** The query with every "name" token holding exactly `name` written as 'name' instead; null when there is none. */
export function asStringLiteral(sql: string, name: string): string | null {
  const tokens = tokenize(sql, "sqlite").filter(
    (t) => t.kind === "quoted" && sql[t.start] === '"' && sql.slice(t.start + 1, t.end - 1).replace(/""/g, '"') === name,
  );
  if (tokens.length === 0) return null;
  let out = "";
  let at = 0;
  for (const t of tokens) {
    out += `${sql.slice(at, t.start)}'${name.replace(/'/g, "''")}'`;
    at = t.end;
  }
  return out + sql.slice(at);
}
