import { QueryExecutionError } from "../errors";
import { type RdfTerm, type RdfTriple, termFromSparqlJson } from "./rdf-terms";

/**
 * What the backend needs from a SPARQL engine, whether the in-process Oxigraph worker or an HTTP
 * endpoint: run one already-checked query under a time limit and hand back plain JSON.
 */
export type EngineForm = "bindings" | "boolean" | "triples";

export type EngineResult =
  | { kind: "bindings"; vars: string[]; rows: Record<string, RdfTerm | null>[]; partial?: boolean }
  | { kind: "boolean"; value: boolean }
  | { kind: "triples"; triples: RdfTriple[]; partial?: boolean };

export interface RunOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  /** The SELECT's projection when the caller parsed it (an unbound variable is missing from every row). */
  variables?: string[];
}

export interface SparqlEngine {
  /** For messages: "the embedded Oxigraph store" or the endpoint URL. */
  readonly target: string;
  run(query: string, form: EngineForm, options: RunOptions): Promise<EngineResult>;
  close(): Promise<void>;
}

/**
 * Parses a SPARQL 1.1 JSON results document (https://www.w3.org/TR/sparql11-results-json/).
 * Virtuoso 7 answers an ASK asked for JSON with a one-variable table (`__ASK_RETVAL` = 1, or no rows for
 * false) instead of `{"boolean": …}`; both shapes are read as a boolean when the query is an ASK.
 */
export function parseSparqlJsonResults(body: string, form: "bindings" | "boolean", query: string): EngineResult {
  let doc: { head?: { vars?: unknown }; boolean?: unknown; results?: { bindings?: unknown } };
  try {
    doc = JSON.parse(body);
  } catch {
    throw new QueryExecutionError(`The endpoint answered with something that is not SPARQL JSON results: ${body.slice(0, 200)}`, query);
  }
  const bindings = Array.isArray(doc.results?.bindings) ? (doc.results.bindings as Record<string, unknown>[]) : null;
  if (form === "boolean") {
    if (typeof doc.boolean === "boolean") return { kind: "boolean", value: doc.boolean };
    if (bindings) {
      const first = bindings[0] ? Object.values(bindings[0])[0] : undefined;
      const term = termFromSparqlJson(first);
      return { kind: "boolean", value: term !== null && term.value !== "0" && term.value !== "false" };
    }
    throw new QueryExecutionError("The endpoint did not answer the ASK query with a boolean.", query);
  }
  if (!bindings) throw new QueryExecutionError("The endpoint's answer has no result bindings.", query);
  const vars = Array.isArray(doc.head?.vars) ? (doc.head.vars as unknown[]).map(String) : [];
  const rows = bindings.map((b) => {
    const row: Record<string, RdfTerm | null> = {};
    for (const v of vars) row[v] = termFromSparqlJson(b[v]);
    return row;
  });
  return { kind: "bindings", vars, rows };
}
