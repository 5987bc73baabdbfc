import { tokenize, type Token } from "../../../backends/sql/lexical";
import { joinList } from "./refusal";
import pluralize from "pluralize";
import type { QueryFit, StatedCondition } from "../../contracts";

/**
 * A filtered query that found nothing is an answer: there is none (issue 32). Said with the query's
 * own conditions, read from its WHERE clause ("No customers are recorded with city Berlin.", "No
 * orders are recorded for 2023."), instead of dropping the filter and answering about everything.
 *
 * Only the conditions Mosaic's formulation writes are read: a conjunction (AND) of a column compared
 * with a literal (=, <>, <, <=, >, >=, LIKE, IN (…)); a year or month written as a date range becomes
 * "for 2023" / "for March 2024". Anything else (OR, subqueries, functions) reads as no conditions, and
 * the caller says less.
 */

/** A column compared with literals, as read from a WHERE clause (the literals unquoted). */
export type Condition = StatedCondition;

const STOP = new Set(["group", "order", "limit", "having", "union", "except", "intersect", "window", "offset"]);
const OPS = new Set(["=", "<>", "!=", "<", "<=", ">", ">="]);

function unquote(text: string): string {
  const q = text[0];
  if ((q === '"' || q === "`") && text.endsWith(q))
    return text
      .slice(1, -1)
      .split(q + q)
      .join(q);
  if (q === "[" && text.endsWith("]")) return text.slice(1, -1);
  if (q === "'" && text.endsWith("'")) return text.slice(1, -1).split("''").join("'");
  return text;
}

/** The WHERE clause's top-level tokens of the outer query, or null when it has none. */
function whereTokens(sql: string, tokens: Token[]): Token[] | null {
  let depth = 0;
  let start = -1;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t.kind === "open-paren") depth++;
    else if (t.kind === "close-paren") depth--;
    else if (depth === 0 && t.kind === "word") {
      const w = sql.slice(t.start, t.end).toLowerCase();
      if (start < 0 && w === "where") start = i + 1;
      else if (start >= 0 && STOP.has(w)) return tokens.slice(start, i);
    } else if (t.kind === "semicolon" && start >= 0) return tokens.slice(start, i);
  }
  return start >= 0 ? tokens.slice(start) : null;
}

/** Operators come as one or two "other" tokens ("<" "=" → "<="). */
function readOperator(sql: string, tokens: Token[], i: number): { op: string; next: number } | null {
  const t = tokens[i];
  if (!t) return null;
  const text = sql.slice(t.start, t.end);
  if (t.kind === "word") {
    const w = text.toLowerCase();
    if (w === "like" || w === "in") return { op: w.toUpperCase(), next: i + 1 };
    if (w === "not" && tokens[i + 1] && /^(like|in)$/i.test(sql.slice(tokens[i + 1].start, tokens[i + 1].end)))
      return { op: `NOT ${sql.slice(tokens[i + 1].start, tokens[i + 1].end).toUpperCase()}`, next: i + 2 };
    return null;
  }
  if (t.kind !== "other") return null;
  const u = tokens[i + 1];
  if (u && u.kind === "other" && u.start === t.end && OPS.has(text + sql.slice(u.start, u.end)))
    return { op: text + sql.slice(u.start, u.end), next: i + 2 };
  return OPS.has(text) ? { op: text, next: i + 1 } : null;
}

/** A literal: a string, or a number (with its sign). */
function readLiteral(sql: string, tokens: Token[], i: number): { value: string; next: number } | null {
  const t = tokens[i];
  if (!t) return null;
  if (t.kind === "string") return { value: unquote(sql.slice(t.start, t.end)), next: i + 1 };
  let j = i;
  let text = "";
  while (
    j < tokens.length &&
    (tokens[j].kind === "other" || tokens[j].kind === "word") &&
    /^[-+.\d]+$/.test(sql.slice(tokens[j].start, tokens[j].end))
  ) {
    text += sql.slice(tokens[j].start, tokens[j].end);
    j++;
  }
  return text && Number.isFinite(Number(text)) ? { value: text, next: j } : null;
}

