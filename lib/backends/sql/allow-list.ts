import type { SqlDialect } from "./dialect";

/**
 * What a generated or saved query may call, per dialect: the functions business questions need
 * (aggregates, text, dates, numbers, casts, conditionals, window functions, JSON look-ups) and nothing
 * else. A name not listed here is refused with its name, so a function that runs SQL text of its own
 * (ts_stat, query_to_xml), reaches files or other servers (pg_read_file, dblink), signals other sessions
 * (pg_terminate_backend), changes settings (set_config) or does maintenance (gin_clean_pending_list)
 * cannot run, whether or not anyone thought to name it. A blocklist cannot be complete; this list can.
 */

const COMMON_AGGREGATES = ["avg", "count", "max", "min", "sum"];
const WINDOW_FUNCTIONS = ["row_number", "rank", "dense_rank", "percent_rank", "cume_dist", "ntile", "lag", "lead", "first_value", "last_value", "nth_value"];
const MATH = [
  "abs", "acos", "asin", "atan", "atan2", "ceil", "ceiling", "cos", "cot", "degrees", "exp", "floor", "ln", "log", "log10", "mod",
  "pi", "power", "pow", "radians", "round", "sign", "sin", "sqrt", "tan", "trunc",
];

const SQLITE_FUNCTIONS = [
  ...COMMON_AGGREGATES, "group_concat", "string_agg", "total",
  ...WINDOW_FUNCTIONS, ...MATH, "acosh", "asinh", "atanh", "cosh", "log2", "sinh", "tanh",
  // text
  "char", "concat", "concat_ws", "format", "glob", "hex", "instr", "length", "like", "lower", "ltrim", "octet_length", "printf",
  "replace", "rtrim", "soundex", "substr", "substring", "trim", "unicode", "upper",
  // conditionals and types
  "coalesce", "ifnull", "iif", "if", "nullif", "typeof", "likely", "unlikely", "likelihood",
  // dates
  "date", "time", "datetime", "julianday", "unixepoch", "strftime", "timediff",
  // JSON look-ups (json_each and json_tree are the table-valued ones)
  "json", "json_array", "json_array_length", "json_extract", "json_object", "json_quote", "json_type", "json_valid",
  "json_group_array", "json_group_object", "json_each", "json_tree", "->", "->>",
  // Names node-sql-parser gives to syntax rather than calls.
  "exists", "cast",
];

const POSTGRES_FUNCTIONS = [
  ...COMMON_AGGREGATES, "array_agg", "bool_and", "bool_or", "every", "string_agg", "stddev", "stddev_pop", "stddev_samp", "variance",
  "var_pop", "var_samp", "percentile_cont", "percentile_disc", "mode", "corr", "covar_pop", "covar_samp", "regr_slope", "regr_intercept",
  "regr_r2", "regr_count", "json_agg", "jsonb_agg", "json_object_agg", "jsonb_object_agg",
  ...WINDOW_FUNCTIONS, ...MATH, "cbrt", "div", "width_bucket", "gcd", "lcm", "scale", "factorial",
  // text
  "ascii", "btrim", "char_length", "character_length", "chr", "concat", "concat_ws", "format", "initcap", "left", "length", "lower",
  "lpad", "ltrim", "md5", "octet_length", "bit_length", "overlay", "position", "regexp_count", "regexp_instr", "regexp_like",
  "regexp_match", "regexp_replace", "regexp_substr", "replace", "reverse", "right", "rpad", "rtrim", "split_part", "starts_with",
  "strpos", "substr", "substring", "to_hex", "translate", "trim", "upper", "similar_to_escape", "like_escape",
  // dates and formatting
  "age", "date_bin", "date_part", "date_trunc", "extract", "isfinite", "justify_days", "justify_hours", "justify_interval",
  "make_date", "make_interval", "make_time", "make_timestamp", "make_timestamptz", "now", "timezone", "to_char", "to_date",
  "to_number", "to_timestamp",
  // arrays and JSON look-ups
  "array_length", "array_lower", "array_upper", "array_position", "array_to_string", "cardinality", "string_to_array", "unnest",
  "json_array_elements", "json_array_elements_text", "json_array_length", "json_build_array", "json_build_object", "json_each",
  "json_each_text", "json_extract_path", "json_extract_path_text", "json_object_keys", "json_typeof", "jsonb_array_elements",
  "jsonb_array_elements_text", "jsonb_array_length", "jsonb_build_array", "jsonb_build_object", "jsonb_each", "jsonb_each_text",
  "jsonb_extract_path", "jsonb_extract_path_text", "jsonb_object_keys", "jsonb_typeof", "to_json", "to_jsonb",
];

