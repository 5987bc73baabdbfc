import { createHash } from "node:crypto";
import { evidenceId, linearizePath, linearizeRow } from "../evidence";
import {
  COMPUTED_ROWS_TABLE,
  type EvidencePiece,
  type PathData,
  type PathEdge,
  type PathNode,
  type Provenance,
  provenanceParams,
  type RawResult,
  type RowData,
  type Scalar,
} from "../types";
import { nodeCaption, scalarProperties, toScalar } from "./caption";
import {
  isGraphNodeValue,
  isGraphPathValue,
  isGraphRelationshipValue,
  type GraphNodeValue,
  type GraphPathValue,
  type GraphRelationshipValue,
  type JsonValue,
} from "./values";

/**
 * Cypher records → Quasar evidence. What a record holds decides the kind:
 * - each path or relationship value → a "path" piece ("Tom Hanks -ACTED_IN (roles: Jim Lovell)-> Apollo 13");
 *   a bare relationship takes its end nodes from the same record when it returned them;
 * - scalar values (with any node values shown by caption) → one "row" piece of the table "Query result";
 * - a record of node values only → one "row" piece per node, "Label / caption / prop: v, …": a node is
 *   an entity with attributes, which reads (and ranks under BM25) like a table row, not like a path.
 */

export const QUERY_RESULT_TABLE = COMPUTED_ROWS_TABLE;
/** Entity surface forms longer than this are sentences, not names. */
const MAX_ENTITY_CHARS = 80;

export interface VerbalizeContext {
  kbId: string;
  kbName: string;
}

function pathNode(node: GraphNodeValue): PathNode {
  return { id: node.id, labels: node.labels, caption: nodeCaption(node), properties: scalarProperties(node.properties) };
}

/** A node known only by its element id (a relationship returned without its end nodes). */
function unknownNode(id: string): PathNode {
  return { id, labels: [], caption: id, properties: {} };
}

function edge(rel: GraphRelationshipValue): PathEdge {
  return { from: rel.start, to: rel.end, type: rel.type, properties: scalarProperties(rel.properties) };
}

/** Relationship properties carry facts (a role, a rating, a quantity), so they go into the text. */
function relationshipLabel(e: PathEdge): string {
  const props = Object.entries(e.properties)
    .map(([k, v]) => [k, Array.isArray(v) ? v.map((x) => toScalar(x)).join("; ") : v] as const)
    .filter(([, v]) => v !== null && v !== "")
    .map(([k, v]) => `${k}: ${String(v)}`);
  return props.length > 0 ? `${e.type} (${props.join(", ")})` : e.type;
}

function pathText(data: PathData): string {
  const rels = data.edges.map((e, i) => ({ type: relationshipLabel(e), forward: e.from === data.nodes[i]?.id }));
  return linearizePath(data.nodes, rels);
}

/** A cell of the "Query result" table: graph values by caption, lists joined with "; ". */
function cellValue(value: JsonValue): Scalar {
  if (isGraphNodeValue(value)) return nodeCaption(value);
  if (isGraphRelationshipValue(value)) return value.type;
  if (isGraphPathValue(value)) return pathText(pathData(value));
  if (Array.isArray(value)) return value.map((v) => String(cellValue(v) ?? "")).join("; ");
  if (value !== null && typeof value === "object") {
    return Object.entries(value)
      .map(([k, v]) => `${k}: ${String(cellValue(v) ?? "")}`)
      .join("; ");
  }
  return toScalar(value);
}

/** Names mentioned by a cell: its text, node captions, and the same inside lists and paths. */
function surfaceForms(value: JsonValue | undefined): string[] {
  if (typeof value === "string") return [value];
  if (isGraphNodeValue(value)) return [nodeCaption(value)];
  if (isGraphPathValue(value)) return value.nodes.map((n) => nodeCaption(n));
  if (Array.isArray(value)) return value.flatMap(surfaceForms);
  return [];
}

function pathData(path: GraphPathValue): PathData {
  return { nodes: path.nodes.map(pathNode), edges: path.relationships.map(edge) };
}

function uniqueEntities(values: string[]): string[] {
  return [...new Set(values.map((v) => v.trim()).filter((v) => v.length > 0 && v.length <= MAX_ENTITY_CHARS))];
}

function queryDigest(result: RawResult): string {
  return createHash("sha256")
    .update(JSON.stringify([result.query.text, result.query.params ?? {}]))
    .digest("hex")
    .slice(0, 12);
}

