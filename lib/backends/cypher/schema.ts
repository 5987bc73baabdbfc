import neo4j from "neo4j-driver";
import { chooseCaptionKey, type CaptionChoice } from "./caption";
import { readInternal, type ReadTarget } from "./read";
import { cypherTypeName } from "./values";

/**
 * What the graph holds, read once per describe/sourceUnits/entityIndex: labels and relationship types
 * with counts (from Neo4j's count store, so they cost nothing), property types and value statistics
 * from a bounded sample per label and type, and the (:A)-[:T]->(:B) patterns with bounded counts.
 * Bounded everywhere, so a graph of millions of nodes costs a few thousand sampled records.
 */

export const SCHEMA_LIMITS = {
  labels: 200,
  relationshipTypes: 200,
  /** Nodes or relationships read per label or type to learn property types and values. */
  sample: 5_000,
  /** Patterns are counted up to this many relationships; more reads as "at least". */
  patternCountCap: 100_000,
  /** Distinct values remembered per property: up to 10 are listed as "Available options", as Text2Cypher does. */
  distinctValues: 50,
  optionsMax: 10,
};

export interface PropertyStats {
  key: string;
  /** The most frequent Cypher type among sampled values (STRING, INTEGER, FLOAT, LIST, DATE, …). */
  type: string;
  /** How many sampled elements have it. */
  present: number;
  /** Distinct sampled values (scalars as text), at most SCHEMA_LIMITS.distinctValues + 1. */
  distinct: string[];
  min?: string;
  max?: string;
  minSize?: number;
  maxSize?: number;
}

export interface LabelSchema {
  label: string;
  count: number;
  sampled: number;
  properties: PropertyStats[];
  caption: CaptionChoice | null;
}

export interface RelTypeSchema {
  type: string;
  count: number;
  sampled: number;
  properties: PropertyStats[];
}

export interface PatternSchema {
  from: string;
  type: string;
  to: string;
  count: number;
  /** True when counting stopped at SCHEMA_LIMITS.patternCountCap. */
  atLeast: boolean;
}

export interface GraphSchema {
  serverVersion: string;
  database: string;
  nodeCount: number;
  relationshipCount: number;
  labels: LabelSchema[];
  relationshipTypes: RelTypeSchema[];
  patterns: PatternSchema[];
}

/** Backtick-quotes a label, type or property name for Cypher text (names come from the database, not users). */
export function quoteName(name: string): string {
  return `\`${name.replace(/`/g, "``")}\``;
}

function toNumber(v: unknown): number {
  if (neo4j.isInt(v)) return v.toNumber();
  if (typeof v === "bigint") return Number(v);
  return typeof v === "number" ? v : Number(v ?? 0);
}

class PropertyAccumulator {
  private types = new Map<string, number>();
  private distinct = new Set<string>();
  private present = 0;
  private numMin: number | undefined;
  private numMax: number | undefined;
  private textMin: string | undefined;
  private textMax: string | undefined;
  private minSize: number | undefined;
  private maxSize: number | undefined;

  constructor(readonly key: string) {}

  add(value: unknown): void {
    if (value === null || value === undefined) return;
    this.present++;
    const type = cypherTypeName(value);
    this.types.set(type, (this.types.get(type) ?? 0) + 1);
    if (type === "INTEGER" || type === "FLOAT") {
      const n = toNumber(value);
      this.numMin = this.numMin === undefined ? n : Math.min(this.numMin, n);
      this.numMax = this.numMax === undefined ? n : Math.max(this.numMax, n);
    } else if (type === "LIST" || type === "VECTOR") {
      const size = Array.isArray(value) ? value.length : 0;
      this.minSize = this.minSize === undefined ? size : Math.min(this.minSize, size);
      this.maxSize = this.maxSize === undefined ? size : Math.max(this.maxSize, size);
      return;
    } else if (type !== "STRING" && type !== "BOOLEAN" && type !== "MAP" && type !== "BYTES") {
      // Temporal values in ISO form order like their text.
      const text = String(value);
      if (this.textMin === undefined || text < this.textMin) this.textMin = text;
      if (this.textMax === undefined || text > this.textMax) this.textMax = text;
    }
    if (this.distinct.size <= SCHEMA_LIMITS.distinctValues && type !== "MAP" && type !== "BYTES") this.distinct.add(String(value));
  }

