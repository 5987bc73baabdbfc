import { boundText, COMPACT_MAX_CHARS, descriptorVersion, DESCRIPTOR_MAX_CHARS } from "../descriptor";
import type { Descriptor, Scalar, SourceUnit } from "../types";
import { DIALECT_LABEL, type SqlDialect, spellIdent } from "./dialect";
import { referencedBy, type SchemaSummary, type TableInfo, type TableStats } from "./schema";
import { looksLikeName } from "./values";
import { count } from "../../format/count";

/**
 * The descriptor c_b of a relational KB: CREATE TABLE statements (columns, types, PRIMARY KEY,
 * FOREIGN KEY … REFERENCES) with row counts and a few example values per column, the form text-to-SQL
 * prompts read best. Large schemas fall back to shorter forms, never dropping a table silently.
 */
export interface DescribeContext {
  kbName: string;
  dialect: SqlDialect;
  /** "file concert_singer.sqlite", "database shop on db.example.com:5432, schema public". */
  location: string;
}

const EXAMPLE_MAX_CHARS = 40;

function literal(v: Scalar): string {
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  const s = String(v).replace(/\s+/g, " ");
  const cut = s.length > EXAMPLE_MAX_CHARS ? `${s.slice(0, EXAMPLE_MAX_CHARS - 1)}…` : s;
  return `'${cut.replace(/'/g, "''")}'`;
}

function rowsText(stats: TableStats | undefined): string {
  if (!stats || stats.rows === null) return "rows unknown";
  return `${stats.approximate ? "about " : ""}${count(stats.rows, "row")}`;
}

function createTable(t: TableInfo, dialect: SqlDialect): string {
  const id = (n: string) => spellIdent(n, dialect);
  const lines = t.columns.map(
    (c) => `  ${id(c.name)}${c.type ? ` ${c.type}` : ""}${c.notNull && !t.primaryKey.includes(c.name) ? " NOT NULL" : ""}`,
  );
  if (t.primaryKey.length > 0) lines.push(`  PRIMARY KEY (${t.primaryKey.map(id).join(", ")})`);
  for (const fk of t.foreignKeys) {
    const target = fk.refColumns.length > 0 ? `${id(fk.refTable)}(${fk.refColumns.map(id).join(", ")})` : id(fk.refTable);
    lines.push(`  FOREIGN KEY (${fk.columns.map(id).join(", ")}) REFERENCES ${target}`);
  }
  const head = t.kind === "view" ? `-- view\nCREATE TABLE ${id(t.name)} (` : `CREATE TABLE ${id(t.name)} (`;
  return `${head}\n${lines.join(",\n")}\n);`;
}

function exampleLines(t: TableInfo, stats: TableStats | undefined, dialect: SqlDialect): string[] {
  if (!stats) return [];
  return t.columns
    .filter((c) => (stats.examples[c.name] ?? []).length > 0)
    .map(
      (c) =>
        `-- examples: ${spellIdent(t.name, dialect)}.${spellIdent(c.name, dialect)}: ${stats.examples[c.name].map(literal).join(", ")}`,
    );
}

/** One line per table: `singer(Singer_ID int PK, Name text, …) -- 6 rows; Stadium_ID → stadium`. */
function tableLine(t: TableInfo, stats: TableStats | undefined, dialect: SqlDialect): string {
  const id = (n: string) => spellIdent(n, dialect);
  const cols = t.columns.map((c) => `${id(c.name)}${c.type ? ` ${c.type}` : ""}${t.primaryKey.includes(c.name) ? " PK" : ""}`);
  const refs = t.foreignKeys.map((fk) => `${fk.columns.map(id).join(", ")} → ${id(fk.refTable)}`);
  return `${id(t.name)}(${cols.join(", ")}) -- ${rowsText(stats)}${refs.length ? `; ${refs.join("; ")}` : ""}`;
}

function header(summary: SchemaSummary, ctx: DescribeContext): string {
  const columns = summary.tables.reduce((n, t) => n + t.columns.length, 0);
  const rows = [...summary.stats.values()].reduce((n, s) => n + (s.rows ?? 0), 0);
  const dialect = DIALECT_LABEL[ctx.dialect];
  return [
    `-- ${dialect} database "${ctx.kbName}" (${ctx.location}; ${summary.engineVersion}): ${count(summary.tables.length, "table")}, ${count(columns, "column")}, ${count(rows, "row")}.`,
    `-- Read-only: write one SELECT statement in ${dialect} SQL.`,
  ].join("\n");
}

/**
 * Abbreviations of a table's column list for the compact form, most detailed first. The compact form
 * picks the first level at which every table fits, so each table is always named.
 */
const COMPACT_LEVELS: ((t: TableInfo, dialect: SqlDialect) => string)[] = [
  (t, d) => `${spellIdent(t.name, d)}(${t.columns.map((c) => compactColumn(t, c.name, d, true)).join(", ")})`,
  (t, d) => `${spellIdent(t.name, d)}(${t.columns.map((c) => compactColumn(t, c.name, d, false)).join(", ")})`,
  (t, d) => abbreviated(t, d, 8),
  (t, d) => abbreviated(t, d, 4),
  (t, d) => abbreviated(t, d, 2),
  (t, d) => `${spellIdent(t.name, d)}(${count(t.columns.length, "column")})`,
];

function compactColumn(t: TableInfo, column: string, dialect: SqlDialect, withRefs: boolean): string {
  const fk = withRefs ? t.foreignKeys.find((f) => f.columns.length === 1 && f.columns[0] === column) : undefined;
  return `${spellIdent(column, dialect)}${fk ? `→${spellIdent(fk.refTable, dialect)}` : ""}`;
}

