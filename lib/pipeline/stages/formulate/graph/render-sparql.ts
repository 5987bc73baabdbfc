import { XSD } from "../../../../backends/sparql/rdf-terms";
import type { TimeCue } from "../../../contracts";
import { columnKey, VIEW_ID } from "../plan/relational-view";
import { planJoins } from "../sql/join-path";
import { aggregateAlias, period, selectAggregates, tablesOf } from "../sql/render-sql";
import type { SchemaLinking, SqlAggregate, SqlPicks } from "../sql/types";
import type { ColumnFacts } from "../sql/sql-structure";
import type { RdfView } from "./rdf-view";
import { SparqlWriter, sparqlString } from "./sparql-writer";

/**
 * The question plan (formulate/sql) written as SPARQL over the RDF view (rdf-view.ts): each table a
 * variable typed by its class, each key a triple along its object predicate, each column a triple
 * along its literal predicate (OPTIONAL when the column is only shown, as a SQL NULL would be). The
 * constructs keep their meaning: "or" is ||, IN is IN, a negated condition through a related class is
 * FILTER NOT EXISTS, INTERSECT joins two sub-selects, EXCEPT is MINUS, UNION is UNION, HAVING,
 * GROUP BY, ORDER BY and LIMIT are SPARQL's own.
 */

export interface RenderedSparql {
  text: string;
  tables: string[];
  grouped: { keys: number[]; measures: number[] } | null;
}

interface Scope {
  w: SparqlWriter;
  view: RdfView;
  linking: SchemaLinking;
  /** Prefix of this (sub)pattern's variables, so nested patterns never capture each other's. */
  prefix: string;
  tableVar: Map<string, string>;
  columnVar: Map<string, string>;
  required: string[];
  optional: string[];
  counter: { n: number };
}

const DECIMAL = `${XSD}decimal`;

function safeName(text: string): string {
  const s = text.replace(/[^A-Za-z0-9_]+/g, "_").replace(/^_+|_+$/g, "");
  return /^[A-Za-z_]/.test(s) ? s : `v_${s}`;
}

function tableVar(scope: Scope, table: string): string {
  let v = scope.tableVar.get(table);
  if (!v) {
    v = `?${scope.prefix}${safeName(table)}`;
    scope.tableVar.set(table, v);
  }
  return v;
}

/** The variable of a column, with the triple that binds it (required, or optional when it is only shown). */
function columnVar(scope: Scope, c: ColumnFacts, required: boolean): string {
  if (c.name === VIEW_ID) return tableVar(scope, c.table);
  const key = columnKey(c.table, c.name);
  let v = scope.columnVar.get(key);
  const info = scope.view.columns.get(key);
  if (!v) {
    v = `?${scope.prefix}${safeName(`${c.table}_${c.name}`)}`;
    scope.columnVar.set(key, v);
    const triple = `${tableVar(scope, c.table)} ${scope.w.iri(info!.ref!)} ${v} .`;
    (required ? scope.required : scope.optional).push(triple);
  } else if (required) {
    const triple = `${tableVar(scope, c.table)} ${scope.w.iri(info!.ref!)} ${v} .`;
    const i = scope.optional.indexOf(triple);
    if (i >= 0) {
      scope.optional.splice(i, 1);
      scope.required.push(triple);
    }
  }
  return v;
}

/** A column as a number: literals the source keeps as text are cast. */
function numeric(scope: Scope, c: ColumnFacts): string {
  const v = columnVar(scope, c, true);
  return scope.view.columns.get(columnKey(c.table, c.name))?.numericText ? `${scope.w.iri(DECIMAL)}(${v})` : v;
}

