import { z } from "zod";
import type { KbStructure, SqlStructureColumn } from "../backends/types";

/**
 * What an analyst tells Mosaic about a table that its schema does not say: the words the business
 * uses for a column ("wealth" for Net_Worth_Millions, "how old" for age), what a column means, and the
 * measures that are no column at all ("revenue" = SUM(quantity * unit_price), "units sold" =
 * SUM(quantity)). Stored on the table's source object (`SourceObject.annotations`); schema linking
 * reads the synonyms as the column's own words and offers each measure as a column of its table, so
 * "the top 3 products by revenue" is ranked by the sum the analyst defined, not by a row's unit price.
 *
 * A measure's expression is arithmetic over the table's own columns (numbers, + - * /, parentheses):
 * no function, no subquery, no other table. It is parsed here into parts whose column names are
 * checked against the table, and the query that uses it is checked and bounded by the engine like every
 * generated query. Saving also runs the measure once on the engine (table-notes-check.ts).
 */

const phrase = z
  .string()
  .trim()
  .min(1)
  .max(60, "Keep each synonym under 60 characters.")
  .regex(/^[\p{L}\p{N} '&/-]+$/u, "Synonyms may use letters, digits, spaces and ' & / -");

const synonyms = z
  .array(phrase)
  .max(20, "At most 20 synonyms per column.")
  .default([])
  .transform((s) => [...new Set(s.map((x) => x.toLowerCase()))]);

export const columnNoteSchema = z.object({
  name: z.string().trim().min(1).max(200),
  description: z.string().trim().max(500, "Keep a column's description under 500 characters.").default(""),
  synonyms,
});

export const MEASURE_AGGREGATES = ["sum", "avg", "min", "max"] as const;

export const measureSchema = z.object({
  name: z
    .string()
    .trim()
    .min(1, "Name the measure.")
    .max(60)
    .regex(/^[\p{L}][\p{L}\p{N} '&/-]*$/u, "A measure's name starts with a letter and uses letters, digits, spaces and ' & / -"),
  expression: z.string().trim().min(1, "Enter the measure's expression, e.g. quantity * unit_price.").max(300),
  aggregate: z.enum(MEASURE_AGGREGATES).default("sum"),
  description: z.string().trim().max(500).default(""),
  synonyms,
});

export const tableNotesSchema = z
  .object({
    columns: z.array(columnNoteSchema).max(500).default([]),
    measures: z.array(measureSchema).max(50, "At most 50 measures per table.").default([]),
  })
  .superRefine((notes, ctx) => {
    const seen = new Set<string>();
    notes.measures.forEach((m, i) => {
      const key = m.name.toLowerCase();
      if (seen.has(key)) ctx.addIssue({ code: "custom", path: ["measures", i, "name"], message: `Two measures are called "${m.name}".` });
      seen.add(key);
    });
  });

export type ColumnNote = z.infer<typeof columnNoteSchema>;
export type Measure = z.infer<typeof measureSchema>;
export type TableNotes = z.infer<typeof tableNotesSchema>;

export const EMPTY_TABLE_NOTES: TableNotes = { columns: [], measures: [] };

/** Notes as stored (a JSON value written by this module), or none when the value is not a valid note set. */
export function readTableNotes(value: unknown): TableNotes {
  const parsed = tableNotesSchema.safeParse(value ?? {});
  return parsed.success ? parsed.data : EMPTY_TABLE_NOTES;
}

export function hasTableNotes(notes: TableNotes): boolean {
  return notes.measures.length > 0 || notes.columns.some((c) => c.synonyms.length > 0 || c.description !== "");
}

// ---------------------------------------------------------------------------------------------
// Measure expressions

/** A parsed expression: operators, numbers and parentheses as text, columns by their name in the table. */
export type ExpressionPart = { text: string } | { column: string };

export class MeasureExpressionError extends Error {}

const TOKEN = /\s*(?:(\d+(?:\.\d+)?)|([A-Za-z_\u0080-\uffff][A-Za-z0-9_\u0080-\uffff]*)|"((?:[^"]|"")+)"|([-+*/()]))/y;

/**
 * Parses `quantity * unit_price`, `(price - cost) / price`, `"Unit Price" * 1.19` over `columns` (names
 * matched without regard to case) into parts; throws MeasureExpressionError naming what is wrong.
 * Grammar: expr := term (('+'|'-') term)*; term := factor (('*'|'/') factor)*; factor := number | column | '(' expr ')' | '-' factor.
 */
export function parseMeasureExpression(expression: string, columns: string[]): ExpressionPart[] {
  const byLower = new Map(columns.map((c) => [c.toLowerCase(), c]));
  const tokens: ({ kind: "number" | "op"; text: string } | { kind: "column"; name: string })[] = [];
  TOKEN.lastIndex = 0;
  let at = 0;
  while (at < expression.length) {
    if (/^\s*$/.test(expression.slice(at))) break;
    TOKEN.lastIndex = at;
    const m = TOKEN.exec(expression);
    if (!m)
      throw new MeasureExpressionError(
        `Cannot read "${expression.slice(at).trim().slice(0, 20)}": use column names, numbers, + - * / and parentheses.`,
      );
    at = TOKEN.lastIndex;
    if (m[1] !== undefined) tokens.push({ kind: "number", text: m[1] });
    else if (m[4] !== undefined) tokens.push({ kind: "op", text: m[4] });
    else {
      const raw = m[2] ?? m[3].replace(/""/g, '"');
      const name = byLower.get(raw.toLowerCase());
      if (!name) throw new MeasureExpressionError(`"${raw}" is not a column of this table (columns: ${columns.slice(0, 12).join(", ")}).`);
      tokens.push({ kind: "column", name });
    }
  }
  if (tokens.length === 0) throw new MeasureExpressionError("The expression is empty.");
  let i = 0;
  const out: ExpressionPart[] = [];
  const peek = () => tokens[i];
  const isOp = (text: string) => {
    const t = peek();
    return t?.kind === "op" && t.text === text;
  };
  const factor = (): void => {
    const t = peek();
    if (!t) throw new MeasureExpressionError("The expression ends too early.");
    if (t.kind === "number") {
      out.push({ text: t.text });
      i++;
    } else if (t.kind === "column") {
      out.push({ column: t.name });
      i++;
    } else if (t.text === "(") {
      out.push({ text: "(" });
      i++;
      expr();
      if (!isOp(")")) throw new MeasureExpressionError("A parenthesis is not closed.");
      out.push({ text: ")" });
      i++;
    } else if (t.text === "-") {
      out.push({ text: "-" });
      i++;
      factor();
    } else throw new MeasureExpressionError(`"${t.text}" cannot stand there.`);
  };
  const term = (): void => {
    factor();
    while (isOp("*") || isOp("/")) {
      out.push({ text: (peek() as { text: string }).text });
      i++;
      factor();
    }
  };
  const expr = (): void => {
    term();
    while (isOp("+") || isOp("-")) {
      out.push({ text: (peek() as { text: string }).text });
      i++;
      term();
    }
  };
  expr();
  if (i < tokens.length) throw new MeasureExpressionError(`Unexpected "${tokenText(tokens[i])}" after a complete expression.`);
  if (!out.some((p) => "column" in p)) throw new MeasureExpressionError("A measure uses at least one column of the table.");
  return out;
}

function tokenText(t: { kind: string; text?: string; name?: string }): string {
  return t.text ?? t.name ?? "";
}

/** The expression as SQL, each column written by `column` (quoted and qualified by the caller's dialect). */
export function renderExpression(parts: ExpressionPart[], column: (name: string) => string): string {
  return parts
    .map((p) => ("column" in p ? column(p.column) : p.text))
    .join(" ")
    .replace(/\( /g, "(")
    .replace(/ \)/g, ")");
}

// ---------------------------------------------------------------------------------------------
// The structure schema linking reads

/**
 * A relational KB's structure with its tables' notes: each noted column carries its synonyms and
 * description, each measure becomes a column of its table (numeric, no examples) with its parsed
 * expression. A measure whose expression no longer parses over the table (a renamed column) is left
 * out and named in `skipped`. Other kinds of structure are returned as they are.
 */
export function annotateStructure(
  structure: KbStructure,
  notesOf: (table: string) => TableNotes | undefined,
): { structure: KbStructure; skipped: string[] } {
  if (structure.kind !== "sql") return { structure, skipped: [] };
  const skipped: string[] = [];
  let changed = false;
  const tables = structure.tables.map((t) => {
    const notes = notesOf(t.name);
    if (!notes || !hasTableNotes(notes)) return t;
    changed = true;
    const byColumn = new Map(notes.columns.map((c) => [c.name.toLowerCase(), c]));
    const columns: SqlStructureColumn[] = t.columns.map((c) => {
      const note = byColumn.get(c.name.toLowerCase());
      if (!note) return c;
      return {
        ...c,
        ...(note.synonyms.length ? { synonyms: note.synonyms } : {}),
        ...(note.description ? { description: note.description } : {}),
      };
    });
    const names = t.columns.map((c) => c.name);
    for (const m of notes.measures) {
      if (names.some((n) => n.toLowerCase() === m.name.toLowerCase())) continue;
      try {
        const parts = parseMeasureExpression(m.expression, names);
        columns.push({
          name: m.name,
          type: "REAL",
          examples: [],
          ...(m.synonyms.length ? { synonyms: m.synonyms } : {}),
          ...(m.description ? { description: m.description } : {}),
          measure: { aggregate: m.aggregate, parts },
        });
      } catch (e) {
        if (!(e instanceof MeasureExpressionError)) throw e;
        skipped.push(`the measure "${m.name}" of ${t.name} (${e.message})`);
      }
    }
    return { ...t, columns };
  });
  return { structure: changed ? { ...structure, tables } : structure, skipped };
}
