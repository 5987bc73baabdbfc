import type { TimeCue } from "../../../types";
import { planJoins } from "./join-path";
import type { SchemaLinking } from "./schema-linking";
import { readable, type SqlAggregate, type SqlPicks } from "./sql-picks";
import { type ColumnFacts, containsPattern, qualified, quoteIdent, sqlString } from "./sql-structure";

/**
 * Writes one SELECT from the picks: identifiers always double-quoted, string literals with doubled
 * quotes (the backends take no parameters), joins along the FK path, aliases a person can read in
 * the evidence ("number of orders", "average age").
 */

export interface RenderOptions {
  /** Row cap for queries that return rows (not for single aggregate rows). */
  rowLimit: number;
  /** Page index (next_batch): OFFSET page × limit. */
  page: number;
}

export interface RenderedSql {
  text: string;
  tables: string[];
  /** Join steps in words, for the explanation. */
  joins: string[];
}

const AGGREGATE_WORD: Record<SqlAggregate["fn"], string> = { count: "number of", sum: "total", avg: "average", min: "minimum", max: "maximum" };

function year(iso: string | null): number | null {
  const m = iso ? /^(\d{4})/.exec(iso) : null;
  return m ? Number(m[1]) : null;
}

/** A cue's period as [start, end) ISO dates; a bare year in the text stands for that whole year. */
function period(cue: TimeCue): { start: string | null; end: string | null } {
  if (cue.start || cue.end) return { start: cue.start, end: cue.end };
  const y = /\b(\d{4})\b/.exec(cue.text);
  return y ? { start: `${y[1]}-01-01`, end: `${Number(y[1]) + 1}-01-01` } : { start: null, end: null };
}

function timeCondition(expr: string, column: ColumnFacts, cue: TimeCue): string | null {
  const { start, end } = period(cue);
  let lo: string | null;
  let hi: string | null;
  if (column.yearLike) {
    const endYear = year(end);
    // An exclusive end on 1 January closes the year before; any later day still includes its year.
    const hiYear = endYear === null ? null : end!.slice(4, 10) === "-01-01" ? endYear : endYear + 1;
    lo = year(start)?.toString() ?? null;
    hi = hiYear?.toString() ?? null;
  } else {
    lo = start ? sqlString(start) : null;
    hi = end ? sqlString(end) : null;
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
      return parts.length > 0 ? parts.join(" AND ") : null;
    }
  }
}

function tablesOf(p: SqlPicks): string[] {
  const columns = [
    ...p.values.map((v) => v.column),
    ...p.lookups.map((l) => l.column),
    ...p.time.map((t) => t.column),
    ...p.numeric.map((n) => n.column),
    ...(p.top ? [p.top.column] : []),
    ...p.aggregates.flatMap((a) => (a.column ? [a.column] : [])),
    ...p.groupBy,
    ...(p.order?.column ? [p.order.column] : []),
    ...p.projection,
  ];
  const counted = p.aggregates.flatMap((a) => (a.countOf ? [a.countOf] : []));
  return [...new Set([...columns.map((c) => c.table), ...p.extraTables, ...counted])];
}

