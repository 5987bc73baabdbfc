import { Generator, Parser, type SparqlQuery } from "sparqljs";
import { QueryRejectedError, QuerySyntaxError } from "../errors";
import { queryLimits, type QueryLimits } from "../limits";
import { walkTree } from "../tree-walk";

/**
 * DESIGN.md's SPARQL rule: a query must parse as a query, never an update. We decide on the parse tree
 * from sparqljs, not on keywords in the text, so comments, odd spacing or an IRI that happens to contain
 * "DROP" neither hide a write nor refuse a harmless read.
 */

export type SparqlQueryForm = "SELECT" | "ASK" | "CONSTRUCT" | "DESCRIBE";

export interface CheckedSparql {
  /** The query regenerated from its parse tree, with LIMIT capped when `maxRows` was given. */
  normalized: string;
  form: SparqlQueryForm;
  /** The LIMIT the normalized query carries (undefined for ASK or when no cap was asked for and none was written). */
  limit?: number;
  /** A SELECT's projected variables in order; undefined for SELECT * and the other forms. */
  variables?: string[];
}

/**
 * Wikidata's label service is written as a SERVICE clause but is answered by the endpoint itself, not by
 * another server, so it is not federation. Every other SERVICE is refused.
 */
const LOCAL_MAGIC_SERVICES = new Set(["http://wikiba.se/ontology#label"]);

const UPDATE_NAMES: Record<string, string> = {
  insert: "INSERT DATA",
  delete: "DELETE DATA",
  insertdelete: "DELETE/INSERT … WHERE",
  deletewhere: "DELETE WHERE",
  load: "LOAD",
  clear: "CLEAR",
  drop: "DROP",
  create: "CREATE",
  add: "ADD",
  move: "MOVE",
  copy: "COPY",
};

function updateName(op: unknown): string {
  const o = op as { updateType?: string; type?: string };
  const key = (o.updateType ?? o.type ?? "").toLowerCase();
  return UPDATE_NAMES[key] ?? (key.toUpperCase() || "an update");
}

/** Finds SERVICE clauses anywhere in the tree: inside OPTIONAL, UNION, sub-queries, FILTER EXISTS… */
function findServiceIris(tree: unknown): string[] {
  const found: string[] = [];
  walkTree(tree, (o) => {
    if (o.type === "service") found.push((o.name as { value?: string } | undefined)?.value ?? "?");
  });
  return found;
}