export function verbalizeCypher(result: RawResult, kb: VerbalizeContext, options: { sourceObject?: string | null } = {}): EvidencePiece[] {
  const pieces = new Map<string, EvidencePiece>();
  const digest = queryDigest(result);

  const provenance = (sourceObject: string | null, location: Record<string, Scalar>): Provenance => ({
    kb: kb.kbId,
    kbName: kb.kbName,
    sourceObject: options.sourceObject !== undefined ? options.sourceObject : sourceObject,
    query: result.query.text,
    ...provenanceParams(result.query),
    language: "cypher",
    location,
  });
  const add = (piece: EvidencePiece) => {
    if (!pieces.has(piece.id)) pieces.set(piece.id, piece);
  };
  /** Located by the element ids along the path: node, relationship, node, … */
  const addPath = (data: PathData, relationshipIds: string[]) => {
    const ids: string[] = [data.nodes[0]?.id ?? ""];
    relationshipIds.forEach((relId, i) => ids.push(relId, data.nodes[i + 1]?.id ?? ""));
    const location = { path: ids.join(",") };
    add({
      id: evidenceId(kb.kbId, "path", location),
      kind: "path",
      text: pathText(data),
      provenance: provenance(data.nodes.find((n) => n.labels.length > 0)?.labels[0] ?? null, location),
      entities: uniqueEntities(data.nodes.map((n) => n.caption)),
      data,
    });
  };
  const addNode = (node: GraphNodeValue) => {
    const caption = nodeCaption(node);
    const properties = scalarProperties(node.properties);
    const columns = Object.keys(properties);
    const values = columns.map((c) => {
      const v = properties[c];
      return Array.isArray(v) ? v.map((x) => String(x ?? "")).join("; ") : (v ?? null);
    });
    const table = node.labels.join(":") || "Node";
    const data: RowData = { table, section: caption, columns, values, key: { elementId: node.id } };
    const location = { node: node.id };
    add({
      id: evidenceId(kb.kbId, "row", location),
      kind: "row",
      text: linearizeRow(table, caption, columns, values),
      provenance: provenance(node.labels[0] ?? null, location),
      entities: uniqueEntities([caption]),
      data,
    });
  };

  result.records.forEach((record, rowIndex) => {
    const nodesById = new Map<string, GraphNodeValue>();
    for (const c of result.columns) {
      const v = record[c];
      if (isGraphNodeValue(v)) nodesById.set(v.id, v);
    }
    const covered = new Set<string>();
    const rowColumns: string[] = [];
    const nodeColumns: string[] = [];
    for (const c of result.columns) {
      const v = record[c] as JsonValue | undefined;
      if (isGraphPathValue(v)) {
        v.nodes.forEach((n) => covered.add(n.id));
        addPath(
          pathData(v),
          v.relationships.map((r) => r.id),
        );
      } else if (isGraphRelationshipValue(v)) {
        const from = nodesById.get(v.start);
        const to = nodesById.get(v.end);
        covered.add(v.start).add(v.end);
        addPath({ nodes: [from ? pathNode(from) : unknownNode(v.start), to ? pathNode(to) : unknownNode(v.end)], edges: [edge(v)] }, [
          v.id,
        ]);
      } else if (isGraphNodeValue(v)) {
        nodeColumns.push(c);
      } else {
        rowColumns.push(c);
      }
    }
    const looseNodes = nodeColumns.filter((c) => !covered.has((record[c] as unknown as GraphNodeValue).id));
    if (rowColumns.length > 0) {
      const columns = [...rowColumns, ...looseNodes];
      const values = columns.map((c) => cellValue((record[c] ?? null) as JsonValue));
      const location = { query: digest, row: rowIndex };
      const data: RowData = { table: QUERY_RESULT_TABLE, columns, values, rowIndex };
      add({
        id: evidenceId(kb.kbId, "row", location),
        kind: "row",
        text: linearizeRow(QUERY_RESULT_TABLE, undefined, columns, values),
        provenance: provenance(null, location),
        entities: uniqueEntities(columns.flatMap((c) => surfaceForms(record[c] as JsonValue | undefined))),
        data,
      });
    } else {
      for (const c of looseNodes) addNode(record[c] as unknown as GraphNodeValue);
    }
  });
  return [...pieces.values()];
}