/** The WHERE conditions of a query's outer SELECT; [] without a WHERE, null when they are not a plain conjunction. */
export function whereConditions(sql: string): Condition[] | null {
  const tokens = tokenize(sql, "sqlite");
  const where = whereTokens(sql, tokens);
  if (!where) return [];
  const out: Condition[] = [];
  let i = 0;
  while (i < where.length) {
    // column: name or qualifier.name (quoted or bare), or LOWER(column) as a text lookup compares it
    const parts: string[] = [];
    const folded =
      where[i]?.kind === "word" && /^(lower|upper)$/i.test(sql.slice(where[i].start, where[i].end)) && where[i + 1]?.kind === "open-paren";
    if (folded) i += 2;
    while (i < where.length && (where[i].kind === "word" || where[i].kind === "quoted")) {
      parts.push(unquote(sql.slice(where[i].start, where[i].end)));
      const dot = where[i + 1];
      if (dot && dot.kind === "other" && sql.slice(dot.start, dot.end) === ".") i += 2;
      else {
        i++;
        break;
      }
    }
    if (parts.length === 0 || parts.length > 2) return null;
    if (folded) {
      if (where[i]?.kind !== "close-paren") return null;
      i++;
    }
    const op = readOperator(sql, where, i);
    if (!op) return null;
    i = op.next;
    const values: string[] = [];
    if (op.op.endsWith("IN")) {
      if (where[i]?.kind !== "open-paren") return null;
      i++;
      while (i < where.length && where[i].kind !== "close-paren") {
        const lit = readLiteral(sql, where, i);
        if (!lit) return null;
        values.push(lit.value);
        i = lit.next;
        if (where[i] && where[i].kind === "other" && sql.slice(where[i].start, where[i].end) === ",") i++;
      }
      i++;
    } else {
      const lit = readLiteral(sql, where, i);
      if (!lit) return null;
      values.push(lit.value);
      i = lit.next;
      // LIKE '%a!%b%' ESCAPE '!': the escape character is the pattern's, not a condition.
      if (op.op.endsWith("LIKE") && where[i]?.kind === "word" && /^escape$/i.test(sql.slice(where[i].start, where[i].end))) {
        const escape = readLiteral(sql, where, i + 1);
        if (!escape) return null;
        values[values.length - 1] = unescapeLike(values[values.length - 1], escape.value);
        i = escape.next;
      }
    }
    out.push({ table: parts.length === 2 ? parts[0] : null, column: parts[parts.length - 1], op: op.op, values });
    if (i >= where.length) break;
    if (sql.slice(where[i].start, where[i].end).toLowerCase() !== "and") return null;
    i++;
  }
  return out;
}

/** A LIKE pattern with its escape character taken out ("50!%" → "50%"); the wildcards it leaves are read as wildcards. */
function unescapeLike(pattern: string, escape: string): string {
  if (escape.length !== 1) return pattern;
  let out = "";
  for (let k = 0; k < pattern.length; k++) out += pattern[k] === escape && k + 1 < pattern.length ? pattern[++k] : pattern[k];
  return out;
}

const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
const DATE = /^(\d{4})-(\d{2})-(\d{2})/;

/** A date range [from, to) that is exactly one year or one month, in words. */
function periodOf(from: string, to: string): string | null {
  const a = DATE.exec(from);
  const b = DATE.exec(to);
  if (!a || !b || a[3] !== "01" || b[3] !== "01") return null;
  const [ay, am, by, bm] = [Number(a[1]), Number(a[2]), Number(b[1]), Number(b[2])];
  if (am === 1 && bm === 1 && by === ay + 1) return String(ay);
  if ((by === ay && bm === am + 1) || (by === ay + 1 && am === 12 && bm === 1)) return `${MONTHS[am - 1]} ${ay}`;
  return null;
}

/** "order_date" → "order date". */
export function columnWords(column: string): string {
  return column
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .replace(/[_\s]+/g, " ")
    .trim()
    .toLowerCase();
}

const OP_WORDS: Record<string, string> = {
  "<>": "other than",
  "!=": "other than",
  "<": "below",
  "<=": "at most",
  ">": "above",
  ">=": "at least",
  IN: "among",
  "NOT IN": "not among",
};

/** Each condition in words; a year or month range on one column reads as a period ("for 2023"). */
/** A lookup's text as the question spelled it: the query compares lower-cased text, the sentence shows the name. */
function spelled(text: string, spellings: string[]): string {
  return spellings.find((s) => s.toLowerCase() === text.toLowerCase()) ?? text;
}

/**
 * A column of another table than the rows counted is named with its table ("organisation founded"): the
 * period or value belongs to that table's rows, not to the subject's.
 */
