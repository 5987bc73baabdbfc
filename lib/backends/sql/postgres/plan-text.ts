/**
 * Reads the expressions PostgreSQL prints in `EXPLAIN (VERBOSE)`: what every function call, operator and
 * cast of a plan resolved to, as the server's own deparser (ruleutils.c) writes them. That writer keeps to a
 * narrow grammar, which is what makes reading it safe:
 *
 * - an identifier is printed bare only when it is all lower-case letters, digits and underscores and not a
 *   keyword (quote_identifier); anything else is double-quoted, so a bare word with a capital letter is always
 *   SQL syntax the deparser wrote (CASE, COALESCE, EXTRACT, SubPlan …);
 * - a function call is its name (schema-qualified when the name would not find it through the search path)
 *   directly followed by `(`; a call the parser resolved from field notation `(x).f` or `alias.f` is printed as
 *   the call `f(x)` it is;
 * - an operator is its symbol, or `OPERATOR(schema.symbol)` when not visible; a cast is `::type`, and a
 *   constant is `'text'::type`.
 *
 * Anything outside that grammar (a character, a keyword or a construct this reader does not know) makes the
 * reader give up, and the query is refused: nothing that is not understood runs.
 */

export type PlanToken =
  | { kind: "word"; text: string; quoted: boolean }
  | { kind: "string"; text: string }
  | { kind: "number"; text: string }
  | { kind: "param"; text: string }
  | { kind: "op"; text: string }
  | { kind: "punct"; text: string };

export class PlanTextError extends Error {}

const OP_CHARS = new Set("+-*/<>=~!@#%^&|`?");
const PUNCT = new Set(["(", ")", "[", "]", ",", ".", ":"]);

/** Splits one deparsed expression into tokens; throws PlanTextError on anything the deparser would not write. */
export function tokenizePlanText(text: string): PlanToken[] {
  const out: PlanToken[] = [];
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i]!;
    if (c === " " || c === "\n" || c === "\t" || c === "\r") {
      i++;
      continue;
    }
    // E'…' appears when a literal holds a backslash and standard_conforming_strings is off.
    if ((c === "'" || ((c === "E" || c === "e") && text[i + 1] === "'")) && !(c !== "'" && isWordChar(text[i - 1]))) {
      let j = c === "'" ? i + 1 : i + 2;
      const escapes = c !== "'";
      let value = "";
      for (;;) {
        if (j >= n) throw new PlanTextError("an unterminated string");
        const ch = text[j]!;
        if (escapes && ch === "\\") {
          value += text[j + 1] ?? "";
          j += 2;
          continue;
        }
        if (ch === "'") {
          if (text[j + 1] === "'") {
            value += "'";
            j += 2;
            continue;
          }
          j++;
          break;
        }
        value += ch;
        j++;
      }
      out.push({ kind: "string", text: value });
      i = j;
      continue;
    }
    if (c === '"') {
      let j = i + 1;
      let value = "";
      for (;;) {
        if (j >= n) throw new PlanTextError("an unterminated quoted name");
        if (text[j] === '"') {
          if (text[j + 1] === '"') {
            value += '"';
            j += 2;
            continue;
          }
          j++;
          break;
        }
        value += text[j];
        j++;
      }
      out.push({ kind: "word", text: value, quoted: true });
      i = j;
      continue;
    }
    if (/[A-Za-z_]/.test(c)) {
      let j = i + 1;
      while (j < n && /[A-Za-z0-9_]/.test(text[j]!)) j++;
      out.push({ kind: "word", text: text.slice(i, j), quoted: false });
      i = j;
      continue;
    }
    if (/[0-9]/.test(c)) {
      const m = /^[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?/.exec(text.slice(i))!;
      out.push({ kind: "number", text: m[0] });
      i += m[0].length;
      continue;
    }
    if (c === "$") {
      const m = /^\$[0-9]+/.exec(text.slice(i));
      if (!m) throw new PlanTextError("a lone $");
      out.push({ kind: "param", text: m[0] });
      i += m[0].length;
      continue;
    }
    if (c === ":" && text[i + 1] === ":") {
      out.push({ kind: "punct", text: "::" });
      i += 2;
      continue;
    }
    if (PUNCT.has(c)) {
      out.push({ kind: "punct", text: c });
      i++;
      continue;
    }
    if (OP_CHARS.has(c)) {
      let j = i + 1;
      while (j < n && OP_CHARS.has(text[j]!)) j++;
      out.push({ kind: "op", text: text.slice(i, j) });
      i = j;
      continue;
    }
    throw new PlanTextError(`the character ${JSON.stringify(c)}`);
  }
  return out;
}

