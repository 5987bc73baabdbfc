import { identifierTerms } from "../lexicon";
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

const KEY_WORDS = new Set(["id", "code", "no", "num", "number", "key"]);

const isNumber = (v: unknown) => typeof v === "number" || (typeof v === "string" && v.trim() !== "" && Number.isFinite(Number(v)));

/**
 * Foreign keys a schema forgot to declare: a column named after another table ("flights.Airline" →
 * airlines, "order.customer_id" → customers) whose sampled values have the kind of that table's
 * single-column key (numbers with numbers, text with text).
 */
export function inferredForeignKeys(structure: SqlStructure): { table: string; column: string; refTable: string; refColumn: string }[] {
  const out: { table: string; column: string; refTable: string; refColumn: string }[] = [];
  const named = structure.tables.map((t) => ({ t, terms: identifierTerms(t.name).join(" ") }));
  for (const t of structure.tables) {
    const declared = new Set(t.foreignKeys.flatMap((fk) => fk.columns));
    for (const c of t.columns) {
      if (declared.has(c.name) || (t.primaryKey.length === 1 && t.primaryKey[0] === c.name)) continue;
      const words = identifierTerms(c.name)
        .filter((w) => !KEY_WORDS.has(w))
        .join(" ");
      if (!words) continue;
      const target = named.find((n) => n.t.name !== t.name && n.terms === words && n.t.primaryKey.length === 1);
      if (!target) continue;
      const key = target.t.columns.find((k) => k.name === target.t.primaryKey[0]);
      const mine = c.examples.filter((v) => v !== null);
      const theirs = key?.examples.filter((v) => v !== null) ?? [];
      if (!key || mine.length === 0 || theirs.length === 0 || mine.every(isNumber) !== theirs.every(isNumber)) continue;
      out.push({ table: t.name, column: c.name, refTable: target.t.name, refColumn: key.name });
    }
  }
  return out;
}

/**
 * Among several keys from one table into another (Friend.student_id and Friend.friend_id into
 * Highschooler), the one not named after its own table comes first: in a Friend row, friend_id is the
 * other end, student_id the row's owner.
 */
function ownerFirst(table: string, columns: string[][]): number[] {
  const own = new Set(identifierTerms(table));
  const named = (cols: string[]) => cols.some((c) => identifierTerms(c).some((w) => own.has(w)));
  return columns.map((_, i) => i).sort((a, b) => Number(named(columns[a])) - Number(named(columns[b])));
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
    // A key into another schema, or one whose referenced columns are unknown, cannot be joined on.
    const fks = t.foreignKeys.filter(
      (fk) => known.has(fk.refTable) && fk.refColumns.length === fk.columns.length && fk.refTable !== t.name,
    );
    for (const i of ownerFirst(
      t.name,
      fks.map((fk) => fk.columns),
    )) {
      const fk = fks[i];
      add(t.name, { table: fk.refTable, fromColumns: fk.columns, toColumns: fk.refColumns });
      add(fk.refTable, { table: t.name, fromColumns: fk.refColumns, toColumns: fk.columns });
    }
  }
  for (const fk of inferredForeignKeys(structure)) {
    add(fk.table, { table: fk.refTable, fromColumns: [fk.column], toColumns: [fk.refColumn] });
    add(fk.refTable, { table: fk.table, fromColumns: [fk.refColumn], toColumns: [fk.column] });
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
