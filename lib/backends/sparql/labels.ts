import type { SparqlEngine } from "./engine";
import { LABEL_PREDICATES, RDF_TYPE, type RdfTerm, isSafeIri } from "./rdf-terms";

export interface ResourceInfo {
  label?: string;
  class?: string;
}

/** IRIs per label query: VALUES blocks this size stay well under endpoints' query-length limits. */
const CHUNK = 150;

/** Prefers an English or untagged label, and rdfs:label over skos:prefLabel over schema:name. */
function labelRank(predicate: string, language: string | undefined): number {
  const p = LABEL_PREDICATES.indexOf(predicate);
  const lang = !language ? 0 : /^en\b/i.test(language) ? 0 : 1;
  return lang * 100 + (p < 0 ? 50 : p);
}

/**
 * Looks up a label and one rdf:type for each IRI. Best effort: an endpoint that is slow or refuses
 * answers with what it has, and callers fall back to local names (labelFromIri).
 */
export async function fetchResourceInfo(
  engine: SparqlEngine,
  iris: Iterable<string>,
  options: { timeoutMs: number; withClass?: boolean; signal?: AbortSignal },
): Promise<Map<string, ResourceInfo>> {
  const all = [...new Set(iris)].filter(isSafeIri);
  const out = new Map<string, ResourceInfo>();
  const ranks = new Map<string, number>();
  const deadline = Date.now() + options.timeoutMs;
  for (let i = 0; i < all.length; i += CHUNK) {
    const left = deadline - Date.now();
    if (left <= 0) break;
    const values = all
      .slice(i, i + CHUNK)
      .map((iri) => `<${iri}>`)
      .join(" ");
    const labelBranch = `{ ?r ?lp ?label VALUES ?lp { ${LABEL_PREDICATES.map((p) => `<${p}>`).join(" ")} } }`;
    const classBranch = options.withClass === false ? "" : ` UNION { ?r <${RDF_TYPE}> ?class }`;
    const query = `SELECT ?r ?lp ?label ?class WHERE { VALUES ?r { ${values} } ${labelBranch}${classBranch} } LIMIT ${CHUNK * 20}`;
    let rows: Record<string, RdfTerm | null>[];
    try {
      const res = await engine.run(query, "bindings", { timeoutMs: left, signal: options.signal });
      if (res.kind !== "bindings") continue;
      rows = res.rows;
    } catch {
      break;
    }
    for (const row of rows) {
      const r = row.r?.value;
      if (!r) continue;
      const info = out.get(r) ?? {};
      if (row.label?.termType === "Literal" && row.label.value.trim() && row.lp) {
        const rank = labelRank(row.lp.value, row.label.language);
        if (rank < (ranks.get(r) ?? Infinity)) {
          ranks.set(r, rank);
          info.label = row.label.value.replace(/\s+/g, " ").trim();
        }
      }
      // The smallest IRI, so the same resource always reports the same class whatever the row order.
      if (row.class?.termType === "NamedNode" && (!info.class || row.class.value < info.class)) info.class = row.class.value;
      out.set(r, info);
    }
  }
  return out;
}

/** Copies labels and classes onto the IRIs in records (in place), so verbalize needs no I/O. */
export function attachResourceInfo(terms: Iterable<RdfTerm>, info: Map<string, ResourceInfo>): void {
  for (const t of terms) {
    if (t.termType !== "NamedNode") continue;
    const i = info.get(t.value);
    if (i?.label) t.label = i.label;
    if (i?.class) t.class = i.class;
  }
}
