import type { Constructs } from "../../../contracts";
import { label } from "./column-choice";
import type { ColumnFacts } from "./sql-structure";
import type { SchemaLinking, SqlNumericFilter, SqlPicks, SqlTimeFilter, SqlValueFilter } from "./types";

/**
 * Set operations and nesting, picked last over the whole picks: how the filters are joined ("or" within
 * a query, INTERSECT / EXCEPT between two readings of it) and negated conditions through a related table
 * (anti-joins).
 */

// ---------------------------------------------------------------------------------------------
// How the filters are joined: and / or / both … and / but not

type Filter =
  | { kind: "value"; f: SqlValueFilter }
  | { kind: "numeric"; f: SqlNumericFilter }
  | { kind: "time"; f: SqlTimeFilter }
  | { kind: "lookup"; f: SqlPicks["lookups"][number] };

function filterAt(filter: Filter, question: string): number {
  switch (filter.kind) {
    case "value":
      return filter.f.entity.mention ? Math.max(0, question.toLowerCase().indexOf(filter.f.entity.mention.toLowerCase())) : 0;
    case "numeric":
      return filter.f.at ?? 0;
    case "time":
      return Math.max(0, question.toLowerCase().indexOf((filter.f.cues[0]?.text ?? "").toLowerCase()));
    case "lookup":
      return filter.f.at ?? 0;
  }
}

function columnOf(filter: Filter): ColumnFacts {
  return filter.f.column;
}

/** Two conditions on one column that no single row can meet together: "2014 and 2015", "above 40 and below 30". */
function exclusive(a: Filter, b: Filter): boolean {
  if (columnOf(a) !== columnOf(b)) return false;
  if (a.kind === "value" && b.kind === "value") return a.f.value !== b.f.value && !a.f.negated && !b.f.negated;
  if (a.kind === "lookup" && b.kind === "lookup") return a.f.text.toLowerCase() !== b.f.text.toLowerCase();
  const range = (f: Filter): [number, number] | null => {
    if (f.kind === "numeric" && f.f.values.length >= 1 && !f.f.withAverage) {
      const [v, w] = f.f.values;
      switch (f.f.op) {
        case ">":
          return [v + 1e-9, Infinity];
        case ">=":
          return [v, Infinity];
        case "<":
          return [-Infinity, v - 1e-9];
        case "<=":
          return [-Infinity, v];
        case "=":
          return f.f.values.length === 1 ? [v, v] : null;
        case "between":
          return w === undefined ? null : [v, w];
      }
    }
    if (f.kind === "time") {
      const cue = f.f.cues[0];
      const year = (iso: string | null) => (iso ? Number(iso.slice(0, 4)) + Number(iso.slice(5, 7) || 1) / 100 : null);
      const y = /\b(\d{4})\b/.exec(cue?.text ?? "");
      const lo = year(cue?.start ?? null) ?? (y ? Number(y[1]) : null);
      const hi = year(cue?.end ?? null) ?? (y ? Number(y[1]) + 1 : null);
      if (lo === null || hi === null) return null;
      switch (cue.comparator) {
        case "before":
          return [-Infinity, lo - 1e-9];
        case "after":
          return [hi, Infinity];
        case "since":
          return [lo, Infinity];
        case "until":
          return [-Infinity, hi - 1e-9];
        default:
          return [lo, hi - 1e-9];
      }
    }
    return null;
  };
  const ra = range(a);
  const rb = range(b);
  return !!ra && !!rb && (ra[1] < rb[0] || rb[1] < ra[0]);
}

function without(p: SqlPicks, drop: Filter): SqlPicks {
  return {
    ...p,
    values: p.values.filter((v) => v !== drop.f),
    numeric: p.numeric.filter((n) => n !== drop.f),
    time: p.time.filter((t) => t !== drop.f),
    lookups: p.lookups.filter((l) => l !== drop.f),
  };
}

function filtersOf(p: SqlPicks, question: string): { filter: Filter; at: number }[] {
  const all: Filter[] = [
    ...p.values.map((f): Filter => ({ kind: "value", f })),
    ...p.numeric.map((f): Filter => ({ kind: "numeric", f })),
    ...p.time.map((f): Filter => ({ kind: "time", f })),
    ...p.lookups.map((f): Filter => ({ kind: "lookup", f })),
  ];
  return all.map((filter) => ({ filter, at: filterAt(filter, question) })).sort((a, b) => a.at - b.at);
}

/** The connective between two offsets: the last "or" / "and" / "but not" / "both" between them. */
export function connectiveBetween(constructs: Constructs, from: number, to: number): Constructs["connectives"][number]["kind"] | null {
  const between = constructs.connectives.filter((c) => c.at > from && c.at < to);
  if (between.some((c) => c.kind === "but-not")) return "but-not";
  if (between.some((c) => c.kind === "or")) return "or";
  if (between.some((c) => c.kind === "and")) return constructs.connectives.some((c) => c.kind === "both" && c.at < to) ? "both" : "and";
  return null;
}

/**
 * Applies the connectives between consecutive filters: "or" joins them (values of one column become IN),
 * "and"/"both" between conditions no row can meet together becomes INTERSECT of the two readings, "but
 * not" becomes EXCEPT. One set operation per query; the rest stays a conjunction.
 */