function aggregateExpr(scope: Scope, a: SqlAggregate, multi: boolean): string {
  if (a.column) {
    if (a.fn === "count") return `COUNT(DISTINCT ${columnVar(scope, a.column, true)})`;
    return `${a.fn.toUpperCase()}(${a.fn === "min" || a.fn === "max" ? (a.column.numeric || a.column.yearLike ? numeric(scope, a.column) : columnVar(scope, a.column, true)) : numeric(scope, a.column)})`;
  }
  // Joins repeat a counted resource once per match: count distinct resources of the counted class then.
  return multi && a.countOf ? `COUNT(DISTINCT ${tableVar(scope, a.countOf)})` : "COUNT(*)";
}

const AND = " && ";

function timeFilter(scope: Scope, c: ColumnFacts, cue: TimeCue): string | null {
  const { start, end } = period(cue);
  const year = (iso: string | null) => (iso ? Number(iso.slice(0, 4)) : null);
  let lo: string | null;
  let hi: string | null;
  let expr: string;
  if (c.yearLike || c.numeric) {
    expr = numeric(scope, c);
    const endYear = year(end);
    lo = year(start)?.toString() ?? null;
    hi = endYear === null ? null : (end!.slice(4, 10) === "-01-01" ? endYear : endYear + 1).toString();
  } else {
    expr = `STR(${columnVar(scope, c, true)})`;
    lo = start ? sparqlString(start) : null;
    hi = end ? sparqlString(end) : null;
  }
  // An open range the time analysis already resolved ("after 2013" → from 2014, "before 1980" → until 1980).
  if ((start === null) !== (end === null)) {
    const parts = [lo ? `${expr} >= ${lo}` : null, hi ? `${expr} < ${hi}` : null].filter(Boolean);
    return parts.length > 0 ? parts.join(AND) : null;
  }
  switch (cue.comparator) {
    case "before":
      return lo ? `${expr} < ${lo}` : null;
    case "after":
      return hi ? `${expr} >= ${hi}` : lo ? `${expr} > ${lo}` : null;
    case "since":
      return lo ? `${expr} >= ${lo}` : null;
    case "until":
      return hi ? `${expr} < ${hi}` : null;
    default: {
      const parts = [lo ? `${expr} >= ${lo}` : null, hi ? `${expr} < ${hi}` : null].filter(Boolean);
      return parts.length > 0 ? parts.join(AND) : null;
    }
  }
}

/** The joined classes of the plan: one typed variable per table, one triple per key. */
function joinPattern(scope: Scope, p: SqlPicks): { tables: string[]; multi: boolean } {
  const plan = planJoins(scope.view.structure, p.root, tablesOf(p));
  for (const t of plan.tables) scope.required.push(`${tableVar(scope, t)} a ${scope.w.iri(scope.view.tables.get(t)!)} .`);
  for (const e of plan.edges) {
    const out = scope.view.edges.get(columnKey(e.from, e.fromColumns[0]));
    if (out) scope.required.push(`${tableVar(scope, e.from)} ${scope.w.iri(out.ref)} ${tableVar(scope, e.to)} .`);
    else {
      const back = scope.view.edges.get(columnKey(e.to, e.toColumns[0]));
      if (back) scope.required.push(`${tableVar(scope, e.to)} ${scope.w.iri(back.ref)} ${tableVar(scope, e.from)} .`);
    }
  }
  return { tables: plan.tables, multi: plan.tables.length > 1 };
}

