import type { SparqlEngine } from "./engine";
import { attachResourceInfo, fetchResourceInfo } from "./labels";
import { LABEL_PREDICATES, OWL, RDF, RDF_TYPE, RDFS, type RdfTerm, type RdfTriple, isSafeIri } from "./rdf-terms";

/**
 * What a graph holds, gathered with a handful of bounded aggregate queries. Both the descriptor and the
 * source units are rendered from it. Against a large remote endpoint any step may time out: the summary
 * then keeps what it got, falls back to sampled counts, and says so in `notes`.
 */

export interface ClassStat {
  iri: string;
  label?: string;
  instances: number;
}

export interface TypeCount {
  iri: string;
  count: number;
}

export interface PredicateStat {
  iri: string;
  label?: string;
  uses: number;
  /** Classes of the subjects, most frequent first. */
  domains: TypeCount[];
  /** Classes of IRI objects and datatypes of literal objects, most frequent first. */
  ranges: TypeCount[];
}

export interface GraphSummary {
  triples: number | null;
  classes: ClassStat[];
  predicates: PredicateStat[];
  examples: RdfTriple[];
  notes: string[];
}

export const MAX_CLASSES = 200;
export const MAX_PREDICATES = 300;
const SAMPLE_SIZE = 10_000;
const EXAMPLE_COUNT = 8;

/** Vocabulary describing vocabularies (rdfs:Class, owl:ObjectProperty…): schema, not content. */
export function isSchemaVocabulary(iri: string): boolean {
  return iri.startsWith(RDF) || iri.startsWith(RDFS) || iri.startsWith(OWL);
}

type Rows = Record<string, RdfTerm | null>[];

function num(t: RdfTerm | null | undefined): number {
  const n = Number(t?.value);
  return Number.isFinite(n) ? n : 0;
}

function pushCount(map: Map<string, TypeCount[]>, key: string, iri: string, count: number): void {
  const list = map.get(key) ?? [];
  list.push({ iri, count });
  map.set(key, list);
}

