import { isSafeIri } from "../../../../backends/sparql/rdf-terms";

/**
 * Writes SPARQL text with the KB's own prefixes (readable in the evidence panel) and only safe
 * terms: an IRI that could close its `<…>` is never written, literals are JSON-escaped strings
 * (SPARQL's STRING_LITERAL2 reads the same escapes).
 */

/** A local name every SPARQL parser reads after a prefix (a strict subset of PN_LOCAL). */
const SIMPLE_LOCAL = /^[A-Za-z_][A-Za-z0-9_-]*$/;

export class SparqlWriter {
  private readonly used = new Map<string, string>();
  private readonly byNamespace: [string, string][];

  constructor(prefixes: Record<string, string>) {
    // Longest namespace first, so a nested namespace wins over its parent.
    this.byNamespace = Object.entries(prefixes)
      .filter(([p, ns]) => /^[A-Za-z][A-Za-z0-9_-]*$/.test(p) && isSafeIri(ns))
      .map(([p, ns]): [string, string] => [ns, p])
      .sort((a, b) => b[0].length - a[0].length);
  }

  /** `ex:madeBy` when a prefix covers the IRI, else `<IRI>`. Throws on an IRI that is unsafe to write. */
  iri(iri: string): string {
    if (!isSafeIri(iri)) throw new RangeError(`unsafe IRI ${JSON.stringify(iri.slice(0, 80))}`);
    for (const [ns, prefix] of this.byNamespace) {
      if (!iri.startsWith(ns)) continue;
      const local = iri.slice(ns.length);
      if (!SIMPLE_LOCAL.test(local)) break;
      this.used.set(prefix, ns);
      return `${prefix}:${local}`;
    }
    return `<${iri}>`;
  }

  /** The PREFIX lines of the prefixes used so far, then the query. */
  render(query: string): string {
    const lines = [...this.used.entries()].map(([p, ns]) => `PREFIX ${p}: <${ns}>`);
    return [...lines, query].join("\n");
  }
}

export function sparqlString(value: string): string {
  return JSON.stringify(value);
}