function conditions(scope: Scope, p: SqlPicks, inQuery: Set<string>, multi: boolean): string[] {
  const usable = (c: ColumnFacts) => inQuery.has(c.table);
  const grouped = new Map<number, string[]>();
  const filters: string[] = [];
  const add = (filter: object, condition: string) => {
    const g = p.orGroups.get(filter);
    if (g === undefined) filters.push(`FILTER(${condition})`);
    else grouped.set(g, [...(grouped.get(g) ?? []), condition]);
  };
  for (const v of p.values.filter((x) => usable(x.column))) {
    const s = `STR(${columnVar(scope, v.column, true)})`;
    const all = [v.value, ...(v.alternatives ?? [])];
    if (p.containsMatch)
      add(
        v,
        `(${all.map((x) => `${v.negated ? "!" : ""}CONTAINS(LCASE(${s}), ${sparqlString(x.toLowerCase())})`).join(v.negated ? " && " : " || ")})`,
      );
    else if (all.length > 1) add(v, `${s} ${v.negated ? "NOT IN" : "IN"} (${all.map(sparqlString).join(", ")})`);
    else add(v, `${s} ${v.negated ? "!=" : "="} ${sparqlString(v.value)}`);
  }
  const textTest = { contains: "CONTAINS", prefix: "STRSTARTS", suffix: "STRENDS" };
  for (const l of p.lookups.filter((x) => usable(x.column)))
    add(l, `${textTest[l.anchor ?? "contains"]}(LCASE(STR(${columnVar(scope, l.column, true)})), ${sparqlString(l.text.toLowerCase())})`);
  for (const t of p.time.filter((x) => usable(x.column))) {
    const parts = t.cues.map((cue) => timeFilter(scope, t.column, cue)).filter((c): c is string => c !== null);
    if (parts.length === 1) add(t, parts[0]);
    else if (parts.length > 1) add(t, `(${parts.map((c) => `(${c})`).join(" || ")})`);
  }
  for (const n of p.numeric.filter((x) => usable(x.column))) {
    const x = numeric(scope, n.column);
    let condition: string | null = null;
    if (n.withAverage) {
      const avg = `?${scope.prefix}avg${scope.counter.n++}`;
      const inner = `?${scope.prefix}avgrow${scope.counter.n++}`;
      const w = `?${scope.prefix}avgval${scope.counter.n++}`;
      const info = scope.view.columns.get(columnKey(n.column.table, n.column.name))!;
      const value = info.numericText ? `${scope.w.iri(DECIMAL)}(${w})` : w;
      scope.required.push(
        `{ SELECT (AVG(${value}) AS ${avg}) WHERE { ${inner} a ${scope.w.iri(scope.view.tables.get(n.column.table)!)} . ${inner} ${scope.w.iri(info.ref!)} ${w} . } }`,
      );
      condition = `${x} ${n.op} ${avg}`;
    } else if (n.op === "between" && n.values.length === 2) condition = `${x} >= ${n.values[0]} && ${x} <= ${n.values[1]}`;
    else if (n.op === "=" && n.values.length > 1) condition = `${x} IN (${n.values.join(", ")})`;
    else if (n.op !== "between" && n.values.length === 1) condition = `${x} ${n.op} ${n.values[0]}`;
    if (condition) add(n, n.negated ? `!(${condition})` : condition);
  }
  for (const [, parts] of grouped) filters.push(`FILTER(${parts.length > 1 ? parts.map((c) => `(${c})`).join(" || ") : parts[0]})`);
  for (const f of p.flags.filter((x) => usable(x.column))) filters.push(`FILTER(${columnVar(scope, f.column, true)} = ${f.value})`);
  // A property the answers lack: the optional triple finds no value.
  for (const a of p.absent.filter((x) => usable(x.column))) filters.push(`FILTER(!BOUND(${columnVar(scope, a.column, false)}))`);
  for (const neg of p.negations) {
    const edge = scope.view.edges.get(columnKey(neg.table, neg.columns[0]));
    if (!edge) continue;
    const x = `?${scope.prefix}none${scope.counter.n++}`;
    filters.push(
      `FILTER NOT EXISTS { ${x} a ${scope.w.iri(scope.view.tables.get(neg.table)!)} . ${x} ${scope.w.iri(edge.ref)} ${tableVar(scope, p.root)} . }`,
    );
  }
  for (const anti of p.antiJoins) {
    const inner = subScope(scope, `${scope.prefix}x${scope.counter.n++}_`);
    inner.tableVar.set(p.root, tableVar(scope, p.root));
    const body = patternOf(inner, { ...anti.picks, select: null });
    filters.push(`FILTER NOT EXISTS { ${body} }`);
  }
  if (p.top && usable(p.top.column)) {
    const t = p.top;
    const inner = subScope(scope, `${scope.prefix}top${scope.counter.n++}_`);
    inner.tableVar.set(t.column.table, tableVar(scope, t.column.table));
    const v = numeric(inner, t.column);
    inner.required.unshift(`${tableVar(scope, t.column.table)} a ${scope.w.iri(scope.view.tables.get(t.column.table)!)} .`);
    scope.required.push(
      `{ SELECT ${tableVar(scope, t.column.table)} WHERE { ${inner.required.join(" ")} } ORDER BY ${t.descending ? "DESC" : "ASC"}(${v}) LIMIT ${t.limit} }`,
    );
  }
  void multi;
  return filters;
}