export const ALLOWED_FUNCTIONS: Record<SqlDialect, ReadonlySet<string>> = {
  sqlite: new Set(SQLITE_FUNCTIONS),
  postgres: new Set(POSTGRES_FUNCTIONS),
};

/** PostgreSQL operators by symbol (every one a built-in of pg_catalog), plus the words BETWEEN is spelled with in the tree. */
export const ALLOWED_POSTGRES_OPERATORS: ReadonlySet<string> = new Set([
  "+", "-", "*", "/", "%", "^", "|/", "||/", "@", "&", "|", "#", "~", "<<", ">>",
  "=", "<>", "!=", "<", ">", "<=", ">=", "||",
  "~~", "~~*", "!~~", "!~~*", "~*", "!~", "!~*",
  "@>", "<@", "&&", "->", "->>", "#>", "#>>", "?", "?|", "?&",
  "BETWEEN", "NOT BETWEEN", "BETWEEN SYMMETRIC", "NOT BETWEEN SYMMETRIC",
]);

/**
 * Types a PostgreSQL query may cast to, by the name the parser gives them (`::int` is pg_catalog.int4).
 * Casting runs the type's input function, so only built-in value types are listed: no regclass or
 * regproc look-ups, no types of an extension.
 */
export const ALLOWED_POSTGRES_TYPES: ReadonlySet<string> = new Set([
  "int2", "int4", "int8", "smallint", "integer", "int", "bigint", "numeric", "decimal", "float4", "float8", "real",
  "text", "varchar", "bpchar", "char", "bool", "boolean", "date", "time", "timetz", "timestamp", "timestamptz", "interval",
  "json", "jsonb", "uuid",
]);

/** SQL-standard value functions (CURRENT_DATE…) that read only the clock; CURRENT_USER and friends are not needed. */
export const ALLOWED_POSTGRES_VALUE_FUNCTIONS: ReadonlySet<string> = new Set([
  "SVFOP_CURRENT_DATE", "SVFOP_CURRENT_TIME", "SVFOP_CURRENT_TIME_N", "SVFOP_CURRENT_TIMESTAMP", "SVFOP_CURRENT_TIMESTAMP_N",
  "SVFOP_LOCALTIME", "SVFOP_LOCALTIME_N", "SVFOP_LOCALTIMESTAMP", "SVFOP_LOCALTIMESTAMP_N",
]);

/** Schemas a PostgreSQL name may be qualified with: the built-in catalog's functions, operators and types only. */
export const BUILTIN_SCHEMA = "pg_catalog";

/**
 * Relations a query may not read though the role could: the server's catalogs (pg_authid holds password
 * hashes, pg_stat_activity other sessions' queries, pg_settings file paths). Unqualified pg_* names are
 * included because pg_catalog is searched first whatever the search path says.
 */
export function isSystemRelation(dialect: SqlDialect, schema: string | null, name: string): boolean {
  const n = name.toLowerCase();
  const s = schema?.toLowerCase() ?? null;
  if (dialect === "postgres") return s === "pg_catalog" || s === "information_schema" || s === "pg_toast" || n.startsWith("pg_");
  // SQLite: pragma_* table-valued functions show file paths and settings; dbstat and sqlite_dbpage read raw pages.
  return n.startsWith("pragma_") || n === "dbstat" || n === "sqlite_dbpage" || n === "sqlite_stmt";
}