function abbreviated(t: TableInfo, dialect: SqlDialect, keep: number): string {
  const shown = t.columns.slice(0, keep).map((c) => spellIdent(c.name, dialect));
  const more = t.columns.length - shown.length;
  return `${spellIdent(t.name, dialect)}(${shown.join(", ")}${more > 0 ? `, +${more} more` : ""})`;
}

function compactText(summary: SchemaSummary, ctx: DescribeContext): string {
  const head = `${DIALECT_LABEL[ctx.dialect]} "${ctx.kbName}": ${count(summary.tables.length, "table")}.`;
  for (const level of COMPACT_LEVELS) {
    const text = [head, ...summary.tables.map((t) => level(t, ctx.dialect))].join("\n");
    if (text.length <= COMPACT_MAX_CHARS) return text;
  }
  return boundText(`${head}\n${summary.tables.map((t) => spellIdent(t.name, ctx.dialect)).join(", ")}`, COMPACT_MAX_CHARS);
}

function fullText(summary: SchemaSummary, ctx: DescribeContext): string {
  const stats = (t: TableInfo) => summary.stats.get(t.name);
  const blocks = (withExamples: boolean) =>
    summary.tables.map((t) =>
      [
        createTable(t, ctx.dialect),
        `-- ${t.name}: ${rowsText(stats(t))}`,
        ...(withExamples ? exampleLines(t, stats(t), ctx.dialect) : []),
      ].join("\n"),
    );
  const candidates = [
    [header(summary, ctx), ...blocks(true)].join("\n\n"),
    [header(summary, ctx), ...blocks(false)].join("\n\n"),
    [header(summary, ctx), ...summary.tables.map((t) => tableLine(t, stats(t), ctx.dialect))].join("\n"),
    [header(summary, ctx), compactText(summary, ctx)].join("\n"),
  ];
  return candidates.find((c) => c.length <= DESCRIPTOR_MAX_CHARS) ?? boundText(candidates[candidates.length - 1], DESCRIPTOR_MAX_CHARS);
}

export function renderDescriptor(summary: SchemaSummary, ctx: DescribeContext): Descriptor {
  const text = fullText(summary, ctx);
  const stats = [...summary.stats.values()];
  return {
    text,
    compact: compactText(summary, ctx),
    version: descriptorVersion(text),
    stats: {
      tables: summary.tables.length,
      columns: summary.tables.reduce((n, t) => n + t.columns.length, 0),
      rows: stats.reduce((n, s) => n + (s.rows ?? 0), 0),
      foreignKeys: summary.tables.reduce((n, t) => n + t.foreignKeys.length, 0),
    },
  };
}

const DESCRIBED_COLUMNS = 15;
const EXAMPLE_COLUMNS = 3;

function columnPhrase(t: TableInfo, name: string, type: string): string {
  const notes = [type, t.primaryKey.includes(name) ? "primary key" : ""].filter(Boolean);
  const fk = t.foreignKeys.find((f) => f.columns.includes(name));
  if (fk) notes.push(`→ ${fk.refTable}`);
  return notes.length > 0 ? `${name} (${notes.join(", ")})` : name;
}

/** "Table singer: 6 rows; columns Singer_ID (int, primary key), Name (text), …; references concert. Examples: …" */
function unitDescription(t: TableInfo, stats: TableStats | undefined, tables: TableInfo[]): string {
  const cols = t.columns.slice(0, DESCRIBED_COLUMNS).map((c) => columnPhrase(t, c.name, c.type));
  const more = t.columns.length - cols.length;
  const parts = [
    `${t.kind === "view" ? "View" : "Table"} ${t.name}: ${rowsText(stats)}`,
    `columns ${cols.join(", ")}${more > 0 ? ` and ${more} more` : ""}`,
  ];
  const refs = [...new Set(t.foreignKeys.map((f) => f.refTable))];
  if (refs.length > 0) parts.push(`references ${refs.join(", ")}`);
  const by = referencedBy(tables, t);
  if (by.length > 0) parts.push(`referenced by ${by.join(", ")}`);
  const examples = t.columns
    .map((c) => [c.name, (stats?.examples[c.name] ?? []).filter(looksLikeName)] as const)
    .filter(([, values]) => values.length > 0)
    .slice(0, EXAMPLE_COLUMNS)
    .map(([name, values]) => `${name}: ${values.join(", ")}`);
  const text = `${parts.join("; ")}.`;
  return examples.length > 0 ? `${text} Examples: ${examples.join("; ")}.` : text;
}

const LARGE_TABLE_ROWS = 100_000;

export function renderSourceUnits(summary: SchemaSummary, dialect: SqlDialect): SourceUnit[] {
  return summary.tables.map((t) => {
    const stats = summary.stats.get(t.name);
    const by = referencedBy(summary.tables, t);
    const tags: string[] = [dialect, t.kind];
    if (t.foreignKeys.length > 0) tags.push("has-foreign-keys");
    if (by.length > 0) tags.push("referenced");
    if (stats?.rows === 0) tags.push("empty");
    if ((stats?.rows ?? 0) >= LARGE_TABLE_ROWS) tags.push("large");
    return {
      key: t.name,
      name: t.name,
      contentType: "TABLE" as const,
      description: unitDescription(t, stats, summary.tables),
      tags,
      metadata: {
        dialect,
        kind: t.kind,
        rows: stats?.rows ?? null,
        rowsApproximate: stats?.approximate ?? false,
        columns: t.columns.map((c) => c.name),
        primaryKey: t.primaryKey,
        references: [...new Set(t.foreignKeys.map((f) => f.refTable))],
        referencedBy: by,
      },
    };
  });
}