export function applyConnectives(p: SqlPicks, constructs: Constructs, question: string, notes: string[]): SqlPicks {
  let picks = p;
  const filters = filtersOf(picks, question);
  let group = 0;
  for (let i = 0; i + 1 < filters.length; i++) {
    const a = filters[i];
    const b = filters[i + 1];
    const kind = connectiveBetween(constructs, a.at, b.at);
    if (kind === "or") {
      if (
        a.filter.kind === "value" &&
        b.filter.kind === "value" &&
        a.filter.f.column === b.filter.f.column &&
        a.filter.f.negated === b.filter.f.negated
      ) {
        const merged: SqlValueFilter = {
          ...a.filter.f,
          alternatives: [...(a.filter.f.alternatives ?? []), b.filter.f.value],
          alternativeMentions: [...(a.filter.f.alternativeMentions ?? []), b.filter.f.entity.mention],
        };
        picks = { ...picks, values: picks.values.filter((v) => v !== b.filter.f).map((v) => (v === a.filter.f ? merged : v)) };
        filters[i + 1] = { filter: { kind: "value", f: merged }, at: b.at };
        notes.push(`"or": ${label(merged.column)} IN ('${[merged.value, ...(merged.alternatives ?? [])].join("', '")}')`);
        continue;
      }
      const id = picks.orGroups.get(a.filter.f) ?? ++group;
      const orGroups = new Map(picks.orGroups);
      orGroups.set(a.filter.f, id);
      orGroups.set(b.filter.f, id);
      picks = { ...picks, orGroups };
      notes.push(`"or" between two conditions: either may hold`);
      continue;
    }
    if (picks.setOp) continue;
    if ((kind === "and" || kind === "both") && exclusive(a.filter, b.filter)) {
      notes.push(
        `"${kind === "both" ? "both … and" : "and"}" on ${label(columnOf(a.filter))}: no single row meets both, so INTERSECT of the two`,
      );
      return { ...without(picks, b.filter), setOp: { op: "INTERSECT", right: { ...without(picks, a.filter), setOp: null } } };
    }
    if (kind === "but-not") {
      const positive = b.filter.kind === "value" ? ({ kind: "value", f: { ...b.filter.f, negated: false } } as Filter) : b.filter;
      const right = { ...without(picks, a.filter), setOp: null };
      const rightPositive =
        positive.kind === "value"
          ? { ...right, values: right.values.map((v) => (v === b.filter.f ? (positive.f as SqlValueFilter) : v)) }
          : right;
      notes.push(`"but not": EXCEPT the rows that meet the second condition`);
      return { ...without(picks, b.filter), setOp: { op: "EXCEPT", right: rightPositive } };
    }
  }
  return picks;
}

// ---------------------------------------------------------------------------------------------
// Negated conditions through a related table: anti-joins

const NEGATION_WINDOW = 40;

/** A negation cue shortly before the filter, with no other filter in between: "did not have a concert in 2014". */
function negatedBefore(constructs: Constructs, at: number, previous: number, window = NEGATION_WINDOW): boolean {
  return constructs.negations.some(
    (n) => n.at < at && n.at > previous && at - n.at <= window && !/^(?:no|not)\s+(?:more|less|fewer)/i.test(`${n.cue} ${n.scope}`),
  );
}

/**
 * Negated filters on a table the answer table has many rows of (its concerts, its orders) cannot be a
 * `<>` on the joined rows (a stadium with concerts in 2014 and 2015 would stay): the answer rows are
 * those NOT IN the ones that meet the filter.
 */
export function pickAntiJoins(
  p: SqlPicks,
  linking: SchemaLinking,
  constructs: Constructs,
  question: string,
  notes: string[],
  wider = false,
): SqlPicks {
  const pk = linking.structure.tables.find((t) => t.name === p.root)?.primaryKey ?? [];
  if (pk.length !== 1) return p;
  let picks = p;
  const filters = filtersOf(p, question);
  const negatedTables = new Set(p.negations.map((n) => n.table));
  const moved: Filter[] = [];
  filters.forEach(({ filter, at }, i) => {
    const table = columnOf(filter).table;
    if (table === p.root) return;
    const previous = i > 0 ? filters[i - 1].at : (constructs.ask?.end ?? 0);
    const isNegatedValue = filter.kind === "value" && filter.f.negated;
    if (
      negatedTables.has(table) ||
      isNegatedValue ||
      negatedBefore(constructs, at, previous, wider ? 2 * NEGATION_WINDOW : NEGATION_WINDOW)
    )
      moved.push(filter);
  });
  if (moved.length === 0) return p;
  let inner: SqlPicks = {
    ...p,
    values: [],
    numeric: [],
    time: [],
    lookups: [],
    negations: [],
    antiJoins: [],
    setOp: null,
    having: [],
    aggregates: [],
    groupBy: [],
    order: null,
    top: null,
    select: null,
    orGroups: new Map(),
    rowLimit: null,
    flags: [],
    absent: [],
  };
  for (const m of moved) {
    picks = without(picks, m);
    if (m.kind === "value") inner = { ...inner, values: [...inner.values, { ...m.f, negated: false }] };
    else if (m.kind === "numeric") inner = { ...inner, numeric: [...inner.numeric, m.f] };
    else if (m.kind === "time") inner = { ...inner, time: [...inner.time, m.f] };
    else inner = { ...inner, lookups: [...inner.lookups, m.f] };
  }
  const tables = [...new Set(moved.map((m) => columnOf(m).table))];
  // The plain "without any concert" negation of those tables is now the anti-join itself.
  picks = { ...picks, negations: picks.negations.filter((n) => !tables.includes(n.table)) };
  notes.push(`negated conditions on ${tables.join(", ")}: answer rows NOT IN the rows that meet them`);
  return { ...picks, antiJoins: [...picks.antiJoins, { picks: inner, why: `not: ${moved.map((m) => label(columnOf(m))).join(", ")}` }] };
}
