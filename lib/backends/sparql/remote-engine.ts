import { log } from "../../log";
import { BackendUnavailableError, QueryExecutionError, QuerySyntaxError, QueryTimeoutError, ResultTooLargeError } from "../errors";
import { queryLimits, type QueryLimits } from "../limits";
import { chargeValue, resultBudget } from "../value-budget";
import { type EngineForm, type EngineResult, type RunOptions, type SparqlEngine, parseSparqlJsonResults } from "./engine";
import type { RdfTerm, RdfTriple } from "./rdf-terms";

/**
 * An answer is read as it streams and stopped past twice the result budget (SPARQL JSON spends about
 * as many bytes on its framing as on the values); its values are then cut and counted like any result's.
 */
const RESPONSE_FRAMING_FACTOR = 2;
/** Beyond this URL length some servers and proxies refuse GET; longer queries are POSTed as a form. */
const MAX_GET_URL = 2000;

export interface RemoteEndpointOptions {
  endpoint: string;
  defaultGraph?: string;
  user?: string;
  password?: string;
}

const NETWORK_ERRORS: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ENOTFOUND: "host not found",
  EAI_AGAIN: "host name lookup failed",
  ECONNRESET: "the connection was reset",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  ETIMEDOUT: "the connection timed out",
  UND_ERR_CONNECT_TIMEOUT: "the connection timed out",
  UND_ERR_SOCKET: "the connection was closed",
  CERT_HAS_EXPIRED: "its TLS certificate has expired",
  DEPTH_ZERO_SELF_SIGNED_CERT: "its TLS certificate is self-signed",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "its TLS certificate could not be verified",
};

function networkReason(e: unknown): string {
  const cause = (e as { cause?: { code?: string; message?: string } }).cause;
  const code = cause?.code ?? (e as { code?: string }).code;
  if (code && NETWORK_ERRORS[code]) return NETWORK_ERRORS[code];
  return cause?.message ?? (e instanceof Error ? e.message : String(e));
}

/** Oxigraph's RDF parser names formats by media type; endpoints answer CONSTRUCT in any of these. */
const GRAPH_FORMATS: Record<string, string> = {
  "application/n-triples": "application/n-triples",
  "text/plain": "application/n-triples",
  "text/turtle": "text/turtle",
  "application/x-turtle": "text/turtle",
  "application/rdf+xml": "application/rdf+xml",
  "application/ld+json": "application/ld+json",
  "application/n-quads": "application/n-quads",
};

async function parseGraphBody(body: string, contentType: string, query: string): Promise<RdfTriple[]> {
  const media = contentType.split(";")[0].trim().toLowerCase();
  const format = GRAPH_FORMATS[media];
  if (!format)
    throw new QueryExecutionError(
      `The endpoint answered the graph query as ${media || "an unknown type"}, which Mosaic cannot read.`,
      query,
    );
  // Loaded lazily: only graph answers from remote endpoints need Oxigraph on this thread.
  const mod = (await import("oxigraph")) as unknown as { default?: typeof import("oxigraph") } & typeof import("oxigraph");
  const ox = mod.default ?? mod;
  let quads;
  try {
    quads = ox.parse(body, { format });
  } catch (e) {
    log.warn({ detail: e instanceof Error ? e.message : String(e), format }, "a SPARQL endpoint's graph answer could not be parsed");
    throw new QueryExecutionError(`The endpoint's graph answer could not be read (it is not valid ${format}).`, query);
  }
  const term = (t: { termType: string; value: string; language?: string; datatype?: { value: string } }): RdfTerm => {
    if (t.termType === "Literal") {
      return t.language
        ? { termType: "Literal", value: t.value, language: t.language }
        : { termType: "Literal", value: t.value, datatype: t.datatype?.value };
    }
    return { termType: t.termType === "BlankNode" ? "BlankNode" : "NamedNode", value: t.value };
  };
  return quads.map((q) => ({
    subject: term(q.subject),
    predicate: term(q.predicate),
    object: term(q.object as Parameters<typeof term>[0]),
  }));
}

