/** The SQL engines a relational KB can live in. */
export type SqlDialect = "sqlite" | "postgres";

/** node-sql-parser's name for each dialect's grammar. */
export const PARSER_DATABASE: Record<SqlDialect, "sqlite" | "postgresql"> = { sqlite: "sqlite", postgres: "postgresql" };

export const DIALECT_LABEL: Record<SqlDialect, string> = { sqlite: "SQLite", postgres: "PostgreSQL" };

/** Always-quoted identifier for SQL we build ourselves (both engines use the standard double quotes). */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/**
 * Words a reader (or a model writing SQL from the descriptor) must quote when they name a table or
 * column. Not every engine's full list: enough that the descriptor never shows a bare `order` column.
 */
const RESERVED = new Set(
  (
    "all alter analyze and any as asc between both by case cast check collate column constraint create cross current_date " +
    "current_time current_timestamp default delete desc distinct do drop else end except exists false fetch for foreign from full " +
    "grant group having in index inner insert intersect into is join key leading left like limit natural not null offset on or " +
    "order outer primary references right row rows select set some table then to trailing true union unique update user using " +
    "values view when where window with"
  ).split(" "),
);

/**
 * An identifier as a query should spell it: bare when the engine reads it back unchanged, quoted
 * otherwise. PostgreSQL folds bare names to lower case, so mixed-case names stay quoted there.
 */
export function spellIdent(name: string, dialect: SqlDialect): string {
  const bare = dialect === "postgres" ? /^[a-z_][a-z0-9_$]*$/ : /^[A-Za-z_][A-Za-z0-9_]*$/;
  return bare.test(name) && !RESERVED.has(name.toLowerCase()) ? name : quoteIdent(name);
}
