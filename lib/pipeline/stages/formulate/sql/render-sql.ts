import type { TimeCue } from "../../../contracts";
import { planJoins } from "./join-path";
import { type SchemaLinking, type SqlAggregate, type SqlPicks } from "./types";
import { readable } from "./sql-picks";
import { type ColumnFacts, columnSql, containsPattern, qualified, quoteIdent, sqlString } from "./sql-structure";

/**
 * Writes one SELECT from the picks: identifiers always double-quoted, string literals with doubled
 * quotes (the backends take no parameters), joins along the FK path, aliases a person can read in
 * the evidence ("number of orders", "average age"). The answer's SELECT list is exactly the picks'
 * `select`; conditions are ANDed except those the question joins by "or"; a negated condition through
 * a related table is an anti-join (NOT IN); two readings combine by INTERSECT / EXCEPT / UNION.
 */

export interface RenderOptions {
  /** Row cap for queries that return rows (not for single aggregate rows); null: none (an answer query, capped by the backend's row cap). */
  rowLimit: number | null;
  /** Page index (next_batch): OFFSET page × limit. */
  page: number;
}

export interface RenderedSql {
  text: string;
  tables: string[];
  /** Join steps in words, for the explanation. */
  joins: string[];
  /** For a grouped answer: result column indexes of its keys and of its aggregates. */
  grouped: { keys: number[]; measures: number[] } | null;
}

const AGGREGATE_WORD: Record<SqlAggregate["fn"], string> = {
  count: "number of",
  sum: "total",
  avg: "average",
  min: "minimum",
  max: "maximum",
};

function year(iso: string | null): number | null {
  const m = iso ? /^(\d{4})/.exec(iso) : null;
  return m ? Number(m[1]) : null;
}

/** A cue's period as [start, end) ISO dates; a bare year in the text stands for that whole year. */
export function period(cue: TimeCue): { start: string | null; end: string | null } {
  if (cue.start || cue.end) return { start: cue.start, end: cue.end };
  const y = /\b(\d{4})\b/.exec(cue.text);
  return y ? { start: `${y[1]}-01-01`, end: `${Number(y[1]) + 1}-01-01` } : { start: null, end: null };
}

const AND = " AND ";

