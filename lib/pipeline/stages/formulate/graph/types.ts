import type { KbStructure } from "../../../../backends/types";

/** A property graph's structure as its backend describes it (labels, relationship types, properties). */
export type GraphStructure = Extract<KbStructure, { kind: "graph" }>;

/** An RDF graph's structure as its backend describes it (classes, predicates). */
export type RdfStructure = Extract<KbStructure, { kind: "rdf" }>;