export async function summarizeGraph(engine: SparqlEngine, options: { stepTimeoutMs: number }): Promise<GraphSummary> {
  const notes: string[] = [];
  const seconds = `${Math.round(options.stepTimeoutMs / 1000)} s`;
  const select = async (query: string): Promise<Rows | null> => {
    try {
      const r = await engine.run(query, "bindings", { timeoutMs: options.stepTimeoutMs });
      return r.kind === "bindings" ? r.rows : null;
    } catch {
      return null;
    }
  };

  const countRows = await select("SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }");
  const triples = countRows ? num(countRows[0]?.n) : null;
  if (countRows === null) notes.push(`The endpoint did not count its triples within ${seconds}.`);

  let classRows = await select(
    `SELECT ?c (COUNT(?s) AS ?n) WHERE { ?s <${RDF_TYPE}> ?c } GROUP BY ?c ORDER BY DESC(?n) ?c LIMIT ${MAX_CLASSES}`,
  );
  if (classRows === null) {
    classRows = await select(
      `SELECT ?c (COUNT(*) AS ?n) WHERE { { SELECT ?c WHERE { ?s <${RDF_TYPE}> ?c } LIMIT ${SAMPLE_SIZE} } } GROUP BY ?c ORDER BY DESC(?n) ?c LIMIT ${MAX_CLASSES}`,
    );
    notes.push(
      classRows === null
        ? `Classes are not listed: the endpoint did not answer within ${seconds}.`
        : `Instance counts are from a sample of ${SAMPLE_SIZE.toLocaleString("en-US")} typed resources (the full count took longer than ${seconds}).`,
    );
  }
  const classes: ClassStat[] = (classRows ?? [])
    .filter((r) => r.c?.termType === "NamedNode")
    .map((r) => ({ iri: r.c!.value, instances: num(r.n) }));

  let predicateRows = await select(
    `SELECT ?p (COUNT(*) AS ?n) WHERE { ?s ?p ?o } GROUP BY ?p ORDER BY DESC(?n) ?p LIMIT ${MAX_PREDICATES}`,
  );
  if (predicateRows === null) {
    predicateRows = await select(
      `SELECT ?p (COUNT(*) AS ?n) WHERE { { SELECT ?p WHERE { ?s ?p ?o } LIMIT ${SAMPLE_SIZE} } } GROUP BY ?p ORDER BY DESC(?n) ?p LIMIT ${MAX_PREDICATES}`,
    );
    notes.push(
      predicateRows === null
        ? `Predicates are not listed: the endpoint did not answer within ${seconds}.`
        : `Predicate counts are from a sample of ${SAMPLE_SIZE.toLocaleString("en-US")} triples (the full count took longer than ${seconds}).`,
    );
  }

  const domains = new Map<string, TypeCount[]>();
  const ranges = new Map<string, TypeCount[]>();
  const domainRows = await select(
    `SELECT ?p ?c (COUNT(*) AS ?n) WHERE { ?s ?p ?o . ?s <${RDF_TYPE}> ?c } GROUP BY ?p ?c ORDER BY DESC(?n) ?p ?c LIMIT 3000`,
  );
  const classRangeRows = await select(
    `SELECT ?p ?c (COUNT(*) AS ?n) WHERE { ?s ?p ?o . ?o <${RDF_TYPE}> ?c } GROUP BY ?p ?c ORDER BY DESC(?n) ?p ?c LIMIT 3000`,
  );
  const literalRangeRows = await select(
    `SELECT ?p ?dt (COUNT(*) AS ?n) WHERE { ?s ?p ?o FILTER(isLiteral(?o)) BIND(DATATYPE(?o) AS ?dt) } GROUP BY ?p ?dt ORDER BY DESC(?n) ?p ?dt LIMIT 3000`,
  );
  if (!domainRows || !classRangeRows || !literalRangeRows)
    notes.push(`Some domains and ranges are missing: the endpoint did not answer within ${seconds}.`);
  for (const r of domainRows ?? []) if (r.p && r.c) pushCount(domains, r.p.value, r.c.value, num(r.n));
  for (const r of [...(classRangeRows ?? []), ...(literalRangeRows ?? [])]) {
    const type = r.c ?? r.dt;
    if (r.p && type) pushCount(ranges, r.p.value, type.value, num(r.n));
  }
  const predicates: PredicateStat[] = (predicateRows ?? [])
    .filter((r) => r.p?.termType === "NamedNode")
    .map((r) => {
      const iri = r.p!.value;
      return {
        iri,
        uses: num(r.n),
        domains: (domains.get(iri) ?? []).sort((a, b) => b.count - a.count),
        ranges: (ranges.get(iri) ?? []).sort((a, b) => b.count - a.count),
      };
    });

  const examples = await exampleTriples(engine, predicates, options.stepTimeoutMs);

  const info = await fetchResourceInfo(
    engine,
    [
      ...classes.map((c) => c.iri),
      ...predicates.map((p) => p.iri),
      ...examples.flatMap((t) => [t.subject, t.object].filter((x) => x.termType === "NamedNode").map((x) => x.value)),
    ],
    { timeoutMs: options.stepTimeoutMs, withClass: false },
  );
  for (const c of classes) c.label = info.get(c.iri)?.label;
  for (const p of predicates) p.label = info.get(p.iri)?.label;
  attachResourceInfo(
    examples.flatMap((t) => [t.subject, t.predicate, t.object]),
    info,
  );
  return { triples, classes, predicates, examples, notes };
}

/** One triple for each of the most used content predicates (not rdf:type, not labels). */
async function exampleTriples(engine: SparqlEngine, predicates: PredicateStat[], timeoutMs: number): Promise<RdfTriple[]> {
  const chosen = predicates
    .filter((p) => p.iri !== RDF_TYPE && !LABEL_PREDICATES.includes(p.iri) && !isSchemaVocabulary(p.iri) && isSafeIri(p.iri))
    .slice(0, EXAMPLE_COUNT);
  const out: RdfTriple[] = [];
  for (const p of chosen) {
    try {
      const r = await engine.run(`SELECT ?s ?o WHERE { ?s <${p.iri}> ?o } LIMIT 1`, "bindings", { timeoutMs });
      const row = r.kind === "bindings" ? r.rows[0] : undefined;
      if (row?.s && row.o) out.push({ subject: row.s, predicate: { termType: "NamedNode", value: p.iri }, object: row.o });
    } catch {
      // An example is a nicety; a slow predicate simply has none.
    }
  }
  return out;
}
