import neo4j, { type Node, type Path, type Relationship } from "neo4j-driver";

/**
 * Driver values → plain JSON. RawResult records cross worker, database and browser boundaries, so no
 * driver class may survive: graph elements become tagged objects keyed by their element ids, 64-bit
 * integers become numbers (strings when they do not fit a double), temporal and spatial values their
 * Cypher string form.
 */

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

export interface GraphNodeValue {
  __kind: "node";
  /** Neo4j element id: stable for the life of the node, unlike the legacy integer id. */
  id: string;
  labels: string[];
  properties: Record<string, JsonValue>;
}

export interface GraphRelationshipValue {
  __kind: "relationship";
  id: string;
  type: string;
  /** Element ids of the start and end nodes (the stored direction). */
  start: string;
  end: string;
  properties: Record<string, JsonValue>;
}

export interface GraphPathValue {
  __kind: "path";
  /** Nodes in traversal order: relationships[i] joins nodes[i] and nodes[i + 1], in either stored direction. */
  nodes: GraphNodeValue[];
  relationships: GraphRelationshipValue[];
}

export type GraphValue = GraphNodeValue | GraphRelationshipValue | GraphPathValue;

function nodeValue(node: Node): GraphNodeValue {
  return { __kind: "node", id: node.elementId, labels: [...node.labels], properties: propertiesValue(node.properties) };
}

function relationshipValue(rel: Relationship): GraphRelationshipValue {
  return {
    __kind: "relationship",
    id: rel.elementId,
    type: rel.type,
    start: rel.startNodeElementId,
    end: rel.endNodeElementId,
    properties: propertiesValue(rel.properties),
  };
}

function pathValue(path: Path): GraphPathValue {
  const nodes = [nodeValue(path.start)];
  const relationships: GraphRelationshipValue[] = [];
  for (const segment of path.segments) {
    relationships.push(relationshipValue(segment.relationship));
    nodes.push(nodeValue(segment.end));
  }
  return { __kind: "path", nodes, relationships };
}

function propertiesValue(properties: Record<string, unknown>): Record<string, JsonValue> {
  const out: Record<string, JsonValue> = {};
  for (const key of Object.keys(properties)) out[key] = toJsonValue(properties[key]);
  return out;
}

function integerValue(big: bigint): number | string {
  return big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : big.toString();
}

/** Converts one value read from the driver (record field, property, list element) into plain JSON. */
export function toJsonValue(value: unknown): JsonValue {
  if (value === null || value === undefined) return null;
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      // JSON has no NaN or Infinity; keep what Cypher would print.
      return Number.isFinite(value) ? value : String(value);
    case "bigint":
      return integerValue(value);
    case "object":
      break;
    default:
      return String(value);
  }
  if (neo4j.isInt(value)) return value.inSafeRange() ? value.toNumber() : value.toString();
  if (neo4j.isNode(value)) return nodeValue(value) as unknown as JsonValue;
  if (neo4j.isRelationship(value)) return relationshipValue(value) as unknown as JsonValue;
  if (neo4j.isPath(value)) return pathValue(value) as unknown as JsonValue;
  if (
    neo4j.isDate(value) ||
    neo4j.isDateTime(value) ||
    neo4j.isLocalDateTime(value) ||
    neo4j.isLocalTime(value) ||
    neo4j.isTime(value) ||
    neo4j.isDuration(value) ||
    neo4j.isPoint(value) ||
    neo4j.isUUID(value) ||
    neo4j.isUnsupportedType(value)
  ) {
    return String(value);
  }
  if (neo4j.isVector(value)) return Array.from(value.asTypedArray() as ArrayLike<number | bigint>, (x) => toJsonValue(x));
  if (value instanceof Uint8Array) return Buffer.from(value).toString("base64");
  if (Array.isArray(value)) return value.map(toJsonValue);
  return propertiesValue(value as Record<string, unknown>);
}

/** The Cypher type name of a driver value, as Neo4j's schema procedures print it (for the descriptor). */
export function cypherTypeName(value: unknown): string {
  if (value === null || value === undefined) return "NULL";
  if (typeof value === "string") return "STRING";
  if (typeof value === "boolean") return "BOOLEAN";
  if (typeof value === "number") return "FLOAT";
  if (typeof value === "bigint" || neo4j.isInt(value)) return "INTEGER";
  if (Array.isArray(value)) return "LIST";
  if (neo4j.isDate(value)) return "DATE";
  if (neo4j.isDateTime(value)) return "DATE_TIME";
  if (neo4j.isLocalDateTime(value)) return "LOCAL_DATE_TIME";
  if (neo4j.isTime(value)) return "TIME";
  if (neo4j.isLocalTime(value)) return "LOCAL_TIME";
  if (neo4j.isDuration(value)) return "DURATION";
  if (neo4j.isPoint(value)) return "POINT";
  if (neo4j.isVector(value)) return "VECTOR";
  if (value instanceof Uint8Array) return "BYTES";
  return "MAP";
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export function isGraphNodeValue(v: unknown): v is GraphNodeValue {
  return isObject(v) && v.__kind === "node" && typeof v.id === "string" && Array.isArray(v.labels);
}

export function isGraphRelationshipValue(v: unknown): v is GraphRelationshipValue {
  return isObject(v) && v.__kind === "relationship" && typeof v.id === "string" && typeof v.type === "string";
}

export function isGraphPathValue(v: unknown): v is GraphPathValue {
  return isObject(v) && v.__kind === "path" && Array.isArray(v.nodes) && Array.isArray(v.relationships);
}

/**
 * Query parameters as the driver should send them. JSON has one number type, but Cypher needs
 * integers for LIMIT, SKIP, range() and id look-ups: a whole JavaScript number goes as an INTEGER
 * (Cypher compares 1 = 1.0 as equal, so nothing else changes).
 */
export function toDriverParams(value: unknown): unknown {
  if (typeof value === "number") return Number.isSafeInteger(value) ? neo4j.int(value) : value;
  if (Array.isArray(value)) return value.map(toDriverParams);
  if (value !== null && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toDriverParams(v)]));
  }
  return value;
}
