import { Generator, Parser, type SparqlQuery } from "sparqljs";
import { QueryRejectedError, QuerySyntaxError } from "../errors";

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
function findServiceIris(node: unknown, found: string[] = []): string[] {
  if (Array.isArray(node)) {
    for (const child of node) findServiceIris(child, found);
  } else if (node && typeof node === "object") {
    const o = node as Record<string, unknown>;
    if (o.type === "service") {
      const name = o.name as { value?: string } | undefined;
      found.push(name?.value ?? "?");
    }
    for (const key of Object.keys(o)) findServiceIris(o[key], found);
  }
  return found;
}

function parse(query: string): SparqlQuery {
  if (!query.trim()) throw new QuerySyntaxError("the query is empty.", query);
  try {
    return new Parser().parse(query);
  } catch (e) {
    const hash = (e as { hash?: { token?: string; loc?: { first_line?: number } } }).hash;
    // A well-formed query followed by ";" is someone chaining a second operation (usually an update)
    // behind a read; say so rather than report a generic syntax error.
    if (hash?.token === ";") {
      throw new QueryRejectedError("only one read-only SPARQL query may run; a second operation after \";\" is not allowed", query);
    }
    const message = e instanceof Error ? e.message.split("\n").filter((l) => !/^\s*-*\^\s*$/.test(l)).join(" ") : String(e);
    throw new QuerySyntaxError(message.replace(/\s+/g, " ").trim(), query);
  }
}

/**
 * Checks a SPARQL text under the safety rules and returns it regenerated. With `maxRows`, the LIMIT
 * becomes min(existing LIMIT, maxRows + 1): the extra row tells the caller the result was truncated.
 */
export function checkSparqlSafety(query: string, options: { maxRows?: number } = {}): CheckedSparql {
  const parsed = parse(query);
  if (parsed.type === "update") {
    const ops = [...new Set(parsed.updates.map(updateName))].join(", ");
    throw new QueryRejectedError(`SPARQL updates are not allowed (found ${ops}); only SELECT, ASK, CONSTRUCT or DESCRIBE queries may run`, query);
  }
  if (parsed.type !== "query") throw new QueryRejectedError("only SELECT, ASK, CONSTRUCT or DESCRIBE queries may run", query);

  const services = findServiceIris(parsed).filter((iri) => !LOCAL_MAGIC_SERVICES.has(iri));
  if (services.length > 0) {
    throw new QueryRejectedError(`SERVICE clauses that call other endpoints are not allowed (found SERVICE <${services[0]}>)`, query);
  }

  const form = parsed.queryType as SparqlQueryForm;
  if (form === "ASK") {
    // An ASK answers one boolean; a LIMIT would change nothing and some endpoints reject it.
    return { normalized: new Generator().stringify(parsed), form };
  }
  const q = parsed as SparqlQuery & { limit?: number };
  if (options.maxRows !== undefined) {
    const cap = Math.max(1, Math.floor(options.maxRows)) + 1;
    q.limit = q.limit === undefined ? cap : Math.min(q.limit, cap);
  }
  return { normalized: new Generator().stringify(q), form, limit: q.limit };
}
