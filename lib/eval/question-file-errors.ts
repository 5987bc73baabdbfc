import { parse } from "csv-parse/sync";
import type { z } from "zod";
import { AppError } from "../errors";

/**
 * Reading question files (the dataset splits and files given with --questions): every problem stops
 * the run with one message naming the file, the line or item, and what is wrong.
 */
export class QuestionFileError extends AppError {
  constructor(message: string) {
    super("VALIDATION", message);
  }
}

export interface CsvRecord {
  row: Record<string, string>;
  /** 1-based line of the file the record ends on (the header is line 1). */
  line: number;
}

/** CSV with a header row; the named columns must be there. */
export function parseCsvRecords(bytes: Buffer | string, file: string, required: string[]): CsvRecord[] {
  let header: string[] = [];
  let parsed: { record: Record<string, string>; info: { lines: number } }[];
  try {
    parsed = parse(bytes, {
      columns: (h: string[]) => (header = h.map((c) => c.trim())),
      skip_empty_lines: true,
      bom: true,
      info: true,
    }) as unknown as typeof parsed;
  } catch (e) {
    throw new QuestionFileError(`${file} is not readable CSV: ${(e as Error).message}.`);
  }
  const missing = required.filter((c) => !header.includes(c));
  if (missing.length) {
    throw new QuestionFileError(
      `${file}, line 1: the header has no column ${missing.map((c) => `"${c}"`).join(", ")} (it has ${header.map((c) => `"${c}"`).join(", ") || "none"}; expected ${required.join(", ")}).`,
    );
  }
  if (!parsed.length) throw new QuestionFileError(`${file} has a header but no rows.`);
  return parsed.map((p) => ({ row: p.record, line: p.info.lines }));
}

/** JSON.parse with the place of a syntax error as line and column. */
export function parseJsonText(text: string, file: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    const message = (e as Error).message;
    const pos = /position (\d+)/.exec(message);
    let where = "";
    if (pos) {
      const before = text.slice(0, Number(pos[1]));
      const line = before.split("\n").length;
      where = `, line ${line}, column ${Number(pos[1]) - before.lastIndexOf("\n")}`;
    }
    throw new QuestionFileError(
      `${file} is not valid JSON${where}: ${message.replace(/ in JSON at position \d+.*$/, "").replace(/\s*\(line \d+ column \d+\)$/, "")}.`,
    );
  }
}

/** A zod issue path as a reader finds it: item 3, field "answer_type". */
export function issuePath(path: readonly PropertyKey[]): string {
  return path
    .map((p) => (typeof p === "number" ? `[${p + 1}]` : `.${String(p)}`))
    .join("")
    .replace(/^\./, "");
}

function valueAt(raw: unknown, path: readonly PropertyKey[]): unknown {
  let v = raw;
  for (const key of path) v = v !== null && typeof v === "object" ? (v as Record<PropertyKey, unknown>)[key] : undefined;
  return v;
}

/** A zod issue in plain words: `has no "query"`, `"answer_type" must be one of span, multi-span, …`. */
export function describeIssue(issue: z.core.$ZodIssue, raw?: unknown): string {
  const field = issue.path.length ? `"${issuePath(issue.path)}"` : "the item";
  if (issue.path.length && raw !== undefined && valueAt(raw, issue.path) === undefined) return `has no ${field}`;
  if (issue.code === "invalid_type" && (issue as { input?: unknown }).input === undefined)
    return issue.path.length ? `has no ${field}` : "is empty";
  if (issue.code === "invalid_value" && Array.isArray((issue as { values?: unknown[] }).values)) {
    return `${field} must be one of ${(issue as { values: unknown[] }).values.map((v) => JSON.stringify(v)).join(", ")}`;
  }
  if (issue.code === "invalid_type") return `${field} must be ${issue.expected === "array" ? "a list" : `a ${issue.expected}`}`;
  if (issue.code === "too_small") return `${field} is empty`;
  return `${field}: ${issue.message}`;
}

/**
 * A JSON array of items, each checked against the schema; the first bad item stops with its number
 * (and what `label` says of it) and the field that is wrong.
 */
export function parseItems<T>(
  data: unknown,
  schema: z.ZodType<T>,
  file: string,
  what: string,
  label: (raw: unknown, index: number) => string = (_r, i) => `item ${i + 1}`,
): T[] {
  if (!Array.isArray(data)) throw new QuestionFileError(`${file} must hold a JSON array of ${what}.`);
  if (!data.length) throw new QuestionFileError(`${file} holds an empty list: there is nothing to evaluate.`);
  return data.map((raw, i) => {
    const parsed = schema.safeParse(raw);
    if (!parsed.success) throw new QuestionFileError(`${file}, ${label(raw, i)}: ${describeIssue(parsed.error.issues[0], raw)}.`);
    return parsed.data;
  });
}
