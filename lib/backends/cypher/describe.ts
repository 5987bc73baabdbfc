import { COMPACT_MAX_CHARS, DESCRIPTOR_MAX_CHARS, boundText, descriptorVersion } from "../descriptor";
import type { Descriptor, SourceUnit } from "../types";
import { SCHEMA_LIMITS, type GraphSchema, type LabelSchema, type PatternSchema, type PropertyStats } from "./schema";
import { count } from "../../format/count";

/**
 * The descriptor c_b of a Neo4j KB, in the layout of the Neo4j Text2Cypher schemas (datasets/text2cypher/
 * schemas.csv), which is what Cypher-writing models have seen most: "Node properties:" with typed
 * properties and example values, "Relationship properties:", "The relationships:" as patterns.
 * Counts are added so a reader knows what is big; everything is deterministic, so the same graph gives
 * the same text and the same version.
 */

/** Text2Cypher cuts example strings at 50 characters. */
const EXAMPLE_CHARS = 50;
/** Properties listed per label or type; rare ones beyond this are dropped first (they are sorted by frequency). */
const MAX_PROPERTIES = 40;
/** Lists longer than this are embeddings, not data a question is about. */
const MAX_LIST_SIZE_SHOWN = 128;

function quoteValue(v: string): string {
  return JSON.stringify(v.slice(0, EXAMPLE_CHARS));
}

function optionsText(values: string[]): string {
  return `[${values.map((v) => `'${v.slice(0, EXAMPLE_CHARS).replace(/'/g, "\\'")}'`).join(", ")}]`;
}

/** "STRING Example: "The Matrix"", "INTEGER Min: 1975, Max: 2012", "LIST Min Size: 1, Max Size: 6". */
function valueSummary(p: PropertyStats): string {
  if (p.type === "LIST" || p.type === "VECTOR") {
    return p.maxSize !== undefined && p.maxSize <= MAX_LIST_SIZE_SHOWN ? `Min Size: ${p.minSize}, Max Size: ${p.maxSize}` : "";
  }
  if (p.type === "BOOLEAN" || p.type === "MAP" || p.type === "BYTES") return "";
  if (p.type === "STRING" && p.distinct.length > 0 && p.distinct.length <= SCHEMA_LIMITS.optionsMax) {
    return `Available options: ${optionsText(p.distinct)}`;
  }
  if (p.min !== undefined && p.max !== undefined && p.type !== "STRING") {
    return p.min === p.max ? `Example: ${quoteValue(p.min)}` : `Min: ${p.min}, Max: ${p.max}`;
  }
  return p.distinct[0] !== undefined ? `Example: ${quoteValue(p.distinct[0])}` : "";
}

function nodePropertyLines(properties: PropertyStats[]): string[] {
  return properties.slice(0, MAX_PROPERTIES).map((p) => `  - \`${p.key}\`: ${p.type} ${valueSummary(p)}`.trimEnd());
}

function relPropertyLines(properties: PropertyStats[]): string[] {
  return properties.slice(0, MAX_PROPERTIES).map((p) => `  - \`${p.key}: ${p.type}\` ${valueSummary(p)}`.trimEnd());
}

export function patternText(p: { from: string; type: string; to: string }): string {
  return `(:${p.from})-[:${p.type}]->(:${p.to})`;
}

function countText(p: PatternSchema): string {
  return `${p.atLeast ? "at least " : ""}${p.count} ${p.count === 1 ? "relationship" : "relationships"}`;
}

export function describeGraph(schema: GraphSchema, kbName: string): Descriptor {
  const lines: string[] = [
    `Neo4j property graph "${kbName}" (${schema.serverVersion}, database ${schema.database}): ${count(schema.nodeCount, "node")}, ${count(schema.relationshipCount, "relationship")}. Query it with read-only Cypher.`,
    "Node properties:",
  ];
  for (const l of schema.labels) {
    lines.push(`- **${l.label}** (${count(l.count, "node")})`, ...nodePropertyLines(l.properties));
  }
  lines.push("Relationship properties:");
  for (const t of schema.relationshipTypes) {
    if (t.properties.length > 0) lines.push(`- **${t.type}**`, ...relPropertyLines(t.properties));
  }
  lines.push("The relationships:");
  for (const p of schema.patterns) lines.push(`${patternText(p)} (${countText(p)})`);
  const text = boundText(lines.join("\n"), DESCRIPTOR_MAX_CHARS);

  // The compact form names every label, property and pattern but drops types, examples and counts.
  const compactLines = [
    `Neo4j property graph "${kbName}": ${count(schema.nodeCount, "node")}, ${count(schema.relationshipCount, "relationship")}.`,
    `Labels: ${schema.labels
      .map(
        (l) =>
          `${l.label}(${l.properties
            .slice(0, MAX_PROPERTIES)
            .map((p) => p.key)
            .join(", ")})`,
      )
      .join("; ")}`,
    `Relationships: ${schema.patterns.map(patternText).join(", ")}`,
  ];
  const compact = boundText(compactLines.join("\n"), COMPACT_MAX_CHARS);

  return {
    text,
    compact,
    version: descriptorVersion(text),
    stats: {
      nodes: schema.nodeCount,
      relationships: schema.relationshipCount,
      labels: schema.labels.length,
      relationshipTypes: schema.relationshipTypes.length,
      patterns: schema.patterns.length,
    },
  };
}

/** Patterns that start or end at a label: what "the label with its relationships" covers. */
export function patternsOf(schema: GraphSchema, label: string): PatternSchema[] {
  return schema.patterns.filter((p) => p.from === label || p.to === label);
}

const DESCRIPTION_MAX_CHARS = 1_000;

function labelDescription(l: LabelSchema, patterns: PatternSchema[]): string {
  const props = l.properties
    .slice(0, 15)
    .map((p) => `${p.key} (${p.type.toLowerCase().replace(/_/g, " ")})`)
    .join(", ");
  const more = l.properties.length > 15 ? `, and ${l.properties.length - 15} more` : "";
  const rels = patterns.map(patternText).join(", ");
  const text = `Label ${l.label}: ${count(l.count, "node")}; properties ${props || "none"}${more}; relationships: ${rels || "none"}.`;
  return text.length > DESCRIPTION_MAX_CHARS ? `${text.slice(0, DESCRIPTION_MAX_CHARS - 1)}…` : text;
}

/** One source object per node label, with the relationships that touch it (AU-RAG's units of content). */
export function labelSourceUnits(schema: GraphSchema): SourceUnit[] {
  return schema.labels.map((l) => {
    const patterns = patternsOf(schema, l.label);
    const relationshipTypes = [...new Set(patterns.map((p) => p.type))];
    return {
      key: l.label,
      name: l.label,
      contentType: "GRAPH",
      description: labelDescription(l, patterns),
      tags: ["neo4j", "node label", ...relationshipTypes],
      metadata: {
        label: l.label,
        nodeCount: l.count,
        properties: l.properties.map((p) => p.key),
        relationshipTypes,
        patterns: patterns.map(patternText),
        captionProperty: l.caption?.key ?? null,
      },
    };
  });
}
