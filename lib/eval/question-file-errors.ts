import { parse } from "csv-parse/sync";
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
    throw new QuestionFileError(`${file} is not valid JSON${where}: ${message.replace(/ in JSON at position \d+.*$/, "").replace(/\s*\(line \d+ column \d+\)$/, "")}.`);
  }
}

/** A zod issue path as a reader finds it: item 3, field "answer_type". */
export function issuePath(path: readonly PropertyKey[]): string {
  return path.map((p) => (typeof p === "number" ? `[${p + 1}]` : `.${String(p)}`)).join("").replace(/^\./, "");
}
