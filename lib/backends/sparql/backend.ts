import { QueryRejectedError } from "../errors";
import { labelFromIri } from "../evidence";
import {
  type BackendContext,
  DEFAULT_EXECUTE_OPTIONS,
  type Descriptor,
  type EntityIndexEntry,
  type EvidencePiece,
  type ExecuteOptions,
  type HealthResult,
  type KbStructure,
  type KnowledgeBackend,
  type NativeQuery,
  type Preview,
  type RawResult,
  type SourceUnit,
} from "../types";
import { renderDescriptor, renderSourceUnits } from "./describe";
import type { EngineResult, SparqlEngine } from "./engine";
import { buildEntityIndex } from "./entity-index";
import { type GraphSummary, summarizeGraph } from "./graph-summary";
import { attachResourceInfo, fetchResourceInfo } from "./labels";
import { PrefixMap } from "./namespaces";
import { previewClass } from "./preview";
import { LABEL_PREDICATES, RDF, type RdfTerm, XSD } from "./rdf-terms";
import { checkSparqlSafety } from "./safety";
import { resultShape, templateConstants } from "./triple-template";
import { verbalizeSparqlResult } from "./verbalize";

/** Looking up labels after a query gets at most this long (and never more than the query had left). */
const LABEL_BUDGET_MS = 3_000;
const MAX_LABELLED_IRIS = 600;
const LABEL_CACHE_LIMIT = 20_000;

export interface SparqlBackendOptions {
  /** How long each descriptor, preview and entity-index query may run. */
  stepTimeoutMs: number;
  /** Says whether the data changed since the summary was computed (embedded: the stored file). */
  dataStamp(): string;
  /** For the descriptor header: "embedded Oxigraph store" or "SPARQL endpoint http://…". */
  engineName: string;
  /** check(): a sentence about the store when reachable. */
  health(engine: SparqlEngine): Promise<HealthResult>;
}

function termsOf(records: Record<string, unknown>[]): RdfTerm[] {
  const out: RdfTerm[] = [];
  for (const r of records) for (const v of Object.values(r)) if (v && typeof v === "object" && "termType" in v) out.push(v as RdfTerm);
  return out;
}

export class SparqlBackend implements KnowledgeBackend {
  readonly kind = "SPARQL" as const;
  readonly language = "sparql" as const;
  private summary: { stamp: string; promise: Promise<GraphSummary> } | null = null;
  /** Labels of IRIs seen in results: verbalize() reads them for constants of the query (no I/O there). */
  private readonly labelCache = new Map<string, string>();

  constructor(
    private readonly engine: SparqlEngine,
    private readonly ctx: BackendContext,
    private readonly options: SparqlBackendOptions,
  ) {}

  check(): Promise<HealthResult> {
    return this.options.health(this.engine);
  }

  async describe(): Promise<Descriptor> {
    return renderDescriptor(await this.graphSummary(), { kbName: this.ctx.kbName, engine: this.options.engineName });
  }

  async sourceUnits(): Promise<SourceUnit[]> {
    return renderSourceUnits(await this.graphSummary());
  }

  async execute(query: NativeQuery, options: Partial<ExecuteOptions> = {}): Promise<RawResult> {
    const opts = { ...DEFAULT_EXECUTE_OPTIONS, ...options };
    if (query.language !== "sparql") {
      throw new QueryRejectedError(`this knowledge base answers SPARQL queries, not ${query.language}`, query.text);
    }
    const checked = checkSparqlSafety(query.text, { maxRows: opts.maxRows });
    const started = performance.now();
    const form = checked.form === "ASK" ? "boolean" : checked.form === "SELECT" ? "bindings" : "triples";
    const res = await this.engine.run(checked.normalized, form, {
      timeoutMs: opts.timeoutMs,
      signal: opts.signal,
      variables: checked.variables,
    });
    const shaped = shapeResult(res, opts.maxRows);

    const left = opts.timeoutMs - (performance.now() - started);
    const constants = templateConstants(resultShape(query.text, shaped.columns).template);
    const terms = termsOf(shaped.records);
    const iris = [...constants, ...terms.filter((t) => t.termType === "NamedNode").map((t) => t.value)].slice(0, MAX_LABELLED_IRIS);
    if (iris.length > 0 && left > 50) {
      const info = await fetchResourceInfo(this.engine, iris, { timeoutMs: Math.min(left, LABEL_BUDGET_MS), signal: opts.signal });
      attachResourceInfo(terms, info);
      this.rememberLabels(info);
    }
    return { query, ...shaped, elapsedMs: Math.round(performance.now() - started) };
  }

