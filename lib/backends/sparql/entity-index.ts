import { labelFromIri } from "../evidence";
import type { EntityIndexEntry } from "../types";
import type { SparqlEngine } from "./engine";
import type { GraphSummary } from "./graph-summary";
import { LABEL_PATH, LABEL_PREDICATES, RDF_TYPE, type RdfTerm, XSD } from "./rdf-terms";

/**
 * Surface forms a question may use to name something in the graph, most useful first: class and
 * predicate labels, resource labels, short literal values ("France"), then local names of unlabelled
 * resources. Each step is one bounded query; a step that fails or times out is skipped.
 */

/** Local names that are keys, not names: numbers, Direct Mapping row keys ("ID=3"), long opaque ids. */
function isNameLike(localName: string): boolean {
  return (
    localName.length >= 2 && localName.length <= 60 && !/^\d+$/.test(localName) && !localName.includes("=") && /[a-z]/i.test(localName)
  );
}

export async function buildEntityIndex(
  engine: SparqlEngine,
  summary: GraphSummary,
  options: { limit: number; timeoutMs: number },
): Promise<EntityIndexEntry[]> {
  const out: EntityIndexEntry[] = [];
  const seen = new Set<string>();
  const add = (e: EntityIndexEntry) => {
    const label = e.label.replace(/\s+/g, " ").trim();
    const key = `${e.kind}\u0000${label.toLowerCase()}\u0000${e.ref}`;
    if (!label || out.length >= options.limit || seen.has(key)) return;
    seen.add(key);
    out.push({ ...e, label });
  };
  const select = async (query: string): Promise<Record<string, RdfTerm | null>[]> => {
    const room = options.limit - out.length;
    if (room <= 0) return [];
    try {
      const r = await engine.run(`${query} LIMIT ${room}`, "bindings", { timeoutMs: options.timeoutMs });
      return r.kind === "bindings" ? r.rows : [];
    } catch {
      return [];
    }
  };

  for (const c of summary.classes) add({ label: c.label ?? labelFromIri(c.iri), kind: "class", ref: c.iri, sourceObject: c.iri });
  for (const p of summary.predicates)
    add({ label: p.label ?? labelFromIri(p.iri), kind: "predicate", ref: p.iri, sourceObject: p.domains[0]?.iri ?? null });

  for (const r of await select(
    `SELECT ?r ?l (MIN(STR(?c)) AS ?cls) WHERE { ?r ${LABEL_PATH} ?l FILTER(isIRI(?r)) OPTIONAL { ?r <${RDF_TYPE}> ?c } } GROUP BY ?r ?l`,
  )) {
    if (r.r && r.l) add({ label: r.l.value, kind: "label", ref: r.r.value, sourceObject: r.cls?.value || null });
  }

  const domainOf = new Map(summary.predicates.map((p) => [p.iri, p.domains[0]?.iri ?? null]));
  const notLabels = LABEL_PREDICATES.map((p) => `<${p}>`).join(", ");
  for (const r of await select(
    `SELECT DISTINCT ?v ?p WHERE { ?s ?p ?v FILTER(isLiteral(?v) && (LANG(?v) != "" || DATATYPE(?v) = <${XSD}string>) && STRLEN(STR(?v)) >= 2 && STRLEN(STR(?v)) <= 60 && ?p NOT IN (${notLabels})) }`,
  )) {
    if (r.v && r.p)
      add({
        label: r.v.value,
        kind: "value",
        ref: `<${r.p.value}> ${JSON.stringify(r.v.value)}`,
        sourceObject: domainOf.get(r.p.value) ?? null,
      });
  }

  for (const r of await select(
    `SELECT ?r (MIN(STR(?c)) AS ?cls) WHERE { ?r <${RDF_TYPE}> ?c FILTER(isIRI(?r)) FILTER NOT EXISTS { ?r ${LABEL_PATH} ?l } } GROUP BY ?r`,
  )) {
    if (!r.r) continue;
    const local = labelFromIri(r.r.value);
    if (isNameLike(local)) add({ label: local, kind: "label", ref: r.r.value, sourceObject: r.cls?.value || null });
  }
  return out;
}
