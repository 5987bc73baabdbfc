import type { QueryFit, StatedCondition } from "../../../contracts";
import { period } from "./render-sql";
import type { SchemaLinking, SqlPicks } from "./types";

/**
 * The conditions a plan states, as literals compared with columns (the form the answer stage words an
 * empty result in: "No orders are recorded with ship city Berlin and freight above 100."). Graph answer
 * queries carry these because their text (Cypher with parameters, SPARQL over IRIs) is not read back the
 * way an SQL WHERE clause is.
 *
 * Only a plain conjunction is stated: anything whose emptiness says more than "no row meets these"
 * (an "or", a negation through another table, an exclusion, a set operation, a top-N restriction, a
 * condition on groups, a comparison with an average) makes the plan state nothing, and the caller says
 * less. So does a lookup the formulation only guessed the column of, and a period on a date the question
 * does not name.
 */
export function statedConditions(
  picks: SqlPicks,
  tables: string[],
  linking: Pick<SchemaLinking, "tableCoverage" | "columnScore">,
): QueryFit["stated"] | undefined {
  if (
    picks.orGroups.size > 0 ||
    picks.negations.length > 0 ||
    picks.antiJoins.length > 0 ||
    picks.setOp ||
    picks.top ||
    picks.having.length > 0 ||
    picks.absent.length > 0
  )
    return undefined;
  const inQuery = new Set(tables);
  const conditions: StatedCondition[] = [];
  const on = (c: { table: string; name: string }) => ({ table: c.table === picks.root ? null : c.table, column: c.name });
  for (const v of picks.values) {
    if (!inQuery.has(v.column.table)) continue;
    const all = [v.value, ...(v.alternatives ?? [])];
    if (picks.containsMatch) {
      if (all.length > 1) return undefined;
      conditions.push({ ...on(v.column), op: v.negated ? "NOT LIKE" : "LIKE", values: [`%${v.value}%`] });
    } else if (all.length > 1) conditions.push({ ...on(v.column), op: v.negated ? "NOT IN" : "IN", values: all });
    else conditions.push({ ...on(v.column), op: v.negated ? "<>" : "=", values: all });
  }
  for (const l of picks.lookups) {
    if (!inQuery.has(l.column.table)) continue;
    if (l.guessed) return undefined;
    const pattern = l.anchor === "prefix" ? `${l.text}%` : l.anchor === "suffix" ? `%${l.text}` : `%${l.text}%`;
    conditions.push({ ...on(l.column), op: "LIKE", values: [pattern] });
  }
  for (const t of picks.time) {
    if (!inQuery.has(t.column.table)) continue;
    // A period put on another table's date that the question names neither by table nor by column is where the
    // formulation placed it for want of a better date: no row there says nothing about the question's period.
    if (t.column.table !== picks.root && linking.tableCoverage(t.column.table) === 0 && linking.columnScore(t.column) === 0)
      return undefined;
    // One closed period ("in 2023", "in March 2024", "between 2019 and 2021"); an open range or several periods are not stated.
    const comparator = t.cues[0]?.comparator;
    if (t.cues.length !== 1 || (comparator && comparator !== "in" && comparator !== "between")) return undefined;
    const { start, end } = period(t.cues[0]);
    if (!start || !end) return undefined;
    if (t.column.yearLike) {
      const [from, to] = [Number(start.slice(0, 4)), Number(end.slice(0, 4))];
      if (end.slice(4, 10) !== "-01-01" || to !== from + 1) return undefined;
      conditions.push({ ...on(t.column), op: "=", values: [String(from)] });
    } else conditions.push({ ...on(t.column), op: ">=", values: [start] }, { ...on(t.column), op: "<", values: [end] });
  }
  for (const n of picks.numeric) {
    if (!inQuery.has(n.column.table)) continue;
    if (n.withAverage || n.negated) return undefined;
    const values = n.values.map(String);
    if (n.op === "between" && values.length === 2)
      conditions.push({ ...on(n.column), op: ">=", values: [values[0]] }, { ...on(n.column), op: "<=", values: [values[1]] });
    else if (n.op === "=" && values.length > 1) conditions.push({ ...on(n.column), op: "IN", values });
    else if (n.op !== "between" && values.length === 1) conditions.push({ ...on(n.column), op: n.op, values });
    else return undefined;
  }
  for (const f of picks.flags) {
    if (!inQuery.has(f.column.table)) continue;
    conditions.push({ ...on(f.column), op: "=", values: [String(f.value)] });
  }
  return conditions.length > 0 ? { subject: picks.root, conditions } : undefined;
}

/** A graph answer query's fit with the conditions its plan states (the answer stage words "none" with them). */
export function withStatedConditions(
  fit: QueryFit,
  picks: SqlPicks,
  tables: string[],
  linking: Pick<SchemaLinking, "tableCoverage" | "columnScore">,
): QueryFit {
  const stated = statedConditions(picks, tables, linking);
  return stated ? { ...fit, stated } : fit;
}
