import type { KbStructure } from "../../../../backends/types";

/** A property graph's structure as its backend describes it (labels, relationship types, properties). */
export type GraphStructure = Extract<KbStructure, { kind: "graph" }>;

/** An RDF graph's structure as its backend describes it (classes, predicates). */
export type RdfStructure = Extract<KbStructure, { kind: "rdf" }>;

/** Property names that name a node on any graph: a label's caption key is its own name besides these. */
const GENERIC_NAME_KEYS = ["name", "title"];

/** The keys a node is looked up by name under: every label's caption key, then the generic ones. */
export function graphNameKeys(structure: GraphStructure): string[] {
  return [...new Set([...Object.values(structure.captionKeys), ...GENERIC_NAME_KEYS])];
}

/** Whether a property names its node (the label's caption key, or a generic name key), not describes it. */
export function isNameKey(structure: GraphStructure, label: string, key: string): boolean {
  return structure.captionKeys[label] === key || GENERIC_NAME_KEYS.includes(key);
}
