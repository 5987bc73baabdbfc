/**
 * Short prefixes for the namespaces a graph uses, so the descriptor reads `shop:madeBy` rather than
 * full IRIs and a query writer can copy the PREFIX lines.
 */

const WELL_KNOWN: Record<string, string> = {
  "http://www.w3.org/1999/02/22-rdf-syntax-ns#": "rdf",
  "http://www.w3.org/2000/01/rdf-schema#": "rdfs",
  "http://www.w3.org/2002/07/owl#": "owl",
  "http://www.w3.org/2001/XMLSchema#": "xsd",
  "http://www.w3.org/2004/02/skos/core#": "skos",
  "http://schema.org/": "schema",
  "https://schema.org/": "schema",
  "http://xmlns.com/foaf/0.1/": "foaf",
  "http://purl.org/dc/elements/1.1/": "dc",
  "http://purl.org/dc/terms/": "dcterms",
  "http://www.w3.org/ns/prov#": "prov",
  "http://www.w3.org/2003/01/geo/wgs84_pos#": "wgs84",
  "http://www.wikidata.org/entity/": "wd",
  "http://www.wikidata.org/prop/direct/": "wdt",
  "http://www.wikidata.org/prop/": "p",
  "http://www.wikidata.org/prop/statement/": "ps",
  "http://www.wikidata.org/prop/qualifier/": "pq",
  "http://wikiba.se/ontology#": "wikibase",
  "http://dbpedia.org/ontology/": "dbo",
  "http://dbpedia.org/resource/": "dbr",
  "http://dbpedia.org/property/": "dbp",
};

/** SPARQL's PN_LOCAL, simplified to what we emit: anything else is written as a full <IRI>. */
const LOCAL_NAME = /^[A-Za-z0-9_]([A-Za-z0-9_.-]*[A-Za-z0-9_-])?$/;

export function splitIri(iri: string): { namespace: string; local: string } {
  const cut = Math.max(iri.lastIndexOf("#"), iri.lastIndexOf("/"), iri.lastIndexOf(":"));
  return { namespace: iri.slice(0, cut + 1), local: iri.slice(cut + 1) };
}

/** A prefix from the namespace's last meaningful path segment, else from its host name. */
function suggestPrefix(namespace: string): string {
  let host = "";
  let pathSegments: string[] = [];
  try {
    const url = new URL(namespace);
    host = url.hostname;
    pathSegments = `${url.pathname}${url.hash}`.split(/[/#:]/);
  } catch {
    pathSegments = namespace.split(/[/#:]/);
  }
  const hostLabels = host
    .split(".")
    .slice(0, -1)
    .filter((l) => l !== "www");
  for (const seg of [...pathSegments.reverse(), ...hostLabels.reverse()]) {
    const p = seg.toLowerCase().replace(/[^a-z0-9]/g, "");
    if (/^[a-z][a-z0-9]{0,15}$/.test(p) && !["ns", "rdf", "html", "owl"].includes(p)) return p;
  }
  return "ns";
}

export class PrefixMap {
  private readonly byNamespace = new Map<string, string>();
  private readonly taken = new Set<string>();

  /** Namespaces ordered by how often they occur get the shortest, plainest prefixes. */
  static fromIris(iris: Iterable<string>, limit = 40): PrefixMap {
    const counts = new Map<string, number>();
    for (const iri of iris) {
      const { namespace, local } = splitIri(iri);
      if (!namespace || !LOCAL_NAME.test(local)) continue;
      counts.set(namespace, (counts.get(namespace) ?? 0) + 1);
    }
    const map = new PrefixMap();
    const ordered = [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, limit);
    // Well-known namespaces first, so "rdfs" is never taken by a look-alike.
    for (const [ns] of ordered) if (WELL_KNOWN[ns]) map.add(ns, WELL_KNOWN[ns]);
    for (const [ns] of ordered) if (!WELL_KNOWN[ns]) map.add(ns, suggestPrefix(ns));
    return map;
  }

  private add(namespace: string, wanted: string): void {
    if (this.byNamespace.has(namespace)) return;
    let prefix = wanted;
    for (let i = 2; this.taken.has(prefix); i++) prefix = `${wanted}${i}`;
    this.taken.add(prefix);
    this.byNamespace.set(namespace, prefix);
  }

  /** `shop:madeBy` when a prefix covers the IRI and the local name is valid, else `<IRI>`. */
  compact(iri: string): string {
    const { namespace, local } = splitIri(iri);
    const prefix = this.byNamespace.get(namespace);
    return prefix !== undefined && LOCAL_NAME.test(local) ? `${prefix}:${local}` : `<${iri}>`;
  }

  /** PREFIX lines in the order the prefixes were given. */
  declarations(): string[] {
    return [...this.byNamespace.entries()].map(([ns, p]) => `PREFIX ${p}: <${ns}>`);
  }

  get size(): number {
    return this.byNamespace.size;
  }
}
