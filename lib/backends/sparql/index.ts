import { existsSync, statSync } from "node:fs";
import { isBackendError } from "../errors";
import type { BackendContext, HealthResult, KnowledgeBackend } from "../types";
import { SparqlBackend } from "./backend";
import type { SparqlConfig, SparqlSecrets } from "./config";
import { OxigraphEngine } from "./embedded-engine";
import type { SparqlEngine } from "./engine";
import { RDF_TYPE } from "./rdf-terms";
import { rdfDataFile } from "./rdf-files";
import { RemoteEngine } from "./remote-engine";
import { count } from "../../format/count";

export { sparqlConfigSchema, sparqlSecretsSchema, type SparqlConfig, type SparqlSecrets } from "./config";
export { checkSparqlSafety, type CheckedSparql, type SparqlQueryForm } from "./safety";
export { storeRdfFiles, rdfDataFile, rdfFormatOf, type RdfUpload, type RdfFormat, type StoredRdf } from "./rdf-files";
export type { RdfTerm, RdfTriple } from "./rdf-terms";

/** The embedded store answers from memory; a remote endpoint may be large and slow, so steps are shorter. */
const EMBEDDED_STEP_TIMEOUT_MS = 30_000;
const REMOTE_STEP_TIMEOUT_MS = 8_000;
const HEALTH_TIMEOUT_MS = 5_000;
/** Remote data can change behind our back; its summary is recomputed at most this often. */
const REMOTE_SUMMARY_TTL_MS = 10 * 60_000;

function failure(e: unknown, started: number): HealthResult {
  const message = isBackendError(e) || e instanceof Error ? e.message : String(e);
  return { ok: false, message, latencyMs: Math.round(performance.now() - started) };
}

function countOf(res: Awaited<ReturnType<SparqlEngine["run"]>>): number {
  return res.kind === "bindings" ? Number(res.rows[0]?.n?.value ?? 0) : 0;
}

function embeddedBackend(ctx: BackendContext): KnowledgeBackend {
  const dataFile = rdfDataFile(ctx);
  const engine = new OxigraphEngine(dataFile);
  return new SparqlBackend(engine, ctx, {
    stepTimeoutMs: EMBEDDED_STEP_TIMEOUT_MS,
    engineName: "embedded Oxigraph store",
    dataStamp: () => {
      try {
        const s = statSync(dataFile);
        return `${s.mtimeMs}:${s.size}`;
      } catch {
        return "missing";
      }
    },
    async health(): Promise<HealthResult> {
      const started = performance.now();
      if (!existsSync(dataFile)) {
        return {
          ok: false,
          message: "The embedded RDF store is empty: upload Turtle (.ttl), N-Triples (.nt) or RDF/XML (.rdf) files.",
          latencyMs: 0,
        };
      }
      try {
        const triples = await engine.size();
        const classes = countOf(
          await engine.run(`SELECT (COUNT(DISTINCT ?c) AS ?n) WHERE { ?s <${RDF_TYPE}> ?c }`, "bindings", { timeoutMs: HEALTH_TIMEOUT_MS }),
        );
        const latencyMs = Math.round(performance.now() - started);
        return {
          ok: true,
          message: `Embedded Oxigraph store: ${count(triples, "triple")}, ${count(classes, "class", "classes")}.`,
          latencyMs,
        };
      } catch (e) {
        return failure(e, started);
      }
    },
  });
}

function remoteBackend(config: Extract<SparqlConfig, { mode: "remote" }>, secrets: SparqlSecrets, ctx: BackendContext): KnowledgeBackend {
  const engine = new RemoteEngine({
    endpoint: config.endpoint,
    defaultGraph: config.defaultGraph,
    user: config.user,
    password: secrets.password,
  });
  return new SparqlBackend(engine, ctx, {
    stepTimeoutMs: REMOTE_STEP_TIMEOUT_MS,
    engineName: `SPARQL endpoint ${config.endpoint}${config.defaultGraph ? `, graph <${config.defaultGraph}>` : ""}`,
    dataStamp: () => String(Math.floor(Date.now() / REMOTE_SUMMARY_TTL_MS)),
    async health(): Promise<HealthResult> {
      const started = performance.now();
      try {
        const res = await engine.run("ASK { ?s ?p ?o }", "boolean", { timeoutMs: HEALTH_TIMEOUT_MS });
        const latencyMs = Math.round(performance.now() - started);
        const data = res.kind === "boolean" && res.value ? "" : " (the graph holds no triples)";
        return { ok: true, message: `Connected to ${config.endpoint}: answered in ${latencyMs} ms${data}.`, latencyMs };
      } catch (e) {
        return failure(e, started);
      }
    },
  });
}

/**
 * Opens an RDF knowledge base: the embedded Oxigraph store kept in `ctx.storageDir` (filled with
 * storeRdfFiles), or a remote SPARQL 1.1 endpoint. Opening does no I/O; the store starts on first use.
 */
export function createSparqlBackend(config: SparqlConfig, secrets: SparqlSecrets, ctx: BackendContext): KnowledgeBackend {
  return config.mode === "embedded" ? embeddedBackend(ctx) : remoteBackend(config, secrets, ctx);
}