/** The end of an IRI written `<…>` starting at `i`, or -1 when the `<` is the less-than operator. */
function iriEnd(query: string, i: number): number {
  for (let j = i + 1; j < query.length && j - i < 4_096; j++) {
    const c = query[j];
    if (c === ">") return j + 1;
    if (/[\s<"{}|^`\\]/.test(c)) return -1;
  }
  return -1;
}

/** The end of a string literal ('…', "…", '''…''', """…""") starting at `i`. */
function stringEnd(query: string, i: number): number {
  const q = query[i];
  const long = query.startsWith(q.repeat(3), i);
  const close = long ? q.repeat(3) : q;
  let j = i + close.length;
  while (j < query.length) {
    if (query[j] === "\\") j += 2;
    else if (query.startsWith(close, j)) return j + close.length;
    else if (!long && query[j] === "\n") return j;
    else j++;
  }
  return j;
}

/**
 * How deeply the text nests groups, parentheses and blank-node brackets, skipping strings, IRIs and
 * comments. Linear in the text, so it runs before the parser: sparqljs recurses once per level, and
 * 2,000 nested groups cost it a second and a RangeError, 5,000 half a minute of the main thread.
 */
export function sparqlNesting(query: string): number {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < query.length;) {
    const c = query[i];
    if (c === "#") {
      const nl = query.indexOf("\n", i);
      i = nl < 0 ? query.length : nl + 1;
    } else if (c === '"' || c === "'") {
      i = stringEnd(query, i);
    } else if (c === "<") {
      const end = iriEnd(query, i);
      i = end < 0 ? i + 1 : end;
    } else {
      if (c === "{" || c === "(" || c === "[") deepest = Math.max(deepest, ++depth);
      else if (c === "}" || c === ")" || c === "]") depth = Math.max(0, depth - 1);
      i++;
    }
  }
  return deepest;
}

function parse(query: string, limits: Pick<QueryLimits, "maxChars" | "maxNesting">): SparqlQuery {
  if (!query.trim()) throw new QuerySyntaxError("the query is empty.", query);
  if (query.length > limits.maxChars) {
    throw new QueryRejectedError(
      `the query is ${query.length.toLocaleString("en")} characters long, and at most ${limits.maxChars.toLocaleString("en")} are allowed`,
      query,
    );
  }
  const depth = sparqlNesting(query);
  if (depth > limits.maxNesting) {
    throw new QueryRejectedError(
      `the query nests groups and parentheses ${depth} levels deep, and at most ${limits.maxNesting} are allowed; write it more simply`,
      query,
    );
  }
  try {
    return new Parser().parse(query);
  } catch (e) {
    // A long chain of operators can still exhaust the parser's stack: too complex, not unreadable.
    if (e instanceof RangeError) throw new QueryRejectedError("the query is too complex to check; write it more simply", query);
    const hash = (e as { hash?: { token?: string; loc?: { first_line?: number } } }).hash;
    // A well-formed query followed by ";" is someone chaining a second operation (usually an update)
    // behind a read; say so rather than report a generic syntax error.
    if (hash?.token === ";") {
      throw new QueryRejectedError('only one read-only SPARQL query may run; a second operation after ";" is not allowed', query);
    }
    const message =
      e instanceof Error
        ? e.message
            .split("\n")
            .filter((l) => !/^\s*-*\^\s*$/.test(l))
            .join(" ")
        : String(e);
    throw new QuerySyntaxError(message.replace(/\s+/g, " ").trim(), query);
  }
}

/**
 * Checks a SPARQL text under the safety rules and returns it regenerated. With `maxRows`, the LIMIT
 * becomes min(existing LIMIT, maxRows + 1): the extra row tells the caller the result was truncated.
 */
export function checkSparqlSafety(
  query: string,
  options: { maxRows?: number; limits?: Partial<Pick<QueryLimits, "maxChars" | "maxNesting">> } = {},
): CheckedSparql {
  const parsed = parse(query, { ...queryLimits(), ...options.limits });
  if (parsed.type === "update") {
    const ops = [...new Set(parsed.updates.map(updateName))].join(", ");
    throw new QueryRejectedError(
      `SPARQL updates are not allowed (found ${ops}); only SELECT, ASK, CONSTRUCT or DESCRIBE queries may run`,
      query,
    );
  }
  if (parsed.type !== "query") throw new QueryRejectedError("only SELECT, ASK, CONSTRUCT or DESCRIBE queries may run", query);

  const services = findServiceIris(parsed).filter((iri) => !LOCAL_MAGIC_SERVICES.has(iri));
  if (services.length > 0) {
    throw new QueryRejectedError(`SERVICE clauses that call other endpoints are not allowed (found SERVICE <${services[0]}>)`, query);
  }

  const form = parsed.queryType as SparqlQueryForm;
  if (form === "ASK") {
    // An ASK answers one boolean; a LIMIT would change nothing and some endpoints reject it.
    return { normalized: generate(parsed, query), form };
  }
  const q = parsed as SparqlQuery & { limit?: number };
  if (options.maxRows !== undefined) {
    const cap = Math.max(1, Math.floor(options.maxRows)) + 1;
    q.limit = q.limit === undefined ? cap : Math.min(q.limit, cap);
  }
  return { normalized: generate(q, query), form, limit: q.limit, variables: projection(parsed) };
}

function projection(parsed: SparqlQuery): string[] | undefined {
  const vars = (parsed as { variables?: unknown[] }).variables;
  if (!Array.isArray(vars)) return undefined;
  const names: string[] = [];
  for (const v of vars) {
    const term = (v as { variable?: { termType?: string; value?: string } }).variable ?? (v as { termType?: string; value?: string });
    if (term?.termType !== "Variable" || typeof term.value !== "string") return undefined;
    names.push(term.value);
  }
  return names;
}

function generate(parsed: SparqlQuery, query: string): string {
  try {
    return new Generator().stringify(parsed);
  } catch (e) {
    if (e instanceof RangeError) throw new QueryRejectedError("the query is too complex to check; write it more simply", query);
    throw e;
  }
}