function isWordChar(c: string | undefined): boolean {
  return c !== undefined && /[A-Za-z0-9_]/.test(c);
}

/**
 * Words the deparser writes as SQL syntax (always with a capital letter, so never a column or function
 * name printed bare). Those that look like calls, `COALESCE(…)`, are syntax for built-ins the allow-list
 * allows; a keyword not listed here (XMLELEMENT, JSON_OBJECT, CURRENT_USER, NORMALIZE …) is refused.
 */
const SYNTAX_WORDS = new Set([
  "AND",
  "OR",
  "NOT",
  "CASE",
  "WHEN",
  "THEN",
  "ELSE",
  "END",
  "IS",
  "NULL",
  "TRUE",
  "FALSE",
  "UNKNOWN",
  "DISTINCT",
  "FROM",
  "ANY",
  "ALL",
  "ARRAY",
  "ROW",
  "EXISTS",
  "COALESCE",
  "GREATEST",
  "LEAST",
  "NULLIF",
  "OVER",
  "FILTER",
  "WHERE",
  "WITHIN",
  "GROUP",
  "ORDER",
  "BY",
  "ASC",
  "DESC",
  "USING",
  "NULLS",
  "FIRST",
  "LAST",
  "PARTITION",
  "ROWS",
  "RANGE",
  "GROUPS",
  "BETWEEN",
  "UNBOUNDED",
  "PRECEDING",
  "FOLLOWING",
  "CURRENT",
  "EXCLUDE",
  "TIES",
  "NO",
  "OTHERS",
  "AS",
  "GROUPING",
  "VARIADIC",
  // SQL-standard spellings of built-in functions on the allow-list (extract, substring, btrim, position, overlay, timezone).
  "EXTRACT",
  "SUBSTRING",
  "SIMILAR",
  "ESCAPE",
  "FOR",
  "TRIM",
  "BOTH",
  "LEADING",
  "TRAILING",
  "POSITION",
  "IN",
  "OVERLAY",
  "PLACING",
  "AT",
  "TIME",
  "ZONE",
  "LOCAL",
  "COLLATE",
  // The clock, read the same way by every session.
  "CURRENT_DATE",
  "CURRENT_TIME",
  "CURRENT_TIMESTAMP",
  "LOCALTIME",
  "LOCALTIMESTAMP",
  // References to other parts of the plan, each walked as a plan node of its own.
  "SubPlan",
  "InitPlan",
  "CTE",
]);

/** Keywords printed where the session's identity or settings are read: refused by name, with a plain reason. */
const SESSION_WORDS = new Set(["CURRENT_USER", "SESSION_USER", "CURRENT_ROLE", "USER", "SYSTEM_USER", "CURRENT_CATALOG", "CURRENT_SCHEMA"]);

/** The words a multi-word type name continues with, after its first word. */
const TYPE_CONTINUATIONS: Record<string, Set<string>> = {
  double: new Set(["precision"]),
  character: new Set(["varying"]),
  bit: new Set(["varying"]),
  timestamp: new Set(["with", "without", "time", "zone"]),
  time: new Set(["with", "without", "time", "zone"]),
  interval: new Set(["year", "month", "day", "hour", "minute", "second", "to"]),
};

export interface QualifiedName {
  /** Null when printed without a schema: it was found through the search path. */
  schema: string | null;
  name: string;
}

export interface PlanExpressionFacts {
  functions: QualifiedName[];
  operators: QualifiedName[];
  /** Type names as format_type prints them, without typmods or array brackets ("double precision", "mood"). */
  types: QualifiedName[];
  /** Keywords that read the session (CURRENT_USER …). */
  sessionWords: string[];
}

/**
 * What one deparsed expression calls. Throws PlanTextError when the text holds something outside the
 * deparser's grammar as this reader knows it.
 */