export function renderSql(linking: SchemaLinking, p: SqlPicks, options: RenderOptions): RenderedSql {
  const plan = planJoins(linking.structure, p.root, tablesOf(p));
  const inQuery = new Set(plan.tables);
  const usable = (c: ColumnFacts) => inQuery.has(c.table);
  const multi = plan.tables.length > 1;
  const col = (c: ColumnFacts) => qualified(c.table, c.name, multi);

  const grouped = p.groupBy.filter(usable);
  const aggregates = p.aggregates.filter((a) => !a.column || usable(a.column));
  const countExpr = aggregates.find((a) => a.fn === "count");
  // The filtered values, as constants: the one aggregate row then names what it is about.
  const constants = p.values.filter((v) => !grouped.includes(v.column) && !v.negated).map((v) => `${sqlString(v.value)} AS ${quoteIdent(readable(v.column.name))}`);
  const aggregateItems = (colOf: (c: ColumnFacts) => string, joined: boolean) => aggregates.map((a) => `${aggregateExpr(a, colOf, linking, joined)} AS ${quoteIdent(aggregateAlias(a))}`);
  const select: string[] = [];
  if (aggregates.length > 0) {
    for (const g of grouped) select.push(col(g));
    select.push(...constants, ...aggregateItems(col, multi));
  } else {
    const projected = p.projection.filter(usable);
    const names = projected.map((c) => c.name.toLowerCase());
    for (const c of projected) {
      const ambiguous = names.filter((n) => n === c.name.toLowerCase()).length > 1;
      select.push(ambiguous ? `${col(c)} AS ${quoteIdent(`${readable(c.table)} ${readable(c.name)}`)}` : col(c));
    }
  }
  if (select.length === 0) select.push("*");

  const where: string[] = [];
  for (const v of p.values.filter((x) => usable(x.column))) {
    if (p.containsMatch) where.push(`LOWER(${col(v.column)}) ${v.negated ? "NOT LIKE" : "LIKE"} ${containsPattern(v.value)} ESCAPE '!'`);
    else where.push(`${col(v.column)} ${v.negated ? "<>" : "="} ${sqlString(v.value)}`);
  }
  for (const l of p.lookups.filter((x) => usable(x.column))) where.push(`LOWER(${col(l.column)}) LIKE ${containsPattern(l.text)} ESCAPE '!'`);
  for (const t of p.time.filter((x) => usable(x.column))) {
    const conditions = t.cues.map((cue) => timeCondition(col(t.column), t.column, cue)).filter((c): c is string => c !== null);
    // Several periods on one column can only be meant as alternatives ("in 2014 or 2015").
    if (conditions.length === 1) where.push(conditions[0]);
    else if (conditions.length > 1) where.push(`(${conditions.map((c) => `(${c})`).join(" OR ")})`);
  }
  for (const n of p.numeric.filter((x) => usable(x.column))) {
    const c = col(n.column);
    if (n.withAverage) where.push(`${c} ${n.op} (SELECT AVG(${quoteIdent(n.column.name)}) FROM ${quoteIdent(n.column.table)})`);
    else if (n.op === "between" && n.values.length === 2) where.push(`${c} BETWEEN ${n.values[0]} AND ${n.values[1]}`);
    else if (n.op === "=" && n.values.length > 1) where.push(`${c} IN (${n.values.join(", ")})`);
    else if (n.op !== "between" && n.values.length === 1) where.push(`${c} ${n.op} ${n.values[0]}`);
  }
  for (const neg of p.negations) {
    if (neg.columns.length !== 1) continue;
    const inner = quoteIdent(neg.columns[0]);
    where.push(`${qualified(p.root, neg.refColumns[0], multi)} NOT IN (SELECT ${inner} FROM ${quoteIdent(neg.table)} WHERE ${inner} IS NOT NULL)`);
  }
  if (p.top && usable(p.top.column)) {
    const t = p.top;
    const ordered = quoteIdent(t.column.name);
    where.push(
      `${qualified(t.column.table, t.key, multi)} IN (SELECT ${quoteIdent(t.key)} FROM ${quoteIdent(t.column.table)} WHERE ${ordered} IS NOT NULL ORDER BY ${ordered} ${t.descending ? "DESC" : "ASC"} LIMIT ${t.limit})`,
    );
  }
  const order = p.order && (!p.order.column || usable(p.order.column)) ? p.order : null;
  if (order?.column && order.limit !== null) where.push(`${col(order.column)} IS NOT NULL`);

  const joins = plan.edges.map((e) => {
    const on = e.fromColumns.map((c, i) => `${qualified(e.from, c, true)} = ${qualified(e.to, e.toColumns[i], true)}`).join(" AND ");
    return { sql: `JOIN ${quoteIdent(e.to)} ON ${on}`, words: `${e.from}.${e.fromColumns.join("+")} → ${e.to}.${e.toColumns.join("+")}` };
  });

  const singleRow = aggregates.length > 0 && grouped.length === 0;
  let limit = order?.limit ?? (singleRow ? null : options.rowLimit);
  const offset = (order?.offset ?? 0) + (limit !== null && !singleRow ? options.page * limit : 0);
  // A join repeats an answer row once per match (a product ordered twice); the answer is the row once.
  const distinct = aggregates.length === 0 && multi;
  if (singleRow) limit = null;

  const measuredIn = measuredTable(linking, aggregates);
  if (singleRow && multi && measuredIn && !order) {
    // AVG/SUM over a join would count a row once per match ("the average age of dogs that had
    // treatments"): the rows are chosen through the join, the aggregate runs over them once each.
    const key = measuredIn.primaryKey[0];
    const inner = [`SELECT ${qualified(measuredIn.name, key, true)}`, `FROM ${quoteIdent(p.root)}`, ...joins.map((j) => j.sql), ...(where.length > 0 ? [`WHERE ${where.join(" AND ")}`] : [])].join(" ");
    const outer = [...constants, ...aggregateItems((c) => quoteIdent(c.name), false)];
    const text = [`SELECT ${outer.join(", ")}`, `FROM ${quoteIdent(measuredIn.name)}`, `WHERE ${quoteIdent(key)} IN (${inner})`].join("\n");
    return { text, tables: plan.tables, joins: joins.map((j) => j.words) };
  }

  const lines = [`SELECT ${distinct ? "DISTINCT " : ""}${select.join(", ")}`, `FROM ${quoteIdent(p.root)}`, ...joins.map((j) => j.sql)];
  if (where.length > 0) lines.push(`WHERE ${where.join(" AND ")}`);
  if (grouped.length > 0 && aggregates.length > 0) lines.push(`GROUP BY ${grouped.map(col).join(", ")}`);
  if (order) {
    const by = order.column ? col(order.column) : countExpr ? aggregateExpr(countExpr, col, linking, multi) : "COUNT(*)";
    lines.push(`ORDER BY ${by} ${order.descending ? "DESC" : "ASC"}`);
  }
  if (limit !== null) lines.push(`LIMIT ${limit}${offset > 0 ? ` OFFSET ${offset}` : ""}`);
  return { text: lines.join("\n"), tables: plan.tables, joins: joins.map((j) => j.words) };
}

