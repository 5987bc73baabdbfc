import type { NativeQuery } from "../types";

/**
 * HybGRAG's ego-graph: the paths of up to `hops` relationships around linked entities, optionally only
 * along the relationship types the question named. Returned as a parameterized native query so it runs
 * through execute() under the same safety rules as any other, and verbalizes into path evidence.
 */
export interface NeighborhoodRequest {
  /** Element ids of linked entities (EntityIndexEntry.ref for kind "node"). */
  elementIds?: string[];
  /** Or surface forms, matched exactly against the name properties below (a label scan: small graphs). */
  names?: string[];
  /** Property keys that hold names; default name and title. */
  nameKeys?: string[];
  hops: 1 | 2;
  /** Only along these relationship types (every step of the path). */
  relationshipTypes?: string[];
  /** Paths returned at most; default 200. */
  limit?: number;
}

export function neighborhoodQuery(req: NeighborhoodRequest): NativeQuery {
  if (req.hops !== 1 && req.hops !== 2) throw new RangeError("Neighbourhoods are 1 or 2 hops.");
  const ids = req.elementIds ?? [];
  const names = req.names ?? [];
  if (ids.length === 0 && names.length === 0) throw new RangeError("Give element ids or names to start from.");
  const params: Record<string, unknown> = { limit: req.limit ?? 200 };
  const starts: string[] = [];
  if (ids.length > 0) {
    starts.push("elementId(s) IN $ids");
    params.ids = ids;
  }
  if (names.length > 0) {
    starts.push("any(k IN $nameKeys WHERE s[k] IN $names)");
    params.names = names;
    params.nameKeys = req.nameKeys ?? ["name", "title"];
  }
  const lines = [`MATCH (s) WHERE ${starts.join(" OR ")}`, `MATCH p = (s)-[*1..${req.hops}]-()`];
  if (req.relationshipTypes && req.relationshipTypes.length > 0) {
    lines.push("WHERE all(r IN relationships(p) WHERE type(r) IN $types)");
    params.types = req.relationshipTypes;
  }
  lines.push("RETURN p LIMIT $limit");
  return { language: "cypher", text: lines.join("\n"), params };
}