  verbalize(result: RawResult, options?: { sourceObject?: string | null }): EvidencePiece[] {
    return verbalizeSparqlResult(
      result,
      { kbId: this.ctx.kbId, kbName: this.ctx.kbName, knownLabel: (iri) => this.labelCache.get(iri) },
      options,
    );
  }

  async preview(sourceKey: string, options: { limit?: number } = {}): Promise<Preview> {
    const limit = Math.max(1, Math.min(options.limit ?? 10, 100));
    return previewClass(this.engine, sourceKey, { limit, timeoutMs: this.options.stepTimeoutMs });
  }

  async entityIndex(options: { limit?: number } = {}): Promise<EntityIndexEntry[]> {
    const limit = Math.max(1, options.limit ?? 5_000);
    return buildEntityIndex(this.engine, await this.graphSummary(), { limit, timeoutMs: this.options.stepTimeoutMs });
  }

  /** Classes and predicates as data for query formulation, from the same cached summary describe() renders. */
  async structure(): Promise<KbStructure> {
    return structureOf(await this.graphSummary());
  }

  async close(): Promise<void> {
    await this.engine.close();
  }

  private graphSummary(): Promise<GraphSummary> {
    const stamp = this.options.dataStamp();
    if (!this.summary || this.summary.stamp !== stamp) {
      const promise = summarizeGraph(this.engine, { stepTimeoutMs: this.options.stepTimeoutMs });
      this.summary = { stamp, promise };
      // A failed summary is not kept: the next call tries again.
      promise.catch(() => {
        if (this.summary?.promise === promise) this.summary = null;
      });
    }
    return this.summary.promise;
  }

  private rememberLabels(info: Map<string, { label?: string }>): void {
    if (this.labelCache.size > LABEL_CACHE_LIMIT) this.labelCache.clear();
    for (const [iri, i] of info) if (i.label) this.labelCache.set(iri, i.label);
  }
}

/** Datatypes of literal objects (XSD types, language-tagged strings, rdf:HTML…), as opposed to classes of resources. */
const RDF_DATATYPES = new Set(["langString", "HTML", "XMLLiteral", "JSON", "PlainLiteral"].map((t) => `${RDF}${t}`));
function isDatatype(iri: string): boolean {
  return iri.startsWith(XSD) || RDF_DATATYPES.has(iri);
}

/** The summary as KbStructure: labels fall back to local names, and a predicate is literal when most of its objects are. */
function structureOf(summary: GraphSummary): KbStructure {
  const prefixes: Record<string, string> = {};
  const map = PrefixMap.fromIris([...summary.classes.map((c) => c.iri), ...summary.predicates.map((p) => p.iri)]);
  for (const line of map.declarations()) {
    const m = /^PREFIX ([^:\s]*): <(.*)>$/.exec(line);
    if (m) prefixes[m[1]] = m[2];
  }
  const used = new Set(summary.predicates.map((p) => p.iri));
  const labelPredicates = LABEL_PREDICATES.filter((p) => used.has(p));
  return {
    kind: "rdf",
    prefixes,
    classes: summary.classes.map((c) => ({ iri: c.iri, label: c.label ?? labelFromIri(c.iri), instances: c.instances })),
    predicates: summary.predicates.map((p) => {
      const literalUses = p.ranges.filter((r) => isDatatype(r.iri)).reduce((n, r) => n + r.count, 0);
      const resourceUses = p.ranges.filter((r) => !isDatatype(r.iri)).reduce((n, r) => n + r.count, 0);
      return {
        iri: p.iri,
        label: p.label ?? labelFromIri(p.iri),
        count: p.uses,
        domains: p.domains.map((d) => d.iri),
        ranges: p.ranges.map((r) => r.iri),
        literal: literalUses > resourceUses,
      };
    }),
    // A graph the summary could not list predicates for still names its resources the usual ways.
    labelPredicates: labelPredicates.length > 0 || summary.predicates.length > 0 ? labelPredicates : [...LABEL_PREDICATES],
  };
}

/** Records under the row cap, and whether the cap (or the endpoint) cut anything off. */
export function shapeResult(res: EngineResult, maxRows: number): Pick<RawResult, "columns" | "records" | "truncated"> {
  if (res.kind === "boolean") return { columns: ["ask"], records: [{ ask: res.value }], truncated: false };
  if (res.kind === "triples") {
    return {
      columns: ["subject", "predicate", "object"],
      records: res.triples.slice(0, maxRows).map((t) => ({ subject: t.subject, predicate: t.predicate, object: t.object })),
      truncated: res.triples.length > maxRows || !!res.partial,
    };
  }
  return { columns: res.vars, records: res.rows.slice(0, maxRows), truncated: res.rows.length > maxRows || !!res.partial };
}