function subScope(scope: Scope, prefix: string): Scope {
  return { ...scope, prefix, tableVar: new Map(), columnVar: new Map(), required: [], optional: [] };
}

/** The WHERE body of a plan without its projection (anti-joins, tie sub-selects). */
function patternOf(scope: Scope, p: SqlPicks): string {
  const { tables, multi } = joinPattern(scope, p);
  const filters = conditions(scope, p, new Set(tables), multi);
  return [...scope.required, ...scope.optional.map((t) => `OPTIONAL { ${t} }`), ...filters].join(" ");
}

/** One SELECT of the plan (a side of a set operation, or the whole query). */
function selectOf(scope: Scope, p: SqlPicks): { text: string; tables: string[]; grouped: RenderedSparql["grouped"]; names: string[] } {
  const { tables, multi } = joinPattern(scope, p);
  const inQuery = new Set(tables);
  const usable = (c: ColumnFacts) => inQuery.has(c.table);
  const groupedColumns = p.groupBy.filter(usable);
  for (const g of groupedColumns) columnVar(scope, g, true);
  // Projected expressions and their output names; written once the pattern is known (see below).
  const items: { expr: string; name: string }[] = [];
  const names: string[] = [];
  const keys: number[] = [];
  const measures: number[] = [];
  const taken = new Set<string>();
  const name = (base: string) => {
    let n = safeName(base);
    for (let i = 2; taken.has(n); i++) n = `${safeName(base)}_${i}`;
    taken.add(n);
    return n;
  };
  const select = p.select ?? p.projection.map((column) => ({ kind: "column" as const, column }));
  for (const item of select) {
    if (item.kind === "column") {
      if (!usable(item.column)) continue;
      const v = columnVar(scope, item.column, groupedColumns.includes(item.column));
      if (groupedColumns.includes(item.column)) keys.push(items.length);
      const n = name(item.column.name === VIEW_ID ? item.column.table : item.column.name);
      items.push({ expr: v, name: n });
      names.push(n);
    } else {
      if (item.aggregate.column && !usable(item.aggregate.column)) continue;
      measures.push(items.length);
      const n = name(aggregateAlias(item.aggregate));
      items.push({ expr: aggregateExpr(scope, item.aggregate, multi), name: n });
      names.push(n);
    }
  }
  const order = p.order && (!p.order.column || usable(p.order.column)) ? p.order : null;
  const orderExpr = order
    ? order.column
      ? order.column.numeric || order.column.yearLike
        ? numeric(scope, order.column)
        : columnVar(scope, order.column, true)
      : aggregateExpr(scope, order.aggregate ?? p.aggregates.find((a) => a.fn === "count") ?? { fn: "count", column: null }, multi)
    : null;
  const filters = conditions(scope, p, inQuery, multi);
  if (order?.column && p.ties) {
    const inner = subScope(scope, `${scope.prefix}tie${scope.counter.n++}_`);
    const body = patternOf(inner, { ...p, ties: false, order: null, setOp: null, select: null, groupBy: [], having: [], aggregates: [] });
    const innerColumn = order.column.numeric || order.column.yearLike ? numeric(inner, order.column) : columnVar(inner, order.column, true);
    const extreme = `?${scope.prefix}extreme${scope.counter.n++}`;
    scope.required.push(`{ SELECT (${order.descending ? "MAX" : "MIN"}(${innerColumn}) AS ${extreme}) WHERE { ${body} } }`);
    filters.push(`FILTER(${orderExpr} = ${extreme})`);
  }
  const where = [...scope.required, ...scope.optional.map((t) => `OPTIONAL { ${t} }`), ...filters].join("\n  ");
  // SPARQL forbids "(expr AS ?x)" when ?x is bound in the pattern (an entity's variable is named after its
  // table, and so is its output column): the variable itself is projected then, and an expression whose
  // name is taken gets another.
  const inPattern = new Set([...where.matchAll(/\?([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]));
  const projected = items.map(({ expr, name: n }, i) => {
    if (!inPattern.has(n)) return `(${expr} AS ?${n})`;
    if (expr === `?${n}`) return expr;
    let other = `${n}_value`;
    for (let k = 2; inPattern.has(other) || taken.has(other); k++) other = `${n}_value_${k}`;
    taken.add(other);
    names[i] = other;
    return `(${expr} AS ?${other})`;
  });
  const shownAggregates = selectAggregates(p).filter((a) => !a.column || usable(a.column));
  const groupedQuery = groupedColumns.length > 0 && (p.aggregates.length > 0 || p.having.length > 0 || shownAggregates.length > 0);
  const lines = [
    `SELECT ${p.select ? (p.distinct ? "DISTINCT " : "") : "DISTINCT "}${projected.join(" ") || "*"} WHERE {`,
    `  ${where}`,
    "}",
  ];
  if (groupedQuery) lines.push(`GROUP BY ${groupedColumns.map((c) => columnVar(scope, c, true)).join(" ")}`);
  if (groupedQuery && p.having.length > 0)
    lines.push(`HAVING (${p.having.map((h) => `${aggregateExpr(scope, h.aggregate, multi)} ${h.op} ${h.value}`).join(" && ")})`);
  if (order && orderExpr && !p.ties) lines.push(`ORDER BY ${order.descending ? "DESC" : "ASC"}(${orderExpr})`);
  const singleRow = shownAggregates.length > 0 && groupedColumns.length === 0;
  const limit = p.ties || singleRow ? null : (order?.limit ?? p.rowLimit);
  if (limit !== null) lines.push(`LIMIT ${limit}${order?.offset ? ` OFFSET ${order.offset}` : ""}`);
  return {
    text: lines.join("\n"),
    tables,
    grouped: groupedQuery && keys.length > 0 && measures.length > 0 ? { keys, measures } : null,
    names,
  };
}

export function renderSparql(view: RdfView, linking: SchemaLinking, p: SqlPicks, prefixes: Record<string, string>): RenderedSparql {
  const w = new SparqlWriter(prefixes);
  const scope = (prefix: string): Scope => ({
    w,
    view,
    linking,
    prefix,
    tableVar: new Map(),
    columnVar: new Map(),
    required: [],
    optional: [],
    counter: { n: 0 },
  });
  if (!p.setOp) {
    const one = selectOf(scope(""), p);
    return { text: w.render(one.text), tables: one.tables, grouped: one.grouped };
  }
  // A set operation: both sides as sub-selects with the same output variables.
  const left = selectOf(scope("l_"), { ...p, setOp: null, order: null });
  const right = selectOf(scope("r_"), { ...p.setOp.right, setOp: null, order: null });
  const vars = left.names.map((n) => `?${n}`).join(" ");
  const l = `{ ${left.text.replace(/\n/g, " ")} }`;
  const r = `{ ${right.text.replace(/\n/g, " ")} }`;
  const body = p.setOp.op === "INTERSECT" ? `${l} ${r}` : p.setOp.op === "EXCEPT" ? `${l} MINUS ${r}` : `${l} UNION ${r}`;
  return {
    text: w.render(`SELECT DISTINCT ${vars} WHERE {\n  ${body}\n}`),
    tables: [...new Set([...left.tables, ...right.tables])],
    grouped: null,
  };
}
