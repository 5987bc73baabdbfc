import { quoteName } from "../../../../backends/cypher/schema";
import type { TimeCue } from "../../../contracts";
import { VIEW_ID } from "../plan/relational-view";
import { planJoins } from "../sql/join-path";
import { aggregateAlias, period, selectAggregates, tablesOf } from "../sql/render-sql";
import type { SqlAggregate, SqlPicks } from "../sql/types";
import type { ColumnFacts } from "../sql/sql-structure";
import type { GraphView } from "./graph-view";

/**
 * The question plan (formulate/sql) written as Cypher over the graph view (graph-view.ts): label
 * tables are node variables, relationship tables the pattern (a)-[r:TYPE]->(b) between them, columns
 * properties. Values travel as parameters. "or" is OR, a negated condition through a relationship is
 * NOT EXISTS { … }, grouping is a WITH of the keys and aggregates (then HAVING is its WHERE), INTERSECT
 * and EXCEPT are EXISTS / NOT EXISTS of the second reading, UNION is UNION.
 */

export interface RenderedCypher {
  text: string;
  params: Record<string, unknown>;
  tables: string[];
  grouped: { keys: number[]; measures: number[] } | null;
}

interface Scope {
  view: GraphView;
  prefix: string;
  params: Record<string, unknown>;
  counter: { n: number };
  vars: Map<string, string>;
}

function safe(text: string): string {
  const s = text.replace(/[^A-Za-z0-9_]+/g, "_").replace(/^_+|_+$/g, "");
  return /^[A-Za-z_]/.test(s) ? s : `v_${s}`;
}

function varOf(scope: Scope, table: string): string {
  let v = scope.vars.get(table);
  if (!v) {
    v = `${scope.prefix}${safe(table).toLowerCase()}`;
    scope.vars.set(table, v);
  }
  return v;
}

function param(scope: Scope, value: unknown): string {
  const name = `${scope.prefix}p${scope.counter.n++}`;
  scope.params[name] = value;
  return `$${name}`;
}

function col(scope: Scope, c: ColumnFacts): string {
  if (c.name === VIEW_ID) return varOf(scope, c.table);
  return `${varOf(scope, c.table)}.${quoteName(c.name)}`;
}

/** MATCH patterns of the joined tables: relationship tables become (a)-[r:TYPE]->(b). */
function matchPatterns(scope: Scope, tables: string[]): string[] {
  const patterns: string[] = [];
  const covered = new Set<string>();
  for (const t of tables) {
    const rel = scope.view.relationships.get(t);
    if (!rel) continue;
    patterns.push(
      `(${varOf(scope, rel.from)}:${quoteName(rel.from)})-[${varOf(scope, t)}:${quoteName(rel.type)}]->(${varOf(scope, rel.to)}:${quoteName(rel.to)})`,
    );
    covered.add(rel.from).add(rel.to).add(t);
  }
  for (const t of tables) if (!covered.has(t)) patterns.push(`(${varOf(scope, t)}:${quoteName(t)})`);
  return patterns;
}

function aggregateExpr(scope: Scope, a: SqlAggregate, multi: boolean): string {
  if (a.column) return a.fn === "count" ? `count(DISTINCT ${col(scope, a.column)})` : `${a.fn}(${col(scope, a.column)})`;
  return multi && a.countOf ? `count(DISTINCT ${varOf(scope, a.countOf)})` : "count(*)";
}

function timeCondition(scope: Scope, c: ColumnFacts, cue: TimeCue): string | null {
  const { start, end } = period(cue);
  const asYear = c.yearLike || c.numeric;
  const year = (iso: string | null) => (iso ? Number(iso.slice(0, 4)) : null);
  const lo = asYear ? year(start) : start;
  const endYear = year(end);
  const hi = asYear ? (endYear === null ? null : end!.slice(4, 10) === "-01-01" ? endYear : endYear + 1) : end;
  const x = col(scope, c);
  const cmp = (op: string, v: unknown) => `${x} ${op} ${param(scope, v)}`;
  if ((start === null) !== (end === null))
    return [lo !== null ? cmp(">=", lo) : null, hi !== null ? cmp("<", hi) : null].filter(Boolean).join(" AND ") || null;
  switch (cue.comparator) {
    case "before":
      return lo !== null ? cmp("<", lo) : null;
    case "after":
      return hi !== null ? cmp(">=", hi) : null;
    case "since":
      return lo !== null ? cmp(">=", lo) : null;
    case "until":
      return hi !== null ? cmp("<", hi) : null;
    default:
      return [lo !== null ? cmp(">=", lo) : null, hi !== null ? cmp("<", hi) : null].filter(Boolean).join(" AND ") || null;
  }
}

