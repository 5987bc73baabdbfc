import type { ResultTable } from "../types";
import { canonicalNumber } from "./normalize";

/**
 * Execution match (Spider's execution accuracy, applied to SQL, SPARQL and Cypher alike): the result of
 * the pipeline's query equals the result of the gold query as a bag of rows, in order only when the gold
 * query orders, and with columns in any order (the test-suite rule: some permutation of the predicted
 * columns makes the tables equal). Cells are compared by canonical value so that engines agree: numbers
 * at 10 significant digits (SQLite's 76.66666666666667 = SPARQL's decimal 76.666666666666666667), numeric
 * text as numbers, RDF literals by their lexical value, IRIs and graph elements by identity.
 */

export function cellKey(value: unknown): string {
  if (value === null || value === undefined) return "∅";
  if (typeof value === "number") return Number.isFinite(value) ? `n:${canonicalNumber(value)}` : `n:${value}`;
  if (typeof value === "bigint") return `n:${canonicalNumber(Number(value))}`;
  if (typeof value === "boolean") return `b:${value}`;
  if (typeof value === "string") {
    const t = value.trim();
    if (/^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(t)) return `n:${canonicalNumber(Number(t))}`;
    return `s:${t}`;
  }
  if (Array.isArray(value)) return `[${value.map(cellKey).join(",")}]`;
  if (typeof value === "object") {
    const o = value as Record<string, unknown>;
    // RDF term (sparql backend records).
    if (typeof o.termType === "string") {
      if (o.termType === "Literal") {
        const dt = typeof o.datatype === "string" ? o.datatype : "";
        if (/#(boolean)$/.test(dt)) return `b:${o.value}`;
        return cellKey(String(o.value));
      }
      return `iri:${String(o.value)}`;
    }
    // Neo4j graph values (cypher backend records).
    if (o.__kind === "node" || o.__kind === "relationship") return `${o.__kind}:${String(o.id)}`;
    if (o.__kind === "path") {
      const nodes = (o.nodes as { id: string }[]) ?? [];
      return `path:${nodes.map((n) => n.id).join(">")}`;
    }
    // Maps (Cypher map projections): key order does not matter.
    return `{${Object.keys(o)
      .sort()
      .map((k) => `${k}=${cellKey(o[k])}`)
      .join(",")}}`;
  }
  return `s:${String(value)}`;
}

function multiset(keys: string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const k of keys) m.set(k, (m.get(k) ?? 0) + 1);
  return m;
}

function sameMultiset(a: string[], b: string[]): boolean {
  if (a.length !== b.length) return false;
  const m = multiset(a);
  for (const k of b) {
    const c = m.get(k);
    if (!c) return false;
    m.set(k, c - 1);
  }
  return true;
}

/** Beyond this many columns the permutation search is cut off (no Spider/Text2Cypher answer comes close). */
const MAX_COLUMNS = 12;
/** Column permutations tried at most (only tables with many identical columns get near it). */
const MAX_PERMUTATIONS = 5_000;

export interface MatchOptions {
  /**
   * Accept extra predicted columns: the gold columns must be found among the predicted ones (the rows
   * projected on them equal the gold rows). A diagnostic beside the strict match: it tells "right rows,
   * extra context columns" apart from wrong rows.
   */
  extraColumns?: boolean;
}

export function executionMatch(gold: ResultTable, predicted: ResultTable, ordered: boolean, opts: MatchOptions = {}): boolean {
  if (gold.rows.length !== predicted.rows.length) return false;
  if (gold.rows.length === 0) return true;
  const width = gold.rows[0].length;
  const predWidth = predicted.rows[0].length;
  if (predWidth < width || (!opts.extraColumns && predWidth !== width) || predWidth > MAX_COLUMNS) return false;
  const g = gold.rows.map((r) => r.map(cellKey));
  const p = predicted.rows.map((r) => r.map(cellKey));
  const goldCol = (j: number) => g.map((r) => r[j]);
  const predCol = (j: number) => p.map((r) => r[j]);
  // Candidate predicted columns for each gold column: same values (as a sequence when ordered).
  const candidates = Array.from({ length: width }, (_, j) => {
    const gc = goldCol(j);
    return Array.from({ length: predWidth }, (_, i) => i).filter((i) => {
      const pc = predCol(i);
      return ordered ? pc.every((v, k) => v === gc[k]) : sameMultiset(gc, pc);
    });
  });
  const goldRows = g.map((r) => JSON.stringify(r));
  const assignment: number[] = [];
  const used = new Set<number>();
  let leaves = 0;
  const check = () => {
    leaves++;
    const rows = p.map((r) => JSON.stringify(assignment.map((i) => r[i])));
    return ordered ? rows.every((r, k) => r === goldRows[k]) : sameMultiset(goldRows, rows);
  };
  const search = (j: number): boolean => {
    if (j === width) return check();
    for (const i of candidates[j]) {
      if (leaves >= MAX_PERMUTATIONS) return false;
      if (used.has(i)) continue;
      used.add(i);
      assignment.push(i);
      if (search(j + 1)) return true;
      assignment.pop();
      used.delete(i);
    }
    return false;
  };
  return search(0);
}

/** Does the gold query fix the order of its result (a top-level ORDER BY)? Spider's rule for ordered comparison. */
export function queryOrders(query: string): boolean {
  return /\border\s+by\b/i.test(query.replace(/'(?:[^']|'')*'|"(?:[^"]|"")*"/g, "''"));
}
