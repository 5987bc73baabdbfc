import { COMPACT_MAX_CHARS, DESCRIPTOR_MAX_CHARS, boundText, descriptorVersion } from "../descriptor";
import { labelFromIri } from "../evidence";
import type { Descriptor, SourceUnit } from "../types";
import { type GraphSummary, type PredicateStat, isSchemaVocabulary } from "./graph-summary";
import { PrefixMap } from "./namespaces";
import { RDF_TYPE, type RdfTerm, termLabel } from "./rdf-terms";
import { count } from "../../format/count";

/**
 * The descriptor c_b of an RDF graph (OmniRetrieval): prefixes, classes with instance counts, predicates
 * with counts and typical domain → range, and a few example triples, all with labels where the graph has
 * them, so a reader can write SPARQL against it without having seen the data.
 */

function fmt(n: number): string {
  return n.toLocaleString("en-US");
}

/** `"made by"` after the compact IRI when the graph's label says more than the local name does. */
function labelNote(iri: string, label: string | undefined): string {
  if (!label) return "";
  const plain = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, "");
  return plain(label) === plain(labelFromIri(iri)) ? "" : ` "${label}"`;
}

function termText(t: RdfTerm, prefixes: PrefixMap): string {
  if (t.termType === "NamedNode") return prefixes.compact(t.value);
  if (t.termType === "BlankNode") return `_:${t.value}`;
  const value = JSON.stringify(t.value.length > 80 ? `${t.value.slice(0, 77)}…` : t.value);
  if (t.language) return `${value}@${t.language}`;
  return t.datatype && !t.datatype.endsWith("#string") ? `${value}^^${prefixes.compact(t.datatype)}` : value;
}

function allIris(summary: GraphSummary): string[] {
  const iris: string[] = [];
  for (const c of summary.classes) iris.push(c.iri);
  for (const p of summary.predicates) {
    iris.push(p.iri);
    for (const t of [...p.domains.slice(0, 3), ...p.ranges.slice(0, 3)]) iris.push(t.iri);
  }
  for (const t of summary.examples) for (const x of [t.subject, t.predicate, t.object]) if (x.termType === "NamedNode") iris.push(x.value);
  for (const t of summary.examples) if (t.object.datatype) iris.push(t.object.datatype);
  return iris;
}

function predicateLine(p: PredicateStat, prefixes: PrefixMap): string {
  const domain = p.domains
    .slice(0, 3)
    .map((d) => prefixes.compact(d.iri))
    .join(", ");
  const range = p.ranges
    .slice(0, 3)
    .map((r) => prefixes.compact(r.iri))
    .join(", ");
  const shape = domain || range ? `; ${domain || "?"} → ${range || "?"}` : "";
  return `- ${prefixes.compact(p.iri)}${labelNote(p.iri, p.label)} (${fmt(p.uses)}${shape})`;
}

export function renderDescriptor(summary: GraphSummary, where: { kbName: string; engine: string }): Descriptor {
  const prefixes = PrefixMap.fromIris(allIris(summary));
  const counts = [
    summary.triples === null ? null : count(summary.triples, "triple"),
    count(summary.classes.length, "class", "classes"),
    count(summary.predicates.length, "predicate"),
  ].filter(Boolean);
  const header = `RDF knowledge graph "${where.kbName}" (${where.engine}; query language SPARQL 1.1, read-only SELECT/ASK/CONSTRUCT/DESCRIBE): ${counts.join(", ")}.`;

  const lines: string[] = [header, "", "Prefixes:", ...prefixes.declarations(), "", "Classes (instances):"];
  for (const c of summary.classes) lines.push(`- ${prefixes.compact(c.iri)}${labelNote(c.iri, c.label)} (${fmt(c.instances)})`);
  if (summary.classes.length === 0) lines.push("- (no rdf:type statements)");
  lines.push("", "Predicates (uses; subject class → object class or datatype):");
  for (const p of summary.predicates) lines.push(predicateLine(p, prefixes));
  if (summary.examples.length > 0) {
    lines.push("", "Example triples:");
    for (const t of summary.examples) {
      const readable = `${termLabel(t.subject)} — ${t.predicate.label ?? labelFromIri(t.predicate.value)} — ${termLabel(t.object)}`;
      lines.push(`- ${termText(t.subject, prefixes)} ${termText(t.predicate, prefixes)} ${termText(t.object, prefixes)} .  # ${readable}`);
    }
  }
  if (summary.notes.length > 0) lines.push("", "Notes:", ...summary.notes.map((n) => `- ${n}`));
  const text = boundText(lines.join("\n"), DESCRIPTOR_MAX_CHARS);

  // The compact form names every class and predicate by label for source selection, without details.
  const name = (iri: string, label?: string) => label ?? labelFromIri(iri);
  const compact = boundText(
    [
      header,
      `Classes: ${summary.classes.map((c) => `${name(c.iri, c.label)} (${fmt(c.instances)})`).join(", ") || "none"}.`,
      `Predicates: ${[...new Set(summary.predicates.map((p) => name(p.iri, p.label)))].join(", ") || "none"}.`,
    ].join("\n"),
    COMPACT_MAX_CHARS,
  );
  return {
    text,
    compact,
    version: descriptorVersion(text),
    stats: {
      triples: summary.triples ?? -1,
      classes: summary.classes.length,
      predicates: summary.predicates.length,
      examples: summary.examples.length,
    },
  };
}

/** One source unit per content class (AU-RAG source objects); rdfs:Class, owl:Class… are schema, not units. */
export function renderSourceUnits(summary: GraphSummary): SourceUnit[] {
  const prefixes = PrefixMap.fromIris(allIris(summary));
  const classLabel = new Map(summary.classes.map((c) => [c.iri, c.label ?? labelFromIri(c.iri)]));
  return summary.classes
    .filter((c) => !isSchemaVocabulary(c.iri))
    .map((c) => {
      const name = classLabel.get(c.iri)!;
      const props = summary.predicates.filter((p) => p.iri !== RDF_TYPE && p.domains.some((d) => d.iri === c.iri));
      const described = props.slice(0, 15).map((p) => {
        const pName = p.label ?? labelFromIri(p.iri);
        const target = p.ranges.find((r) => classLabel.has(r.iri));
        return target ? `${pName} → ${classLabel.get(target.iri)}` : pName;
      });
      const more = props.length > described.length ? `, … (${props.length - described.length} more)` : "";
      const description = `Class ${name}: ${count(c.instances, "instance")}${
        described.length ? `; properties: ${described.join(", ")}${more}` : ""
      }.`;
      return {
        key: c.iri,
        name,
        contentType: "GRAPH" as const,
        description,
        tags: ["rdf-class"],
        metadata: {
          iri: c.iri,
          curie: prefixes.compact(c.iri),
          instances: c.instances,
          properties: props.map((p) => p.iri),
        },
      };
    });
}
