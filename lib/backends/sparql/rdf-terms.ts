import { labelFromIri } from "../evidence";

/**
 * RDF terms as plain JSON (what RawResult records hold), and the few IRIs the backend relies on.
 */

export type RdfTermType = "NamedNode" | "BlankNode" | "Literal";

export interface RdfTerm {
  termType: RdfTermType;
  value: string;
  datatype?: string;
  language?: string;
  /** Human label looked up in the graph after execution (rdfs:label, skos:prefLabel, schema:name). */
  label?: string;
  /** One rdf:type of the resource, looked up with the label; becomes the evidence's source object. */
  class?: string;
}

export interface RdfTriple {
  subject: RdfTerm;
  predicate: RdfTerm;
  object: RdfTerm;
}

export const RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#";
export const RDFS = "http://www.w3.org/2000/01/rdf-schema#";
export const OWL = "http://www.w3.org/2002/07/owl#";
export const XSD = "http://www.w3.org/2001/XMLSchema#";
export const RDF_TYPE = `${RDF}type`;
export const RDFS_LABEL = `${RDFS}label`;

/** Predicates whose objects name a resource, best first. */
export const LABEL_PREDICATES = [
  RDFS_LABEL,
  "http://www.w3.org/2004/02/skos/core#prefLabel",
  "http://schema.org/name",
  "https://schema.org/name",
  "http://xmlns.com/foaf/0.1/name",
];

/** The `|`-joined SPARQL property path over LABEL_PREDICATES. */
export const LABEL_PATH = LABEL_PREDICATES.map((p) => `<${p}>`).join("|");

const NUMERIC_DATATYPES = new Set(
  [
    "integer",
    "decimal",
    "double",
    "float",
    "int",
    "long",
    "short",
    "byte",
    "nonNegativeInteger",
    "positiveInteger",
    "negativeInteger",
    "nonPositiveInteger",
    "unsignedInt",
    "unsignedLong",
    "unsignedShort",
    "unsignedByte",
  ].map((t) => `${XSD}${t}`),
);

export function isNumericLiteral(term: RdfTerm): boolean {
  return term.termType === "Literal" && term.datatype !== undefined && NUMERIC_DATATYPES.has(term.datatype);
}

/**
 * IRIs we splice into our own queries (labels, previews) must not be able to close the `<…>` and add
 * query text. These are exactly the characters SPARQL's IRIREF forbids.
 */
export function isSafeIri(iri: string): boolean {
  return iri.length > 0 && iri.length <= 4096 && /^[a-z][a-z0-9+.-]*:[^\s<>"{}|^`\\]*$/i.test(iri);
}

/** A SPARQL JSON results term ({type: "uri"|"bnode"|"literal"|"typed-literal", value, …}) as an RdfTerm. */
export function termFromSparqlJson(t: unknown): RdfTerm | null {
  if (!t || typeof t !== "object") return null;
  const o = t as Record<string, unknown>;
  const value = typeof o.value === "string" ? o.value : String(o.value ?? "");
  switch (o.type) {
    case "uri":
      return { termType: "NamedNode", value };
    case "bnode":
      return { termType: "BlankNode", value };
    case "literal":
    case "typed-literal": {
      // "typed-literal" is the pre-1.1 spelling Virtuoso still sends.
      const term: RdfTerm = { termType: "Literal", value };
      const lang = o["xml:lang"] ?? o.lang;
      if (typeof lang === "string" && lang) term.language = lang;
      else if (typeof o.datatype === "string") term.datatype = o.datatype;
      return term;
    }
    case "triple":
      return { termType: "Literal", value: JSON.stringify(o.value) };
    default:
      return null;
  }
}

/** The label a person reads for a term: its looked-up label, the IRI's local name, or the literal. */
export function termLabel(term: RdfTerm): string {
  if (term.label) return term.label;
  if (term.termType === "NamedNode") return labelFromIri(term.value) || term.value;
  if (term.termType === "BlankNode") return `_:${term.value}`;
  return term.value;
}