export function timeCondition(expr: string, column: ColumnFacts, cue: TimeCue): string | null {
  const { start, end } = period(cue);
  let lo: string | null;
  let hi: string | null;
  if (column.yearLike) {
    const endYear = year(end);
    // An exclusive end on 1 January closes the year before; any later day still includes its year.
    const hiYear = endYear === null ? null : end!.slice(4, 10) === "-01-01" ? endYear : endYear + 1;
    lo = year(start)?.toString() ?? null;
    hi = hiYear?.toString() ?? null;
    // A whole single year on a year column is one value: "= 2014" reads as the question does.
    if (
      cue.comparator !== "before" &&
      cue.comparator !== "after" &&
      cue.comparator !== "since" &&
      cue.comparator !== "until" &&
      lo &&
      hi &&
      Number(hi) === Number(lo) + 1
    )
      return `${expr} = ${lo}`;
  } else {
    lo = start ? sqlString(start) : null;
    hi = end ? sqlString(end) : null;
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

export function selectColumns(p: SqlPicks): ColumnFacts[] {
  return (p.select ?? []).flatMap((s) => (s.kind === "column" ? [s.column] : s.aggregate.column ? [s.aggregate.column] : []));
}

export function selectAggregates(p: SqlPicks): SqlAggregate[] {
  return p.select ? p.select.flatMap((s) => (s.kind === "aggregate" ? [s.aggregate] : [])) : p.aggregates;
}

export function tablesOf(p: SqlPicks): string[] {
  const columns = [
    ...(p.select ? selectColumns(p) : p.projection),
    ...p.values.map((v) => v.column),
    ...p.lookups.map((l) => l.column),
    ...p.time.map((t) => t.column),
    ...p.numeric.map((n) => n.column),
    ...p.flags.map((f) => f.column),
    ...p.absent.map((a) => a.column),
    ...(p.top ? [p.top.column] : []),
    ...p.aggregates.flatMap((a) => (a.column ? [a.column] : [])),
    ...p.having.flatMap((h) => (h.aggregate.column ? [h.aggregate.column] : [])),
    ...p.groupBy,
    ...(p.order?.column ? [p.order.column] : []),
  ];
  const counted = [...p.aggregates, ...selectAggregates(p), ...p.having.map((h) => h.aggregate)].flatMap((a) =>
    a.countOf ? [a.countOf] : [],
  );
  return [...new Set([...p.via, ...columns.map((c) => c.table), ...p.extraTables, ...counted])];
}

/** The WHERE conditions of the picks over the joined tables (`col` writes a column reference). */
function conditions(
  linking: SchemaLinking,
  p: SqlPicks,
  col: (c: ColumnFacts) => string,
  usable: (c: ColumnFacts) => boolean,
  multi: boolean,
): string[] {
  const grouped = new Map<number, string[]>();
  const where: string[] = [];
  const add = (filter: object, condition: string) => {
    const group = p.orGroups.get(filter);
    if (group === undefined) where.push(condition);
    else grouped.set(group, [...(grouped.get(group) ?? []), condition]);
  };
  for (const v of p.values.filter((x) => usable(x.column))) {
    const all = [v.value, ...(v.alternatives ?? [])];
    if (p.containsMatch) {
      const one = all.map((x) => `LOWER(${col(v.column)}) ${v.negated ? "NOT LIKE" : "LIKE"} ${containsPattern(x)} ESCAPE '!'`);
      add(v, one.length > 1 ? `(${one.join(v.negated ? " AND " : " OR ")})` : one[0]);
    } else if (all.length > 1) add(v, `${col(v.column)} ${v.negated ? "NOT IN" : "IN"} (${all.map(sqlString).join(", ")})`);
    else add(v, `${col(v.column)} ${v.negated ? "<>" : "="} ${sqlString(v.value)}`);
  }
  for (const l of p.lookups.filter((x) => usable(x.column)))
    add(l, `LOWER(${col(l.column)}) LIKE ${containsPattern(l.text, l.anchor)} ESCAPE '!'`);
  for (const t of p.time.filter((x) => usable(x.column))) {
    const parts = t.cues.map((cue) => timeCondition(col(t.column), t.column, cue)).filter((c): c is string => c !== null);
    // Several periods on one column can only be meant as alternatives ("in 2014 or 2015").
    if (parts.length === 1) add(t, parts[0]);
    else if (parts.length > 1) add(t, `(${parts.map((c) => `(${c})`).join(" OR ")})`);
  }
  for (const n of p.numeric.filter((x) => usable(x.column))) {
    const c = col(n.column);
    let condition: string | null = null;
    if (n.withAverage) condition = `${c} ${n.op} (SELECT AVG(${columnSql(n.column, false, true)}) FROM ${quoteIdent(n.column.table)})`;
    else if (n.op === "between" && n.values.length === 2) condition = `${c} BETWEEN ${n.values[0]} AND ${n.values[1]}`;
    else if (n.op === "=" && n.values.length > 1) condition = `${c} IN (${n.values.join(", ")})`;
    else if (n.op !== "between" && n.values.length === 1) condition = `${c} ${n.op} ${n.values[0]}`;
    if (condition) add(n, n.negated ? `NOT (${condition})` : condition);
  }
  for (const [, parts] of grouped) where.push(parts.length > 1 ? `(${parts.join(" OR ")})` : parts[0]);
  for (const f of p.flags.filter((x) => usable(x.column))) where.push(`${col(f.column)} = ${f.value ? "TRUE" : "FALSE"}`);
  for (const a of p.absent.filter((x) => usable(x.column))) where.push(`${col(a.column)} IS NULL`);
  for (const neg of p.negations) {
    if (neg.columns.length !== 1) continue;
    const inner = quoteIdent(neg.columns[0]);
    where.push(
      `${qualified(p.root, neg.refColumns[0], multi)} NOT IN (SELECT ${inner} FROM ${quoteIdent(neg.table)} WHERE ${inner} IS NOT NULL)`,
    );
  }
  const pk = linking.structure.tables.find((t) => t.name === p.root)?.primaryKey ?? [];
  for (const anti of p.antiJoins) {
    if (pk.length !== 1) continue;
    const inner = renderSql(
      linking,
      { ...anti.picks, select: null, projection: [linking.columns.get(p.root)!.find((c) => c.name === pk[0])!] },
      { rowLimit: null, page: 0 },
    );
    where.push(`${qualified(p.root, pk[0], multi)} NOT IN (${inner.text.replace(/\n/g, " ")})`);
  }
  if (p.top && usable(p.top.column)) {
    const t = p.top;
    const ordered = columnSql(t.column, false);
    where.push(
      `${qualified(t.column.table, t.key, multi)} IN (SELECT ${quoteIdent(t.key)} FROM ${quoteIdent(t.column.table)} WHERE ${ordered} IS NOT NULL ORDER BY ${ordered} ${t.descending ? "DESC" : "ASC"} LIMIT ${t.limit})`,
    );
  }
  return where;
}

export function renderSql(linking: SchemaLinking, p: SqlPicks, options: RenderOptions): RenderedSql {
  const plan = planJoins(linking.structure, p.root, tablesOf(p));
  const inQuery = new Set(plan.tables);
  const usable = (c: ColumnFacts) => inQuery.has(c.table);
  const multi = plan.tables.length > 1;
  const col = (c: ColumnFacts) => columnSql(c, multi);
  // A measure shown row by row is named by its name, a period by its unit ("month"), not by their SQL.
  const shown = (c: ColumnFacts) =>
    c.measure ? `${col(c)} AS ${quoteIdent(readable(c.name))}` : c.period ? `${col(c)} AS ${quoteIdent(c.period.unit)}` : col(c);

  const grouped = p.groupBy.filter(usable);
  const aggregates = p.aggregates.filter((a) => !a.column || usable(a.column));
  const countExpr = aggregates.find((a) => a.fn === "count");
  const select: string[] = [];
  let groupedColumns: RenderedSql["grouped"] = null;
  if (p.select) {
    const keys: number[] = [];
    const measures: number[] = [];
    const names = selectColumns(p).map((c) => c.name.toLowerCase());
    for (const item of p.select) {
      if (item.kind === "column") {
        if (!usable(item.column)) continue;
        if (grouped.includes(item.column)) keys.push(select.length);
        const ambiguous = names.filter((n) => n === item.column.name.toLowerCase()).length > 1;
        select.push(
          ambiguous
            ? `${col(item.column)} AS ${quoteIdent(`${readable(item.column.table)} ${readable(item.column.name)}`)}`
            : shown(item.column),
        );
      } else {
        if (item.aggregate.column && !usable(item.aggregate.column)) continue;
        measures.push(select.length);
        select.push(`${aggregateExpr(item.aggregate, linking, multi)} AS ${quoteIdent(aggregateAlias(item.aggregate))}`);
      }
    }
    if (grouped.length > 0 && keys.length > 0 && measures.length > 0) groupedColumns = { keys, measures };
  } else if (aggregates.length > 0) {
    // Context: the filtered values as constants, so the one aggregate row names what it is about.
    const constants = p.values
      .filter((v) => !grouped.includes(v.column) && !v.negated && !v.alternatives?.length)
      .map((v) => `${sqlString(v.value)} AS ${quoteIdent(readable(v.column.name))}`);
    for (const g of grouped) select.push(shown(g));
    select.push(...constants, ...aggregates.map((a) => `${aggregateExpr(a, linking, multi)} AS ${quoteIdent(aggregateAlias(a))}`));
  } else {
    const projected = p.projection.filter(usable);
    const names = projected.map((c) => c.name.toLowerCase());
    for (const c of projected) {
      const ambiguous = names.filter((n) => n === c.name.toLowerCase()).length > 1;
      select.push(ambiguous ? `${col(c)} AS ${quoteIdent(`${readable(c.table)} ${readable(c.name)}`)}` : shown(c));
    }
  }
  if (select.length === 0) select.push("*");

  const where = conditions(linking, p, col, usable, multi);
  const order = p.order && (!p.order.column || usable(p.order.column)) ? p.order : null;
  if (order?.column && order.limit !== null && !p.ties) where.push(`${col(order.column)} IS NOT NULL`);
  if (order?.column && p.ties) {
    // Every row tied at the extreme: the column equals its extreme over the rows that meet the other conditions.
    const inner = renderSql(
      linking,
      {
        ...p,
        ties: false,
        order: null,
        setOp: null,
        select: [{ kind: "aggregate", aggregate: { fn: order.descending ? "max" : "min", column: order.column } }],
        groupBy: [],
        having: [],
      },
      { rowLimit: null, page: 0 },
    );
    where.push(`${col(order.column)} = (${inner.text.replace(/\n/g, " ")})`);
  }

  const joins = plan.edges.map((e) => {
    const on = e.fromColumns.map((c, i) => `${qualified(e.from, c, true)} = ${qualified(e.to, e.toColumns[i], true)}`).join(" AND ");
    return { sql: `JOIN ${quoteIdent(e.to)} ON ${on}`, words: `${e.from}.${e.fromColumns.join("+")} → ${e.to}.${e.toColumns.join("+")}` };
  });

  const shownAggregates = selectAggregates(p).filter((a) => !a.column || usable(a.column));
  const singleRow = shownAggregates.length > 0 && grouped.length === 0;
  const rowLimit = p.select ? null : options.rowLimit;
  let limit = p.ties ? null : (order?.limit ?? (singleRow ? null : (p.rowLimit ?? rowLimit)));
  const offset = p.ties ? 0 : (order?.offset ?? 0) + (limit !== null && !singleRow && !p.select ? options.page * limit : 0);
  // A join repeats an answer row once per match (a product ordered twice): context rows show each row once;
  // the answer shows what the question asks, distinct only when it says so.
  const distinct = p.select ? p.distinct : aggregates.length === 0 && multi;
  if (singleRow) limit = null;

  const measuredIn = measuredTable(linking, shownAggregates);
  if (singleRow && multi && measuredIn && !order && p.having.length === 0) {
    // AVG/SUM over a join would count a row once per match ("the average age of dogs that had
    // treatments"): the rows are chosen through the join, the aggregate runs over them once each.
    const key = measuredIn.primaryKey[0];
    const inner = [
      `SELECT ${qualified(measuredIn.name, key, true)}`,
      `FROM ${quoteIdent(p.root)}`,
      ...joins.map((j) => j.sql),
      ...(where.length > 0 ? [`WHERE ${where.join(" AND ")}`] : []),
    ].join(" ");
    const constants = p.select
      ? []
      : p.values
          .filter((v) => !v.negated && !v.alternatives?.length)
          .map((v) => `${sqlString(v.value)} AS ${quoteIdent(readable(v.column.name))}`);
    const outer = [...constants, ...shownAggregates.map((a) => `${aggregateExpr(a, linking, false)} AS ${quoteIdent(aggregateAlias(a))}`)];
    const text = [`SELECT ${outer.join(", ")}`, `FROM ${quoteIdent(measuredIn.name)}`, `WHERE ${quoteIdent(key)} IN (${inner})`].join("\n");
    return { text, tables: plan.tables, joins: joins.map((j) => j.words), grouped: null };
  }

  const lines = [`SELECT ${distinct ? "DISTINCT " : ""}${select.join(", ")}`, `FROM ${quoteIdent(p.root)}`, ...joins.map((j) => j.sql)];
  if (where.length > 0) lines.push(`WHERE ${where.join(" AND ")}`);
  const groupedQuery = grouped.length > 0 && (aggregates.length > 0 || p.having.length > 0 || shownAggregates.length > 0);
  if (groupedQuery) lines.push(`GROUP BY ${grouped.map(col).join(", ")}`);
  if (groupedQuery && p.having.length > 0) {
    lines.push(`HAVING ${p.having.map((h) => `${aggregateExpr(h.aggregate, linking, multi)} ${h.op} ${h.value}`).join(" AND ")}`);
  }
  if (p.setOp) {
    // Each side of a set operation keeps its own SELECT; ordering and limits belong to the whole.
    const right = renderSql(linking, { ...p.setOp.right, order: null }, { rowLimit: null, page: 0 });
    lines.push(p.setOp.op, ...right.text.split("\n"));
  }
  if (order && !p.ties) {
    const by = order.column
      ? col(order.column)
      : order.aggregate
        ? aggregateExpr(order.aggregate, linking, multi)
        : countExpr
          ? aggregateExpr(countExpr, linking, multi)
          : "COUNT(*)";
    if (!p.setOp) lines.push(`ORDER BY ${by} ${order.descending ? "DESC" : "ASC"}`);
  }
  if (limit !== null && !p.setOp) lines.push(`LIMIT ${limit}${offset > 0 ? ` OFFSET ${offset}` : ""}`);
  return { text: lines.join("\n"), tables: plan.tables, joins: joins.map((j) => j.words), grouped: groupedColumns };
}

/** The one table every aggregate measures (SUM/AVG/MIN/MAX/COUNT DISTINCT of its columns), when it has a single-column key. */
function measuredTable(linking: SchemaLinking, aggregates: SqlAggregate[]) {
  if (aggregates.length === 0 || aggregates.some((a) => !a.column)) return null;
  const tables = new Set(aggregates.map((a) => a.column!.table));
  if (tables.size !== 1) return null;
  const table = linking.structure.tables.find((t) => t.name === [...tables][0]);
  return table && table.primaryKey.length === 1 ? table : null;
}

/** An aggregate as SQL, its column qualified by its table when the query joins (`multi`). */
function aggregateExpr(a: SqlAggregate, linking: SchemaLinking, multi: boolean): string {
  if (a.column) {
    // A measure's expression needs no parentheses of its own inside the aggregate's: SUM(a * b).
    const inner = columnSql(a.column, multi, true);
    return a.fn === "count" ? `COUNT(DISTINCT ${inner})` : `${a.fn.toUpperCase()}(${inner})`;
  }
  // Joins repeat a counted row once per match: count the counted table's distinct keys then.
  const counted = linking.structure.tables.find((t) => t.name === a.countOf);
  return multi && counted?.primaryKey.length === 1 ? `COUNT(DISTINCT ${qualified(counted.name, counted.primaryKey[0], true)})` : "COUNT(*)";
}

export function aggregateAlias(a: SqlAggregate): string {
  if (a.column)
    return a.fn === "count" ? `number of different ${readable(a.column.name)}` : `${AGGREGATE_WORD[a.fn]} ${readable(a.column.name)}`;
  return `number of ${readable(a.countOf ?? "rows")}`;
}
