import type { SqlStructure } from "./sql-structure";

/**
 * Joins along foreign keys: the tables a query needs are connected by shortest FK paths (breadth-first
 * over the FK graph, both directions), grown from the answer table one required table at a time, which
 * is the usual greedy approximation of the smallest connecting tree.
 */

export interface JoinEdge {
  /** Table already in the query. */
  from: string;
  /** Table the edge brings in. */
  to: string;
  /** Column pairs: from.columns[i] = to.columns[i]. */
  fromColumns: string[];
  toColumns: string[];
}

interface Adjacent {
  table: string;
  fromColumns: string[];
  toColumns: string[];
}

function adjacency(structure: SqlStructure): Map<string, Adjacent[]> {
  const adj = new Map<string, Adjacent[]>();
  const add = (a: string, b: Adjacent) => {
    const list = adj.get(a) ?? [];
    list.push(b);
    adj.set(a, list);
  };
  const known = new Set(structure.tables.map((t) => t.name));
  for (const t of structure.tables) {
    for (const fk of t.foreignKeys) {
      // A key into another schema, or one whose referenced columns are unknown, cannot be joined on.
      if (!known.has(fk.refTable) || fk.refColumns.length !== fk.columns.length || fk.refTable === t.name) continue;
      add(t.name, { table: fk.refTable, fromColumns: fk.columns, toColumns: fk.refColumns });
      add(fk.refTable, { table: t.name, fromColumns: fk.refColumns, toColumns: fk.columns });
    }
  }
  return adj;
}

/** Shortest FK path from any table of `from` to `target`, as edges in join order; null when unreachable. */
function shortestPath(adj: Map<string, Adjacent[]>, from: Set<string>, target: string): JoinEdge[] | null {
  if (from.has(target)) return [];
  const previous = new Map<string, JoinEdge>();
  const queue = [...from];
  const seen = new Set(from);
  while (queue.length > 0) {
    const table = queue.shift()!;
    for (const next of adj.get(table) ?? []) {
      if (seen.has(next.table)) continue;
      seen.add(next.table);
      previous.set(next.table, { from: table, to: next.table, fromColumns: next.fromColumns, toColumns: next.toColumns });
      if (next.table === target) {
        const path: JoinEdge[] = [];
        for (let at = target; !from.has(at); at = previous.get(at)!.from) path.unshift(previous.get(at)!);
        return path;
      }
      queue.push(next.table);
    }
  }
  return null;
}

export interface JoinPlan {
  tables: string[];
  edges: JoinEdge[];
  /** Required tables no FK path reaches: left out of the query. */
  unreachable: string[];
}

/** Connects `required` tables to `root`, in the given order (most important first). */
export function planJoins(structure: SqlStructure, root: string, required: string[]): JoinPlan {
  const adj = adjacency(structure);
  const inQuery = new Set([root]);
  const edges: JoinEdge[] = [];
  const unreachable: string[] = [];
  for (const table of required) {
    if (inQuery.has(table)) continue;
    const path = shortestPath(adj, inQuery, table);
    if (!path) {
      unreachable.push(table);
      continue;
    }
    for (const e of path) {
      edges.push(e);
      inQuery.add(e.to);
    }
  }
  return { tables: [...inQuery], edges, unreachable };
}

/** Tables one FK step from `table`. */
export function neighbours(structure: SqlStructure, table: string): string[] {
  return [...new Set((adjacency(structure).get(table) ?? []).map((a) => a.table))];
}