export function readPlanExpression(text: string): PlanExpressionFacts {
  const tokens = tokenizePlanText(text);
  const facts: PlanExpressionFacts = { functions: [], operators: [], types: [], sessionWords: [] };
  const at = (k: number) => tokens[k];
  const isPunct = (k: number, p: string) => {
    const t = at(k);
    return t?.kind === "punct" && t.text === p;
  };
  for (let k = 0; k < tokens.length; k++) {
    const t = tokens[k]!;
    if (t.kind === "punct" && t.text === "::") {
      k = readType(tokens, k + 1, facts) - 1;
      continue;
    }
    if (t.kind === "op") {
      // count(*), alias.*, the window placeholder OVER (?) and named arguments (a => 1) are not operators.
      const prev = at(k - 1);
      const next = at(k + 1);
      if (t.text === "*" && prev?.kind === "punct" && (prev.text === "(" || prev.text === ".")) continue;
      if (t.text === "?" && prev?.kind === "punct" && prev.text === "(" && next?.kind === "punct" && next.text === ")") continue;
      if (t.text === "=>") continue;
      facts.operators.push({ schema: null, name: t.text });
      continue;
    }
    if (t.kind !== "word") continue;
    if (!t.quoted && t.text === "OPERATOR" && isPunct(k + 1, "(")) {
      // OPERATOR(schema.symbol): an operator that is not visible through the search path.
      const schema = at(k + 2);
      const op = at(k + 4);
      if (schema?.kind !== "word" || !isPunct(k + 3, ".") || op?.kind !== "op" || !isPunct(k + 5, ")"))
        throw new PlanTextError("an OPERATOR(…) it could not read");
      facts.operators.push({ schema: schema.text, name: op.text });
      k += 5;
      continue;
    }
    const bareKeyword = !t.quoted && /[A-Z]/.test(t.text);
    if (bareKeyword) {
      if (SESSION_WORDS.has(t.text)) {
        facts.sessionWords.push(t.text);
        continue;
      }
      if (!SYNTAX_WORDS.has(t.text)) throw new PlanTextError(`the keyword ${t.text}`);
      continue;
    }
    // A name directly followed by "(" is a call; "a.b(" is the function b of schema a.
    if (isPunct(k + 1, "(")) {
      const qualified = isPunct(k - 1, ".") && at(k - 2)?.kind === "word";
      facts.functions.push({ schema: qualified ? (at(k - 2) as { text: string }).text : null, name: t.text });
      continue;
    }
    // alias.* and alias.column are references to values already computed below in the plan.
  }
  return facts;
}

/** Reads the type name after `::` from tokens[k]; returns the index after it. */
function readType(tokens: PlanToken[], k: number, facts: PlanExpressionFacts): number {
  const first = tokens[k];
  if (first?.kind !== "word") throw new PlanTextError("a cast it could not read");
  if (!first.quoted && /[A-Z]/.test(first.text)) throw new PlanTextError(`the type name ${first.text}`);
  let schema: string | null = null;
  // "char" (quoted) is the one-byte internal type, not character(n).
  let name = first.quoted && first.text === "char" ? '"char"' : first.text;
  let j = k + 1;
  const next = tokens[j];
  if (next?.kind === "punct" && next.text === "." && tokens[j + 1]?.kind === "word") {
    schema = name;
    name = (tokens[j + 1] as { text: string }).text;
    j += 2;
  }
  const words = [name];
  const continuations = schema === null && !first.quoted ? TYPE_CONTINUATIONS[name] : undefined;
  for (;;) {
    const t = tokens[j];
    if (t?.kind === "punct" && t.text === "(") {
      // A type modifier: numeric(12,2), character varying(40), timestamp(3) without time zone.
      let m = j + 1;
      while (tokens[m]?.kind === "number" || (tokens[m]?.kind === "punct" && tokens[m]!.text === ",")) m++;
      if (m === j + 1 || tokens[m]?.kind !== "punct" || tokens[m]!.text !== ")") break;
      j = m + 1;
      continue;
    }
    if (continuations && t?.kind === "word" && !t.quoted && continuations.has(t.text)) {
      words.push(t.text);
      j++;
      continue;
    }
    break;
  }
  while (tokens[j]?.kind === "punct" && tokens[j]!.text === "[" && tokens[j + 1]?.kind === "punct" && tokens[j + 1]!.text === "]") j += 2;
  facts.types.push({ schema, name: words.join(" ") });
  return j;
}