  stats(): PropertyStats {
    const type = [...this.types.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? "NULL";
    const s: PropertyStats = { key: this.key, type, present: this.present, distinct: [...this.distinct] };
    if (this.numMin !== undefined && (type === "INTEGER" || type === "FLOAT")) {
      s.min = String(this.numMin);
      s.max = String(this.numMax);
    } else if (this.textMin !== undefined) {
      s.min = this.textMin;
      s.max = this.textMax;
    }
    if (this.minSize !== undefined) {
      s.minSize = this.minSize;
      s.maxSize = this.maxSize;
    }
    return s;
  }
}

function propertyStats(samples: Record<string, unknown>[]): PropertyStats[] {
  const acc = new Map<string, PropertyAccumulator>();
  for (const props of samples) {
    for (const key of Object.keys(props)) {
      let a = acc.get(key);
      if (!a) acc.set(key, (a = new PropertyAccumulator(key)));
      a.add(props[key]);
    }
  }
  // Most common first, so a bounded descriptor keeps the properties most elements have.
  return [...acc.values()].map((a) => a.stats()).sort((x, y) => y.present - x.present || x.key.localeCompare(y.key));
}

async function single(target: ReadTarget, query: string, params: Record<string, unknown> = {}): Promise<number> {
  const { records } = await readInternal(target, query, params, { maxRows: 1 });
  return toNumber(records[0]?.get(0));
}

async function names(target: ReadTarget, query: string, limit: number): Promise<string[]> {
  const { records } = await readInternal(target, query, {}, { maxRows: limit });
  return records.map((r) => String(r.get(0))).sort();
}

/** Candidate patterns from db.schema.visualization (built from the count store, so it may over-report). */
async function candidatePatterns(target: ReadTarget): Promise<{ from: string; type: string; to: string }[]> {
  const { records } = await readInternal(
    target,
    "CALL db.schema.visualization() YIELD nodes, relationships RETURN nodes, relationships",
    {},
    { maxRows: 1 },
  );
  const rec = records[0];
  if (!rec) return [];
  const labelOf = new Map<string, string>();
  for (const n of rec.get("nodes") as { elementId: string; labels: string[]; properties: { name?: unknown } }[]) {
    labelOf.set(n.elementId, typeof n.properties.name === "string" ? n.properties.name : (n.labels[0] ?? ""));
  }
  const seen = new Set<string>();
  const out: { from: string; type: string; to: string }[] = [];
  for (const r of rec.get("relationships") as { type: string; startNodeElementId: string; endNodeElementId: string }[]) {
    const from = labelOf.get(r.startNodeElementId);
    const to = labelOf.get(r.endNodeElementId);
    const key = `${from}|${r.type}|${to}`;
    if (from && to && !seen.has(key)) {
      seen.add(key);
      out.push({ from, type: r.type, to });
    }
  }
  return out;
}

export async function readGraphSchema(target: ReadTarget): Promise<GraphSchema> {
  const total = await readInternal(target, "MATCH (n) RETURN count(n) AS nodes", {}, { maxRows: 1 });
  const nodeCount = toNumber(total.records[0]?.get("nodes"));
  const relationshipCount = await single(target, "MATCH ()-[r]->() RETURN count(r)");
  // The server's agent string is "Neo4j/5.26.18".
  const serverVersion = (total.summary?.server.agent ?? "Neo4j").replace("/", " ");
  const database = total.summary?.database.name ?? target.database ?? "neo4j";

  const labelNames = await names(target, "CALL db.labels() YIELD label RETURN label", SCHEMA_LIMITS.labels);
  const labels: LabelSchema[] = [];
  for (const label of labelNames) {
    const count = await single(target, `MATCH (n:${quoteName(label)}) RETURN count(n)`);
    if (count === 0) continue;
    const sample = await readInternal(
      target,
      `MATCH (n:${quoteName(label)}) RETURN properties(n) AS p LIMIT $limit`,
      { limit: neo4j.int(SCHEMA_LIMITS.sample) },
      { maxRows: SCHEMA_LIMITS.sample },
    );
    const props = sample.records.map((r) => r.get("p") as Record<string, unknown>);
    const properties = propertyStats(props);
    labels.push({
      label,
      count,
      sampled: props.length,
      properties,
      caption: chooseCaptionKey(
        [label],
        properties.map((p) => p.key),
      ),
    });
  }

  const typeNames = await names(
    target,
    "CALL db.relationshipTypes() YIELD relationshipType RETURN relationshipType",
    SCHEMA_LIMITS.relationshipTypes,
  );
  const relationshipTypes: RelTypeSchema[] = [];
  for (const type of typeNames) {
    const count = await single(target, `MATCH ()-[r:${quoteName(type)}]->() RETURN count(r)`);
    if (count === 0) continue;
    const sample = await readInternal(
      target,
      `MATCH ()-[r:${quoteName(type)}]->() RETURN properties(r) AS p LIMIT $limit`,
      { limit: neo4j.int(SCHEMA_LIMITS.sample) },
      { maxRows: SCHEMA_LIMITS.sample },
    );
    const props = sample.records.map((r) => r.get("p") as Record<string, unknown>);
    relationshipTypes.push({ type, count, sampled: props.length, properties: propertyStats(props) });
  }

  const patterns: PatternSchema[] = [];
  const known = new Set(labels.map((l) => l.label));
  for (const c of await candidatePatterns(target)) {
    if (!known.has(c.from) || !known.has(c.to)) continue;
    const count = await single(
      target,
      `MATCH (:${quoteName(c.from)})-[r:${quoteName(c.type)}]->(:${quoteName(c.to)}) WITH r LIMIT $cap RETURN count(r)`,
      { cap: neo4j.int(SCHEMA_LIMITS.patternCountCap + 1) },
    );
    if (count === 0) continue;
    patterns.push({ ...c, count: Math.min(count, SCHEMA_LIMITS.patternCountCap), atLeast: count > SCHEMA_LIMITS.patternCountCap });
  }
  patterns.sort((a, b) => b.count - a.count || a.from.localeCompare(b.from) || a.type.localeCompare(b.type) || a.to.localeCompare(b.to));
  return { serverVersion, database, nodeCount, relationshipCount, labels, relationshipTypes, patterns };
}
