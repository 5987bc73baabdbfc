import type { AuditRow } from "./query";

/**
 * CSV for the audit export (RFC 4180: fields with a comma, quote or line break are quoted, quotes
 * doubled; CRLF line ends). A cell a spreadsheet would read as a formula (starting with = + - @, or a
 * tab or carriage return that some spreadsheets skip before one) gets a leading apostrophe, OWASP's
 * guard against CSV injection: an actor's email or a question is shown, never run.
 */

const FORMULA_START = /^[=+\-@\t\r]/;

export function csvCell(value: unknown): string {
  let s = value === null || value === undefined ? "" : typeof value === "string" ? value : JSON.stringify(value);
  if (FORMULA_START.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function csvLine(cells: unknown[]): string {
  return `${cells.map(csvCell).join(",")}\r\n`;
}

export const AUDIT_CSV_HEADER = [
  "time",
  "action",
  "outcome",
  "actor_email",
  "actor_id",
  "address",
  "target_type",
  "target_id",
  "knowledge_bases",
  "run_id",
  "before",
  "after",
  "detail",
];

export function auditCsvLine(r: AuditRow): string {
  return csvLine([
    r.at,
    r.action,
    r.outcome,
    r.actorEmail,
    r.actorId,
    r.address,
    r.targetType,
    r.targetId,
    r.kbIds.join(" "),
    r.runId,
    r.before ?? "",
    r.after ?? "",
    r.detail ?? "",
  ]);
}
