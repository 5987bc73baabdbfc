import { BackendConfigError } from "../errors";
import { labelFromIri } from "../evidence";
import type { Preview, Scalar } from "../types";
import type { SparqlEngine } from "./engine";
import { fetchResourceInfo } from "./labels";
import { LABEL_PREDICATES, RDF_TYPE, type RdfTerm, isNumericLiteral, isSafeIri } from "./rdf-terms";

const MAX_COLUMNS = 12;
const VALUES_PER_CELL = 3;

/**
 * A class as a table: one row per instance (its label), one column per property the instances use,
 * most used first; several values in one cell are joined with "; ".
 */
export async function previewClass(
  engine: SparqlEngine,
  classIri: string,
  options: { limit: number; timeoutMs: number },
): Promise<Preview> {
  if (!isSafeIri(classIri)) throw new BackendConfigError(`"${classIri}" is not a class IRI of this graph.`);
  const run = (q: string) => engine.run(q, "bindings", { timeoutMs: options.timeoutMs });
  const countRes = await run(`SELECT (COUNT(?s) AS ?n) WHERE { ?s <${RDF_TYPE}> <${classIri}> }`);
  const total = countRes.kind === "bindings" ? Number(countRes.rows[0]?.n?.value ?? 0) : 0;
  const instRes = await run(`SELECT DISTINCT ?s WHERE { ?s <${RDF_TYPE}> <${classIri}> FILTER(isIRI(?s)) } LIMIT ${options.limit}`);
  const instances = instRes.kind === "bindings" ? instRes.rows.flatMap((r) => (r.s && isSafeIri(r.s.value) ? [r.s.value] : [])) : [];

  const facts: { s: string; p: string; o: RdfTerm }[] = [];
  if (instances.length > 0) {
    const values = instances.map((i) => `<${i}>`).join(" ");
    const res = await run(`SELECT ?s ?p ?o WHERE { VALUES ?s { ${values} } ?s ?p ?o } LIMIT ${options.limit * 60}`);
    if (res.kind === "bindings") for (const r of res.rows) if (r.s && r.p && r.o) facts.push({ s: r.s.value, p: r.p.value, o: r.o });
  }

  const iris = new Set<string>([classIri, ...instances]);
  for (const f of facts) {
    iris.add(f.p);
    if (f.o.termType === "NamedNode") iris.add(f.o.value);
  }
  const info = await fetchResourceInfo(engine, iris, { timeoutMs: options.timeoutMs, withClass: false });
  const label = (iri: string) => info.get(iri)?.label ?? (labelFromIri(iri) || iri);

  const usage = new Map<string, number>();
  // The first column already shows each instance's label; rdf:type is the class itself.
  for (const f of facts) if (f.p !== RDF_TYPE && !LABEL_PREDICATES.includes(f.p)) usage.set(f.p, (usage.get(f.p) ?? 0) + 1);
  const predicates = [...usage.entries()]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .slice(0, MAX_COLUMNS - 1)
    .map(([p]) => p);
  const cell = (subject: string, predicate: string): Scalar => {
    const objects = facts.filter((f) => f.s === subject && f.p === predicate).map((f) => f.o);
    if (objects.length === 0) return null;
    if (objects.length === 1 && isNumericLiteral(objects[0]) && Number.isFinite(Number(objects[0].value))) return Number(objects[0].value);
    const shown = objects.slice(0, VALUES_PER_CELL).map((o) => (o.termType === "NamedNode" ? label(o.value) : o.value));
    return shown.join("; ") + (objects.length > VALUES_PER_CELL ? "; …" : "");
  };
  return {
    kind: "table",
    title: label(classIri),
    columns: [label(classIri), ...predicates.map(label)],
    rows: instances.map((s) => [label(s), ...predicates.map((p) => cell(s, p))]),
    totalRows: total,
    truncated: total > instances.length,
  };
}