async function readLimited(res: Response, query: string, limits: QueryLimits): Promise<string> {
  if (!res.body) return "";
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  const cap = limits.maxResultBytes * RESPONSE_FRAMING_FACTOR;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > cap) {
      await reader.cancel();
      throw new ResultTooLargeError(limits.maxResultBytes, query);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * Any SPARQL 1.1 endpoint over the SPARQL 1.1 Protocol (Virtuoso, Fuseki, GraphDB, Wikidata). The time
 * limit aborts the HTTP request; the server may keep working on it, which is its own business (Virtuoso
 * bounds it with MaxQueryExecutionTime).
 */
export class RemoteEngine implements SparqlEngine {
  readonly target: string;

  constructor(
    private readonly options: RemoteEndpointOptions,
    private readonly limits: () => QueryLimits = queryLimits,
  ) {
    this.target = options.endpoint;
  }

  async run(query: string, form: EngineForm, { timeoutMs, signal }: RunOptions): Promise<EngineResult> {
    const timer = new AbortController();
    const timeout = setTimeout(() => timer.abort(), timeoutMs);
    const combined = signal ? AbortSignal.any([timer.signal, signal]) : timer.signal;
    try {
      const limits = this.limits();
      const res = await this.send(query, form, combined);
      const body = await readLimited(res, query, limits);
      if (!res.ok) throw this.httpError(res.status, body, query);
      // Virtuoso's "anytime query": past its MaxQueryExecutionTime it returns what it has so far.
      const partial = (res.headers.get("x-sql-state") ?? "").toUpperCase() === "S1TAT";
      const budget = resultBudget(limits);
      if (form === "triples") {
        const triples = await parseGraphBody(body, res.headers.get("content-type") ?? "", query);
        return { kind: "triples", triples: triples.map((t) => chargeValue(t, budget, query)), partial };
      }
      const result = parseSparqlJsonResults(body, form, query);
      return result.kind === "bindings" ? { ...result, rows: result.rows.map((r) => chargeValue(r, budget, query)), partial } : result;
    } catch (e) {
      if (timer.signal.aborted) throw new QueryTimeoutError(timeoutMs, query);
      if (signal?.aborted) throw new QueryExecutionError("The query was cancelled.", query);
      if (e instanceof QueryExecutionError || e instanceof QuerySyntaxError || e instanceof BackendUnavailableError) throw e;
      log.warn(
        { detail: e instanceof Error ? e.message : String(e), endpoint: this.options.endpoint },
        "a SPARQL endpoint could not be reached",
      );
      throw new BackendUnavailableError(
        `Cannot reach ${this.options.endpoint}: ${networkReason(e)}. Check that the SPARQL endpoint is running and the URL is right.`,
      );
    } finally {
      clearTimeout(timeout);
    }
  }

  async close(): Promise<void> {
    // fetch keeps no per-backend connection state to release.
  }

  private send(query: string, form: EngineForm, signal: AbortSignal): Promise<Response> {
    const params = new URLSearchParams({ query });
    if (this.options.defaultGraph) params.set("default-graph-uri", this.options.defaultGraph);
    const headers: Record<string, string> = {
      Accept:
        form === "triples"
          ? "application/n-triples, text/turtle;q=0.9, application/rdf+xml;q=0.5, application/ld+json;q=0.4"
          : "application/sparql-results+json",
      // Public endpoints such as Wikidata's refuse clients that do not say who they are.
      "User-Agent": "Mosaic/0.1 (knowledge workspace; SPARQL client)",
    };
    if (this.options.user) {
      headers.Authorization = `Basic ${Buffer.from(`${this.options.user}:${this.options.password ?? ""}`).toString("base64")}`;
    }
    const url = new URL(this.options.endpoint);
    for (const [k, v] of params) url.searchParams.append(k, v);
    if (url.toString().length <= MAX_GET_URL) return fetch(url, { method: "GET", headers, signal, redirect: "follow" });
    return fetch(this.options.endpoint, {
      method: "POST",
      headers: { ...headers, "Content-Type": "application/x-www-form-urlencoded" },
      body: params.toString(),
      signal,
      redirect: "follow",
    });
  }

  private httpError(status: number, body: string, query: string): Error {
    const detail = body.replace(/\s+/g, " ").trim().slice(0, 300);
    if (status === 401 || status === 403) {
      return new BackendUnavailableError(`${this.options.endpoint} refused access (HTTP ${status}). Check the user name and password.`);
    }
    if (status === 404)
      return new BackendUnavailableError(`No SPARQL endpoint answers at ${this.options.endpoint} (HTTP 404). Check the URL.`);
    if (status === 400) return new QuerySyntaxError(`the endpoint rejected it (HTTP 400): ${detail}`, query);
    if (status === 429 || status === 503)
      return new BackendUnavailableError(`${this.options.endpoint} is busy or rate-limiting (HTTP ${status}). Try again later.`);
    return new QueryExecutionError(`The endpoint failed to run the query (HTTP ${status}): ${detail}`, query);
  }
}