/** A value as the property stores it: numbers stay numbers ("Order 10248" is orderID 10248). */
function typed(c: ColumnFacts, value: string): unknown {
  return c.numeric && /^-?\d+(?:\.\d+)?$/.test(value.trim()) ? Number(value) : value;
}

function conditions(scope: Scope, p: SqlPicks, inQuery: Set<string>, multi: boolean): { where: string[]; calls: string[] } {
  const usable = (c: ColumnFacts) => inQuery.has(c.table);
  const where: string[] = [];
  const calls: string[] = [];
  const grouped = new Map<number, string[]>();
  const add = (filter: object, condition: string) => {
    const g = p.orGroups.get(filter);
    if (g === undefined) where.push(condition);
    else grouped.set(g, [...(grouped.get(g) ?? []), condition]);
  };
  for (const v of p.values.filter((x) => usable(x.column))) {
    const all = [v.value, ...(v.alternatives ?? [])].map((x) => typed(v.column, x));
    const x = col(scope, v.column);
    if (p.containsMatch)
      add(
        v,
        `${v.negated ? "NOT " : ""}any(s IN ${param(
          scope,
          all.map((a) => String(a).toLowerCase()),
        )} WHERE toLower(toString(${x})) CONTAINS s)`,
      );
    else if (all.length > 1) add(v, `${v.negated ? "NOT " : ""}${x} IN ${param(scope, all)}`);
    else add(v, `${x} ${v.negated ? "<>" : "="} ${param(scope, all[0])}`);
  }
  const textTest = { contains: "CONTAINS", prefix: "STARTS WITH", suffix: "ENDS WITH" };
  for (const l of p.lookups.filter((x) => usable(x.column))) {
    const test = textTest[l.anchor ?? "contains"];
    // Quoted text is matched as written, as Cypher's own string tests do, until an empty result relaxes the
    // matching; a name looked up is matched in any case.
    add(
      l,
      l.quoted && !p.containsMatch
        ? `toString(${col(scope, l.column)}) ${test} ${param(scope, l.text)}`
        : `toLower(toString(${col(scope, l.column)})) ${test} ${param(scope, l.text.toLowerCase())}`,
    );
  }
  for (const t of p.time.filter((x) => usable(x.column))) {
    const parts = t.cues.map((cue) => timeCondition(scope, t.column, cue)).filter((c): c is string => c !== null);
    if (parts.length === 1) add(t, parts[0]);
    else if (parts.length > 1) add(t, `(${parts.map((c) => `(${c})`).join(" OR ")})`);
  }
  for (const n of p.numeric.filter((x) => usable(x.column))) {
    const x = col(scope, n.column);
    let condition: string | null = null;
    if (n.withAverage) {
      const avg = `${scope.prefix}avg${scope.counter.n++}`;
      const a = `${scope.prefix}a${scope.counter.n++}`;
      calls.push(`CALL { MATCH (${a}:${quoteName(n.column.table)}) RETURN avg(${a}.${quoteName(n.column.name)}) AS ${avg} }`);
      condition = `${x} ${n.op} ${avg}`;
    } else if (n.op === "between" && n.values.length === 2)
      condition = `${x} >= ${param(scope, n.values[0])} AND ${x} <= ${param(scope, n.values[1])}`;
    else if (n.op === "=" && n.values.length > 1) condition = `${x} IN ${param(scope, n.values)}`;
    else if (n.op !== "between" && n.values.length === 1) condition = `${x} ${n.op === "=" ? "=" : n.op} ${param(scope, n.values[0])}`;
    if (condition) add(n, n.negated ? `NOT (${condition})` : condition);
  }
  for (const [, parts] of grouped) where.push(parts.length > 1 ? `(${parts.join(" OR ")})` : parts[0]);
  for (const f of p.flags.filter((x) => usable(x.column))) where.push(`${col(scope, f.column)} = ${f.value}`);
  for (const a of p.absent.filter((x) => usable(x.column))) where.push(`${col(scope, a.column)} IS NULL`);
  for (const neg of p.negations) {
    const rel = scope.view.relationships.get(neg.table);
    if (!rel) continue;
    const root = varOf(scope, p.root);
    where.push(
      rel.from === p.root
        ? `NOT EXISTS { MATCH (${root})-[:${quoteName(rel.type)}]->(:${quoteName(rel.to)}) }`
        : `NOT EXISTS { MATCH (:${quoteName(rel.from)})-[:${quoteName(rel.type)}]->(${root}) }`,
    );
  }
  for (const anti of p.antiJoins) where.push(`NOT EXISTS { ${subquery(scope, p.root, anti.picks)} }`);
  if (p.top && usable(p.top.column)) {
    const t = p.top;
    const top = `${scope.prefix}top${scope.counter.n++}`;
    const x = `${scope.prefix}x${scope.counter.n++}`;
    calls.push(
      `CALL { MATCH (${x}:${quoteName(t.column.table)}) WHERE ${x}.${quoteName(t.column.name)} IS NOT NULL RETURN ${x} AS ${top} ORDER BY ${x}.${quoteName(t.column.name)} ${t.descending ? "DESC" : "ASC"} LIMIT ${t.limit} }`,
    );
    where.push(`${varOf(scope, t.column.table)} = ${top}`);
  }
  void multi;
  return { where, calls };
}