function ownedWords(c: Condition, subject: string | null): string {
  const words = columnWords(c.column);
  if (!c.table || !subject || c.table === subject) return words;
  const table = pluralize.singular(columnWords(c.table));
  return ` ${words} `.includes(` ${table} `) ? words : `${table} ${words}`;
}

export function conditionsInWords(
  conditions: Condition[],
  spellings: string[] = [],
  subject: string | null = null,
): { filters: string[]; periods: string[] } {
  const filters: string[] = [];
  const periods: string[] = [];
  const used = new Set<number>();
  conditions.forEach((c, i) => {
    if (used.has(i) || (c.op !== ">=" && c.op !== ">")) return;
    const j = conditions.findIndex((d, k) => k !== i && !used.has(k) && d.column === c.column && d.table === c.table && d.op === "<");
    if (j < 0 || c.op !== ">=") return;
    const period = periodOf(c.values[0], conditions[j].values[0]);
    if (!period) return;
    if (c.table && subject && c.table !== subject) filters.push(`${ownedWords(c, subject)} in ${period}`);
    else periods.push(`for ${period}`);
    used.add(i).add(j);
  });
  conditions.forEach((c, i) => {
    if (used.has(i)) return;
    const column = ownedWords(c, subject);
    // Stored values often carry padding ("Aberdeen "); the sentence shows the value, not its spaces.
    const values = c.values.map((v) => v.trim());
    if (c.op === "LIKE" || c.op === "NOT LIKE") {
      const pattern = values[0];
      const text = spelled(pattern.replace(/^%|%$/g, "").trim(), spellings);
      const [opens, closes] = [pattern.startsWith("%"), pattern.endsWith("%") && pattern.length > 1];
      const how = opens && closes ? "containing" : closes ? "starting with" : opens ? "ending with" : "like";
      filters.push(`${column} ${c.op === "NOT LIKE" ? `not ${how}` : how} ${text}`);
      return;
    }
    const value = joinList(values);
    filters.push(c.op === "=" ? `${column} ${value}` : `${column} ${OP_WORDS[c.op] ?? c.op} ${value}`);
  });
  return { filters, periods };
}

/** What the rows are: the table of the first filtered column, else the first table after FROM. */
function subjectOf(sql: string, conditions: Condition[]): string | null {
  const qualified = conditions.find((c) => c.table)?.table;
  if (qualified) return qualified;
  const m = /\bfrom\s+("[^"]+"|`[^`]+`|\[[^\]]+\]|[A-Za-z_][\w$]*)/i.exec(sql);
  return m ? unquote(m[1]) : null;
}

/** The sentence for rows of `subject` that meet none of `conditions`' conjunction. */
function sentenceFor(subject: string, conditions: Condition[], spellings: string[]): { sentence: string; conditions: string[] } {
  const { filters, periods } = conditionsInWords(conditions, spellings, subject);
  const parts = [filters.length ? `with ${joinList(filters)}` : "", ...periods].filter(Boolean);
  // Tables are often named in the singular ("singer", "orchestra"); the sentence counts them in the plural.
  return {
    sentence: `No ${pluralize.plural(columnWords(subject))} are recorded ${parts.join(" ")}.`,
    conditions: [...filters, ...periods],
  };
}

/**
 * "No orders are recorded for 2023." / "No customers are recorded with city Berlin." — or null when the
 * query has no conditions Mosaic can read (an empty result without a filter says nothing about one).
 */
export function emptyResultSentence(sql: string, spellings: string[] = []): { sentence: string; conditions: string[] } | null {
  const conditions = whereConditions(sql);
  if (!conditions || conditions.length === 0) return null;
  const subject = subjectOf(sql, conditions);
  return subject ? sentenceFor(subject, conditions, spellings) : null;
}

/**
 * "None", said with the conditions of the query that found nothing: an SQL query's are read from its
 * WHERE clause (guides and LLM-written queries have no plan); a graph query's (Cypher, SPARQL) are the
 * ones its plan stated at formulation (QueryFit.stated), as its text is not read back.
 */
export function emptyResultOf(
  language: string,
  text: string,
  fit: Pick<QueryFit, "stated" | "valuesUsed"> | null | undefined,
): { sentence: string; conditions: string[] } | null {
  const spellings = fit?.valuesUsed ?? [];
  if (language === "sql") return emptyResultSentence(text, spellings);
  const stated = fit?.stated;
  return stated && stated.conditions.length > 0 ? sentenceFor(stated.subject, stated.conditions, spellings) : null;
}