/** The one table every aggregate measures (SUM/AVG/MIN/MAX/COUNT DISTINCT of its columns), when it has a single-column key. */
function measuredTable(linking: SchemaLinking, aggregates: SqlAggregate[]) {
  if (aggregates.length === 0 || aggregates.some((a) => !a.column)) return null;
  const tables = new Set(aggregates.map((a) => a.column!.table));
  if (tables.size !== 1) return null;
  const table = linking.structure.tables.find((t) => t.name === [...tables][0]);
  return table && table.primaryKey.length === 1 ? table : null;
}

function aggregateExpr(a: SqlAggregate, col: (c: ColumnFacts) => string, linking: SchemaLinking, multi: boolean): string {
  if (a.column) return a.fn === "count" ? `COUNT(DISTINCT ${col(a.column)})` : `${a.fn.toUpperCase()}(${col(a.column)})`;
  // Joins repeat a counted row once per match: count the counted table's distinct keys then.
  const counted = linking.structure.tables.find((t) => t.name === a.countOf);
  return multi && counted?.primaryKey.length === 1 ? `COUNT(DISTINCT ${qualified(counted.name, counted.primaryKey[0], true)})` : "COUNT(*)";
}

function aggregateAlias(a: SqlAggregate): string {
  if (a.column) return a.fn === "count" ? `number of different ${readable(a.column.name)}` : `${AGGREGATE_WORD[a.fn]} ${readable(a.column.name)}`;
  return `number of ${readable(a.countOf ?? "rows")}`;
}
