import neo4j from "neo4j-driver";
import { QueryExecutionError } from "../errors";
import type { PathData, PathEdge, PathNode, Preview } from "../types";
import { nodeCaption, scalarProperties } from "./caption";
import { readInternal, type ReadTarget } from "./read";
import { quoteName } from "./schema";
import { isGraphNodeValue, isGraphRelationshipValue, toJsonValue, type GraphNodeValue } from "./values";

/** Relationships shown per previewed node: enough to see what a node connects to, bounded for hubs. */
const RELATIONSHIPS_PER_NODE = 5;

/**
 * A graph preview of one source object (a node label): a few of its nodes and some of their
 * relationships with the nodes at the other end.
 */
export async function previewLabel(target: ReadTarget, label: string, limit: number): Promise<Preview> {
  const known = await readInternal(target, "CALL db.labels() YIELD label WHERE label = $label RETURN label", { label }, { maxRows: 1 });
  if (known.records.length === 0) {
    throw new QueryExecutionError(`There is no node label "${label}" in this graph any more. Refresh the source objects.`, label);
  }
  const total = await readInternal(target, `MATCH (n:${quoteName(label)}) RETURN count(n) AS c`, {}, { maxRows: 1 });
  const count = Number(toJsonValue(total.records[0]?.get("c")) ?? 0);
  // CALL { WITH n … } rather than CALL (n) { … }: the older form runs on every Neo4j 5 release.
  const query = `MATCH (n:${quoteName(label)}) WITH n LIMIT $limit
CALL { WITH n OPTIONAL MATCH (n)-[r]-(m) RETURN r, m LIMIT $perNode }
RETURN n, r, m`;
  const { records } = await readInternal(
    target,
    query,
    { limit: neo4j.int(limit), perNode: neo4j.int(RELATIONSHIPS_PER_NODE) },
    { maxRows: limit * RELATIONSHIPS_PER_NODE },
  );
  const nodes = new Map<string, PathNode>();
  const edges = new Map<string, PathEdge>();
  const addNode = (n: GraphNodeValue) => {
    if (!nodes.has(n.id))
      nodes.set(n.id, { id: n.id, labels: n.labels, caption: nodeCaption(n), properties: scalarProperties(n.properties, 200) });
  };
  for (const rec of records) {
    const n = toJsonValue(rec.get("n"));
    const r = toJsonValue(rec.get("r"));
    const m = toJsonValue(rec.get("m"));
    if (isGraphNodeValue(n)) addNode(n);
    if (isGraphNodeValue(m)) addNode(m);
    if (isGraphRelationshipValue(r) && !edges.has(r.id)) {
      edges.set(r.id, { from: r.start, to: r.end, type: r.type, properties: scalarProperties(r.properties, 200) });
    }
  }
  const data: PathData = { nodes: [...nodes.values()], edges: [...edges.values()] };
  return { kind: "graph", title: `${label} (${count} ${count === 1 ? "node" : "nodes"})`, data, truncated: count > limit };
}