/** MATCH … WHERE … of another reading that shares the root variable (EXISTS / NOT EXISTS bodies). */
function subquery(scope: Scope, root: string, p: SqlPicks): string {
  const inner: Scope = { ...scope, prefix: `${scope.prefix}s${scope.counter.n++}_`, vars: new Map([[root, varOf(scope, root)]]) };
  const plan = planJoins(scope.view.structure, p.root, tablesOf({ ...p, select: null, projection: [] }));
  const { where } = conditions(inner, p, new Set(plan.tables), plan.tables.length > 1);
  return `MATCH ${matchPatterns(inner, plan.tables).join(", ")}${where.length > 0 ? ` WHERE ${where.join(" AND ")}` : ""}`;
}

function readOf(
  scope: Scope,
  p: SqlPicks,
): { lines: string[]; returns: string[]; names: string[]; tables: string[]; grouped: RenderedCypher["grouped"]; tail: string[] } {
  const plan = planJoins(scope.view.structure, p.root, tablesOf(p));
  const inQuery = new Set(plan.tables);
  const usable = (c: ColumnFacts) => inQuery.has(c.table);
  const multi = plan.tables.length > 1;
  const { where, calls } = conditions(scope, p, inQuery, multi);
  if (p.setOp && p.setOp.op !== "UNION") {
    const body = subquery(scope, p.root, p.setOp.right);
    where.push(p.setOp.op === "INTERSECT" ? `EXISTS { ${body} }` : `NOT EXISTS { ${body} }`);
  }
  const order = p.order && (!p.order.column || usable(p.order.column)) ? p.order : null;
  if (order?.column && p.ties) {
    const extreme = `${scope.prefix}extreme${scope.counter.n++}`;
    const inner: Scope = { ...scope, prefix: `${scope.prefix}t${scope.counter.n++}_`, vars: new Map() };
    const innerPlan = planJoins(scope.view.structure, p.root, tablesOf({ ...p, select: null, projection: [order.column] }));
    const { where: innerWhere } = conditions(
      inner,
      { ...p, ties: false, order: null, setOp: null },
      new Set(innerPlan.tables),
      innerPlan.tables.length > 1,
    );
    calls.push(
      `CALL { MATCH ${matchPatterns(inner, innerPlan.tables).join(", ")}${innerWhere.length > 0 ? ` WHERE ${innerWhere.join(" AND ")}` : ""} RETURN ${order.descending ? "max" : "min"}(${col(inner, order.column)}) AS ${extreme} }`,
    );
    where.push(`${col(scope, order.column)} = ${extreme}`);
  } else if (order?.column && order.limit !== null) where.push(`${col(scope, order.column)} IS NOT NULL`);

  const lines = [...calls, `MATCH ${matchPatterns(scope, plan.tables).join(", ")}`];
  if (where.length > 0) lines.push(`WHERE ${where.join(" AND ")}`);

  const taken = new Set<string>();
  const name = (base: string) => {
    let n = base;
    for (let i = 2; taken.has(n); i++) n = `${base} ${i}`;
    taken.add(n);
    return n;
  };
  const select = p.select ?? p.projection.map((column) => ({ kind: "column" as const, column }));
  const groupedColumns = p.groupBy.filter(usable);
  const shown = selectAggregates(p).filter((a) => !a.column || usable(a.column));
  const groupedQuery = groupedColumns.length > 0 && (p.aggregates.length > 0 || p.having.length > 0 || shown.length > 0);
  const returns: string[] = [];
  const names: string[] = [];
  const keys: number[] = [];
  const measures: number[] = [];
  let orderBy: string | null = null;
  if (groupedQuery) {
    // WITH the grouping keys and every aggregate the query needs, then HAVING as WHERE, then RETURN what is asked.
    const withItems: string[] = [];
    const keyAlias = new Map<ColumnFacts, string>();
    groupedColumns.forEach((c, i) => {
      const alias = `${scope.prefix}g${i}`;
      keyAlias.set(c, alias);
      withItems.push(`${col(scope, c)} AS ${alias}`);
    });
    const aggAlias = new Map<SqlAggregate, string>();
    const orderAggregate: SqlAggregate | null =
      order && !order.column ? (order.aggregate ?? p.aggregates.find((a) => a.fn === "count") ?? { fn: "count", column: null }) : null;
    const needed = [...new Set([...shown, ...p.having.map((h) => h.aggregate), ...(orderAggregate ? [orderAggregate] : [])])];
    needed.forEach((a, i) => {
      const alias = `${scope.prefix}a${i}`;
      aggAlias.set(a, alias);
      withItems.push(`${aggregateExpr(scope, a, multi)} AS ${alias}`);
    });
    lines.push(`WITH ${withItems.join(", ")}`);
    if (p.having.length > 0)
      lines.push(`WHERE ${p.having.map((h) => `${aggAlias.get(h.aggregate)} ${h.op} ${param(scope, h.value)}`).join(" AND ")}`);
    for (const item of select) {
      if (item.kind === "column") {
        const alias = keyAlias.get(item.column);
        if (!alias) continue;
        keys.push(returns.length);
        const n = name(item.column.name === VIEW_ID ? item.column.table : item.column.name);
        returns.push(`${alias} AS ${quoteName(n)}`);
        names.push(n);
      } else {
        const alias = aggAlias.get(item.aggregate);
        if (!alias) continue;
        measures.push(returns.length);
        const n = name(aggregateAlias(item.aggregate));
        returns.push(`${alias} AS ${quoteName(n)}`);
        names.push(n);
      }
    }
    if (order)
      orderBy = order.column ? (keyAlias.get(order.column) ?? null) : orderAggregate ? (aggAlias.get(orderAggregate) ?? null) : null;
  } else {
    for (const item of select) {
      if (item.kind === "column") {
        if (!usable(item.column)) continue;
        const n = name(item.column.name === VIEW_ID ? item.column.table : item.column.name);
        returns.push(`${col(scope, item.column)} AS ${quoteName(n)}`);
        names.push(n);
      } else {
        if (item.aggregate.column && !usable(item.aggregate.column)) continue;
        const n = name(aggregateAlias(item.aggregate));
        returns.push(`${aggregateExpr(scope, item.aggregate, multi)} AS ${quoteName(n)}`);
        names.push(n);
      }
    }
    if (order?.column) orderBy = col(scope, order.column);
  }
  const tail: string[] = [];
  if (order && orderBy && !p.ties && !p.setOp) tail.push(`ORDER BY ${orderBy} ${order.descending ? "DESC" : "ASC"}`);
  const singleRow = shown.length > 0 && !groupedQuery;
  const limit = p.ties || singleRow ? null : (order?.limit ?? p.rowLimit);
  if (limit !== null && !p.setOp) tail.push(`${order?.offset ? `SKIP ${order.offset} ` : ""}LIMIT ${limit}`);
  return {
    lines,
    returns,
    names,
    tables: plan.tables,
    grouped: groupedQuery && keys.length > 0 && measures.length > 0 ? { keys, measures } : null,
    tail,
  };
}

export function renderCypher(view: GraphView, p: SqlPicks): RenderedCypher {
  const params: Record<string, unknown> = {};
  const scope = (prefix: string): Scope => ({ view, prefix, params, counter: { n: 0 }, vars: new Map() });
  const distinct = p.select ? p.distinct : true;
  const main = readOf(scope(""), p);
  let text = [
    ...main.lines,
    `RETURN ${distinct || p.setOp ? "DISTINCT " : ""}${main.returns.join(", ") || "count(*) AS rows"}`,
    ...main.tail,
  ].join("\n");
  if (p.setOp?.op === "UNION") {
    const right = readOf(scope("u_"), { ...p.setOp.right, setOp: null, order: null });
    // UNION needs the same column names on both sides.
    const returns = right.returns.map((r, i) => r.replace(/ AS `[^`]*`$/, ` AS ${quoteName(main.names[i] ?? `c${i}`)}`));
    text = [text, "UNION", ...right.lines, `RETURN ${returns.join(", ")}`].join("\n");
  }
  return { text, params, tables: main.tables, grouped: main.grouped };
}
