import { terms, words } from "../../../text";
import type { Constructs, Intent } from "../../../contracts";
import type { Adjustments } from "../feedback";
import { adjectiveSense, aggregateRequests, BARE_ORDER, chooseSuperlativeAttribute, coverage, groupingTerms, ORDER_BY } from "../lexicon";
import {
  best,
  columnsOf,
  connected,
  identity,
  label,
  MENTIONED,
  mentionedColumns,
  namesTable,
  nearTables,
  relevantTables,
} from "./column-choice";
import { isNegated, periodCues, pickAbsent, pickLookups, pickNegations, pickNumericFilters, pickTimeColumn } from "./filter-picks";
import { type PositionedTerm, positionedTerms, wordDistance } from "./question-cues";
import { constructsOf } from "../constructs";
import { askedProjection, entityColumn } from "./projection";
import type {
  SchemaLinking,
  SelectItem,
  SqlAggregate,
  SqlHaving,
  SqlNumericFilter,
  SqlOrdering,
  SqlPicks,
  SqlTimeFilter,
  SqlTopRestriction,
  SqlValueFilter,
} from "./types";
import type { ColumnFacts } from "./sql-structure";

const MAX_PROJECTED = 8;

// ---------------------------------------------------------------------------------------------
// Aggregates and grouping

const COUNTED = /\b(?:how\s+many|number\s+of|count\s+of|count\s+the)\s+(?:the\s+|different\s+|distinct\s+)?([\p{L}_]+(?:\s+[\p{L}_]+)?)/iu;

/** The table a count is about: the noun after "how many" / "number of" when it names a table, else the answer table. */
function countedTable(intent: Intent, linking: SchemaLinking, reach: Set<string>): string {
  const m = COUNTED.exec(intent.completed);
  if (!m) return linking.root;
  if (coverage(linking.tableTerms.get(linking.root) ?? [], new Set(terms(m[1]))) > 0) return linking.root;
  return [...reach].find((t) => namesTable(linking, t, m[1])) ?? linking.root;
}

/** "How many different nationalities…": the counted noun is a column of the answer table, counted by distinct values. */
function countedColumn(intent: Intent, linking: SchemaLinking, reach: Set<string>): ColumnFacts | null {
  const m = COUNTED.exec(intent.completed);
  if (!m || [...reach].some((t) => namesTable(linking, t, m[1]))) return null;
  const bag = new Set(terms(m[1]));
  return best(
    (linking.columns.get(linking.root) ?? []).filter((c) => !c.key),
    (c) => coverage(c.ownTerms, bag),
    0.99,
  );
}

function pickAggregates(
  intent: Intent,
  linking: SchemaLinking,
  tables: string[],
  reach: Set<string>,
  positions: PositionedTerm[],
  notes: string[],
): SqlAggregate[] {
  // The measured column may sit one foreign key away ("total quantity of Tents": order_items.quantity for products).
  const measurable = columnsOf(linking, nearTables(linking, tables)).filter((c) => c.numeric && !c.key && linking.columnScore(c) > 0);
  const out: SqlAggregate[] = [];
  for (const request of aggregateRequests(intent)) {
    if (request.fn === "count") {
      const distinct = countedColumn(intent, linking, reach);
      out.push(
        distinct
          ? { fn: "count", column: distinct, at: request.at }
          : { fn: "count", column: null, countOf: countedTable(intent, linking, reach), at: request.at },
      );
      continue;
    }
    // The measured column is the one named right after the aggregate word ("average age", "total weight").
    const column = best(measurable, (c) => {
      const distance = request.at >= 0 ? wordDistance(positions, request.at, c.ownTerms, 0, 6) : Infinity;
      return linking.columnScore(c) + (Number.isFinite(distance) ? 2 - distance / 10 : 0);
    });
    if (column) out.push({ fn: request.fn, column, at: request.at });
    else notes.push(`no numeric column for ${request.fn.toUpperCase()}: the question names none`);
  }
  return out;
}

/** Grouping: by a table's rows when the words name a table ("for each stadium"), else by the column they name ("per country"). */
function pickGrouping(intent: Intent, linking: SchemaLinking, reach: Set<string>, wanted: boolean, looser = false): ColumnFacts[] {
  const groupTerms = groupingTerms(intent, wanted);
  if (!groupTerms || groupTerms.length === 0) return [];
  const bag = new Set(groupTerms);
  const reachable = [linking.root, ...[...reach].filter((t) => t !== linking.root)];
  const table = reachable.find((t) => namesTable(linking, t, groupTerms.join(" ")));
  if (table) {
    // "per product category": the words besides the table's name name one of its columns.
    const rest = new Set(groupTerms.filter((t) => !(linking.tableTerms.get(table) ?? []).includes(t)));
    const column =
      rest.size > 0
        ? best(
            (linking.columns.get(table) ?? []).filter((c) => !c.key),
            (c) => coverage(c.ownTerms, rest),
            0.99,
          )
        : null;
    if (column) return [column];
    return [...new Set([...identity(linking, table), ...mentionedColumns(linking, table)])];
  }
  // A key column groups too when its words besides "id" are the grouping words ("each student" → student_id).
  const column = best(
    columnsOf(linking, reachable),
    (c) => {
      const words = c.key ? c.terms.filter((t) => t !== "id") : c.ownTerms;
      return Math.max(coverage(words, bag), c.key ? 0 : coverage(c.terms, bag)) + (c.nameLike ? 0.01 : 0) - (c.key ? 0.005 : 0);
    },
    // After the critic's missing_grouping feedback, a column named by half its words will do.
    looser ? 0.49 : 0.99,
  );
  return column ? [column] : [];
}

// ---------------------------------------------------------------------------------------------
// Ordering

const DESCENDING = /\bdesc(?:ending)?\b|\bfrom\s+(?:the\s+)?(?:old|high|larg|big|most|great|long)\w*|\bdecreasing\b/i;
/** "the most concerts", "the fewest orders": a superlative over a count of rows. */
const MOST_ROWS =
  /\b(?:most|fewest|least|greatest\s+number\s+of|largest\s+number\s+of|highest\s+number\s+of|smallest\s+number\s+of)\s+(?:number\s+of\s+)?([\p{L}_]+(?:\s+[\p{L}_]+)?)/iu;
/** "the top 5 …": a list led by its highest values. */
const TOP = /\btop\b/i;
/** Words that rank ("most", "highest", "oldest"), beside the ones that only count off rows ("top", "first"). */
const RANKING =
  /\b(?:most|least|highest|lowest|largest|smallest|greatest|fewest|best|worst|maximum|minimum|(?!lat|earli|inter)[a-z]{2,}iest|(?!lat|earli|inter|requ|sugg)[a-z]{3,}est)\b/i;
/** "the most common nationality": a superlative over how often a value occurs. */
const FREQUENCY = /\b(?:most|least)\s+(?:common|frequent|popular|usual|often)\b|\b(?:commonest|frequentest)\b/i;

function explicitOrder(intent: Intent, linking: SchemaLinking, tables: string[]): { column: ColumnFacts; descending: boolean } | null {
  const descending = DESCENDING.test(intent.completed);
  const m = ORDER_BY.exec(intent.completed);
  if (m) {
    const bag = new Set(terms(m[1] ?? m[2] ?? ""));
    const column = best(columnsOf(linking, tables), (c) => coverage(c.ownTerms, bag), 0.49);
    if (column) return { column, descending };
  }
  // "List the earnings … in descending order": the one measurable column the question names.
  if (m || BARE_ORDER.test(intent.completed)) {
    const column = best(
      columnsOf(linking, tables).filter((c) => (c.numeric || c.dateLike || c.yearLike) && !c.key),
      linking.columnScore,
    );
    if (column) return { column, descending };
  }
  return null;
}

/** The table whose rows a superlative counts ("with the most concerts"), when no measurable column is meant. */
function countedBySuperlative(intent: Intent, linking: SchemaLinking, reach: Set<string>, measurable: ColumnFacts[]): string | null {
  const attributeTerms = new Set(terms(intent.superlative?.attribute ?? ""));
  if (measurable.some((c) => coverage(c.ownTerms, attributeTerms) > 0)) return null;
  const fromAttribute = [...reach].find((t) => attributeTerms.size > 0 && namesTable(linking, t, intent.superlative?.attribute ?? ""));
  if (fromAttribute) return fromAttribute;
  if (FREQUENCY.test(intent.completed)) return linking.root;
  const m = MOST_ROWS.exec(intent.completed);
  // "the most expensive charge" ranks by price, not by how many charges: a degree adjective is not a count.
  if (!m || adjectiveSense(m[1].split(/\s+/)[0])) return null;
  return [...reach].find((t) => namesTable(linking, t, m[1]) || namesTable(linking, t, m[1].split(/\s+/)[0])) ?? null;
}

/**
 * A link table the question names (by its verb or noun) with one key to `from` and one to another
 * table: that other table is the far end. The best-named one; null when none is named.
 */
function namedLinkFrom(linking: SchemaLinking, from: string, reach: Set<string>): { table: string; end: string } | null {
  const links = linking.structure.tables
    .filter((t) => t.name !== from && reach.has(t.name) && linking.tableCoverage(t.name) > 0)
    .map((t) => {
      const refs = t.foreignKeys.map((f) => f.refTable);
      const end = refs.length === 2 && refs.filter((r) => r === from).length === 1 ? refs.find((r) => r !== from)! : null;
      return { table: t.name, end };
    })
    .filter((x): x is { table: string; end: string } => x.end !== null && reach.has(x.end));
  return links.sort((a, b) => linking.tableCoverage(b.table) - linking.tableCoverage(a.table))[0] ?? null;
}

// ---------------------------------------------------------------------------------------------
// What the aggregates already say

/** Question words an aggregate accounts for ("average age": both), so the projection does not show them again. */
function aggregateWords(aggregates: SqlAggregate[], positions: PositionedTerm[], linking: SchemaLinking): Set<number> {
  const taken = new Set<number>();
  for (const a of aggregates) {
    if (a.at === undefined || a.at < 0) continue;
    const index = positions.findIndex((w) => w.at >= a.at!);
    if (index < 0) continue;
    const wanted = a.column ? a.column.ownTerms : a.countOf ? (linking.tableTerms.get(a.countOf) ?? []) : [];
    let last = index;
    for (let i = index; i < Math.min(positions.length, index + 7); i++) if (wanted.includes(positions[i].term)) last = i;
    for (let i = index; i <= last; i++) taken.add(positions[i].at);
  }
  return taken;
}

// ---------------------------------------------------------------------------------------------
// Conditions on counts: HAVING

/**
 * "Which grades have 4 or more high schoolers?", "conductors who conducted more than one orchestra":
 * a count condition whose noun names a table is a HAVING on the number of that table's rows per group.
 */
function pickHaving(
  constructs: Constructs,
  linking: SchemaLinking,
  reach: Set<string>,
  notes: string[],
): { having: SqlHaving; at: number; end: number }[] {
  const out: { having: SqlHaving; at: number; end: number }[] = [];
  for (const c of constructs.counts) {
    const nounWords = c.noun.split(/\s+/);
    // The longest leading part of the noun phrase that names a reachable table ("high schoolers", "orchestra").
    let table: string | null = null;
    for (let n = nounWords.length; n >= 1 && !table; n--) {
      const words = nounWords.slice(0, n).join(" ");
      table = [...reach].find((t) => namesTable(linking, t, words)) ?? null;
      if (!table) table = [...reach].find((t) => namesTable(linking, t, nounWords.slice(nounWords.length - n).join(" "))) ?? null;
    }
    // "ordered more than 100 times": the occurrences are rows of the table the question's verb names (not the answer's own).
    if (!table && /^times?$/i.test(nounWords[0] ?? "")) {
      const named = [...reach].filter((t) => t !== linking.root && linking.tableCoverage(t) > 0);
      table = named.sort((a, b) => linking.tableCoverage(b) - linking.tableCoverage(a))[0] ?? null;
    }
    if (!table) continue;
    out.push({
      having: { aggregate: { fn: "count", column: null, countOf: table }, op: c.op, value: c.value },
      at: c.at,
      end: c.at + c.text.length,
    });
    notes.push(`"${c.text}" → HAVING the number of ${table} rows ${c.op} ${c.value}`);
  }
  return out;
}

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
function connectiveBetween(constructs: Constructs, from: number, to: number): Constructs["connectives"][number]["kind"] | null {
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
function applyConnectives(p: SqlPicks, constructs: Constructs, question: string, notes: string[]): SqlPicks {
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
function pickAntiJoins(
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

// ---------------------------------------------------------------------------------------------
// Yes/no properties: "discontinued products", "products that are not discontinued"

const BOOLEAN_TYPE = /bool/i;

function pickFlags(
  question: string,
  linking: SchemaLinking,
  tables: string[],
  positions: PositionedTerm[],
): { column: ColumnFacts; value: boolean }[] {
  const out: { column: ColumnFacts; value: boolean }[] = [];
  for (const c of columnsOf(linking, tables)) {
    if (!BOOLEAN_TYPE.test(c.type)) continue;
    const hits = positions.filter((w) => c.ownTerms.includes(w.term));
    if (hits.length === 0 || new Set(hits.map((h) => h.term)).size < c.ownTerms.length) continue;
    const at = hits[0].at;
    const before = question.slice(Math.max(0, at - 24), at);
    out.push({ column: c, value: !/\b(?:not|no|non|never|n't|un)\b[\s-]*(?:\w+\s+)?$/i.test(before) });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Existence: "any", "some", "at least one"

const EXISTS = /\b(?:any|some|at\s+least\s+one)\s+([\p{L}_]+(?:\s+[\p{L}_]+)?)/giu;

/** Tables the question says the answer rows have some of ("went through any treatments"), outside the ask and not negated. */
function existenceTables(question: string, linking: SchemaLinking, reach: Set<string>, constructs: Constructs): string[] {
  const out: string[] = [];
  for (const m of question.matchAll(EXISTS)) {
    const at = m.index ?? 0;
    if (constructs.ask && at >= constructs.ask.start && at < constructs.ask.end) continue;
    if (/\b(?:no|not|without|never|n't)\s+(?:\w+\s+){0,2}$/i.test(question.slice(Math.max(0, at - 30), at))) continue;
    const words = m[1].split(/\s+/);
    const table = [...reach].find((t) => t !== linking.root && (namesTable(linking, t, m[1]) || namesTable(linking, t, words[0])));
    if (table) out.push(table);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------

export function pickSql(intent: Intent, linking: SchemaLinking, adj: Adjustments): SqlPicks {
  const constructs = constructsOf(intent);
  const notes: string[] = [];
  const unresolved: string[] = [];
  const positions = positionedTerms(intent.completed);
  const reach = connected(linking);
  const tables = relevantTables(linking, reach);
  const root = linking.root;
  const values: SqlValueFilter[] = linking.values
    .filter((v) => reach.has(v.column.table))
    .map((v) => ({ ...v, negated: isNegated(intent.completed, v.entity.mention, adj.widerNegation) }));
  for (const v of values) notes.push(`linked "${v.entity.mention}" to ${label(v.column)} ${v.negated ? "<>" : "="} '${v.value}'`);
  const lookups = pickLookups(intent, linking, tables, positions, notes);
  const havingFound = adj.relax ? [] : pickHaving(constructs, linking, reach, notes);
  const numeric = (adj.relax ? [] : pickNumericFilters(intent, linking, tables, positions, notes)).filter(
    (n) => !havingFound.some((h) => (n.at ?? -1) < h.end && (n.end ?? n.at ?? -1) > h.at),
  );
  const negations = pickNegations(intent, linking, notes);
  const absent = pickAbsent(intent.completed, linking, reach, notes);

  let aggregates = pickAggregates(intent, linking, tables, reach, positions, notes);
  const explicit = explicitOrder(intent, linking, tables);
  // "ordered by age from the oldest to the youngest" lists every row: the sort wins over the superlative.
  // "the top 5 products", "the first 3 orders": how many to list, not a ranking, unless a ranking word says by what.
  const listLimit = constructs.limit;
  const ranked = RANKING.test(intent.completed.replace(/\b(?:top|first)\b/gi, ""));
  const superlative = explicit || (listLimit !== null && !ranked && !intent.superlative?.attribute) ? null : intent.superlative;
  let groupBy = pickGrouping(
    intent,
    linking,
    reach,
    aggregates.length > 0 || superlative !== null || havingFound.length > 0 || adj.looserGrouping,
    adj.looserGrouping,
  );
  if (aggregates.length === 0 && havingFound.length === 0) groupBy = [];
  const extraTables: string[] = [];
  let order: SqlOrdering | null = null;
  let top: SqlTopRestriction | null = null;
  /** The aggregate a superlative ranks by (a count per group), not shown unless asked. */
  let rankedBy: SqlAggregate | null = null;

  if (superlative) {
    const measurable = columnsOf(linking, nearTables(linking, tables)).filter((c) => (c.numeric || c.dateLike || c.yearLike) && !c.key);
    const counted = countedBySuperlative(intent, linking, reach, measurable);
    const choice = counted
      ? null
      : chooseSuperlativeAttribute(
          superlative,
          measurable.map((c) => ({ item: c, terms: c.terms })),
          linking.bag,
          intent.completed,
        );
    const direction = (max: boolean) => (max ? "DESC" : "ASC");
    // "the maximum accelerate (for each number of cylinders)": the superlative word is the aggregate itself
    // when nothing else about the extreme row is asked.
    const same = choice ? aggregates.find((a) => a.column === choice.item && (a.fn === "max" || a.fn === "min")) : undefined;
    const preliminary = askedProjection(
      intent.completed,
      linking,
      constructs.ask,
      positions,
      reach,
      aggregateWords(aggregates, positions, linking),
    );
    const otherAsked = (preliminary?.columns ?? []).filter(
      (a) => a.column !== choice?.item && !aggregates.some((g) => g.column === a.column),
    );
    // "the suppliers with the highest average unit price": groups of another table's rows, ranked by their aggregate.
    const rankingAggregate = choice ? aggregates.find((a) => a.column === choice.item && a.fn !== "max" && a.fn !== "min") : undefined;
    const rankedEntity = preliminary?.entity ?? root;
    const entityKey = linking.structure.tables.find((t) => t.name === rankedEntity)?.primaryKey ?? [];
    if (choice && same && otherAsked.length === 0) {
      notes.push(`"${superlative.attribute ?? superlative.direction}" is the ${same.fn.toUpperCase()} asked for`);
    } else if (choice && rankingAggregate && rankedEntity !== choice.item.table && entityKey.length === 1 && reach.has(rankedEntity)) {
      groupBy = groupBy.length > 0 ? groupBy : [...identity(linking, rankedEntity)];
      rankedBy = rankingAggregate;
      const descending = choice.direction === "max";
      order = { column: null, aggregate: rankingAggregate, descending, limit: superlative.limit, offset: 0 };
      notes.push(
        `${rankedEntity} ranked by ${rankingAggregate.fn.toUpperCase()}(${label(choice.item)}) ${descending ? "DESC" : "ASC"} LIMIT ${superlative.limit}`,
      );
    } else if (choice) {
      const descending = choice.direction === "max";
      const keyOf = linking.structure.tables.find((t) => t.name === choice.item.table)?.primaryKey ?? [];
      const aggregated = aggregates.filter((a) => !(a.column === choice.item && (a.fn === "max" || a.fn === "min")));
      if (aggregated.length > 0 && keyOf.length === 1) {
        // An aggregate of the superlative's rows: aggregate over the top rows, not order the aggregate.
        aggregates = aggregated;
        top = { column: choice.item, key: keyOf[0], descending, limit: superlative.limit };
        notes.push(
          `over the ${superlative.limit === 1 ? "row" : `${superlative.limit} rows`} with the ${choice.direction === "max" ? "highest" : "lowest"} ${label(choice.item)} (${choice.reason})`,
        );
      } else {
        // "the age of the oldest dog" is the largest age: the top row's value, read from the ordered rows.
        aggregates = aggregated;
        order = { column: choice.item, descending, limit: superlative.limit, offset: 0 };
        notes.push(
          `superlative "${superlative.attribute ?? superlative.direction}" → ORDER BY ${label(choice.item)} ${direction(descending)} LIMIT ${superlative.limit} (${choice.reason})`,
        );
      }
    } else if (counted) {
      const focusColumn = best(
        columnsOf(linking, reach).filter((c) => !c.key),
        (c) => coverage(c.terms, new Set(linking.focus)),
        0.99,
      );
      // Per what: the grouping asked for, else the focus noun's column ("which year…"), else the answer table's rows.
      // "the most common nationality": the rows are grouped by the column the attribute names.
      const attributeTerms = new Set(
        terms(superlative.attribute ?? "").filter((t) => !["common", "frequent", "popular", "usual"].includes(t)),
      );
      const frequencyColumn = FREQUENCY.test(intent.completed)
        ? best(
            columnsOf(linking, [root]).filter((c) => !c.key),
            (c) => coverage(c.ownTerms, attributeTerms),
            0.49,
          )
        : null;
      let keys: ColumnFacts[] = [];
      if (groupBy.length > 0) keys = groupBy;
      else if (frequencyColumn) keys = [frequencyColumn];
      else if (focusColumn && !(root !== counted && namesTable(linking, root, linking.focus.join(" ")))) keys = [focusColumn];
      else if (root !== counted) keys = [...identity(linking, root)];
      // "the top 3 customers by the number of orders": the counted rows drew the answer table to themselves;
      // the groups are the entity the question asks for.
      else if (rankedEntity !== counted && reach.has(rankedEntity)) keys = [...identity(linking, rankedEntity)];
      else {
        // "the top 5 actors by the number of movies they acted in": the ranked rows are the other end of
        // the link table the question's verb names (ACTED_IN between people and movies), though their own
        // noun names no table.
        const link = namedLinkFrom(linking, counted, reach);
        if (link) {
          keys = [...identity(linking, link.end)];
          extraTables.push(link.table);
          notes.push(`ranked rows reached from ${counted} through ${link.table}: ${link.end}`);
        }
      }
      if (keys.length > 0) {
        groupBy = [...new Set(keys)];
        rankedBy = { fn: "count", column: null, countOf: counted };
        aggregates = [rankedBy];
        extraTables.push(counted);
        const descending = superlative.direction === "max" && !/\b(?:fewest|least)\b/i.test(intent.completed);
        order = { column: null, descending, limit: superlative.limit, offset: 0 };
        notes.push(
          `superlative over counts: ${counted} rows per ${groupBy.map(label).join(", ")}, ORDER BY the count ${direction(descending)} LIMIT ${superlative.limit}`,
        );
      }
    }
  }

  const time: SqlTimeFilter[] = [];
  const cues = adj.relax ? [] : periodCues(intent);
  if (cues.length > 0) {
    const at = intent.completed.toLowerCase().indexOf(cues[0].text.toLowerCase());
    const column = pickTimeColumn(linking, tables, reach, positions, at);
    if (column) {
      // Periods joined by "and" on one column are read apart (both 2014 and 2015); "or" and lists stay one alternative.
      const apart =
        cues.length === 2 &&
        connectiveBetween(
          constructs,
          intent.completed.toLowerCase().indexOf(cues[0].text.toLowerCase()),
          intent.completed.toLowerCase().indexOf(cues[1].text.toLowerCase()),
        ) !== "or";
      if (apart) for (const cue of cues) time.push({ column, cues: [cue] });
      else time.push({ column, cues });
      notes.push(`time "${cues.map((c) => c.text).join(", ")}" on ${label(column)}`);
    }
  }
  const ordinal = listLimit !== null && !ranked ? undefined : intent.time.find((c) => c.kind === "ordinal" && c.ordinal !== null);
  if (!order && !top && ordinal?.ordinal) {
    const column = pickTimeColumn(linking, tables, reach, positions, -1);
    if (column) {
      order = { column, descending: ordinal.ordinal < 0, limit: 1, offset: Math.abs(ordinal.ordinal) - 1 };
      notes.push(`ordinal "${ordinal.text}" → ORDER BY ${label(column)} ${ordinal.ordinal < 0 ? "DESC" : "ASC"}`);
    }
  }
  if (!order && explicit) {
    order = { column: explicit.column, descending: explicit.descending, limit: null, offset: 0 };
    notes.push(`ordered by ${label(explicit.column)}${explicit.descending ? " descending" : ""}`);
  }
  // "the top 5 products with a reorder level above 20": "top" with no ranking word ranks by the one
  // attribute the question bounds from below, highest first ("the first 5 …" stays a plain list).
  const lowerBound =
    numeric.length === 1 && (numeric[0].op === ">" || numeric[0].op === ">=") && !numeric[0].withAverage && !numeric[0].negated
      ? numeric[0]
      : null;
  if (
    !order &&
    !top &&
    lowerBound &&
    listLimit !== null &&
    !ranked &&
    TOP.test(intent.completed) &&
    aggregates.length === 0 &&
    havingFound.length === 0
  ) {
    order = { column: lowerBound.column, descending: true, limit: listLimit, offset: 0 };
    notes.push(`"top ${listLimit}" with ${label(lowerBound.column)} bounded below → ORDER BY it DESC LIMIT ${listLimit}`);
  }

  // "dogs that went through any treatments": rows that have at least one related row, through a join.
  for (const t of existenceTables(intent.completed, linking, reach, constructs)) {
    if (!extraTables.includes(t)) extraTables.push(t);
    notes.push(`"any ${t}": only rows with at least one ${t} row`);
  }

  // ---- the answer's projection: exactly what is asked, in question order
  const taken = aggregateWords(aggregates, positions, linking);
  const asked = askedProjection(intent.completed, linking, constructs.ask, positions, reach, taken);
  const askedColumns = (asked?.columns ?? []).map((a) => a.column).filter((c) => !aggregates.some((g) => g.column === c && g !== rankedBy));
  // Bad input: an attribute two tables hold alike, with nothing in the question to tell which (an honest refusal, not a guess).
  for (const a of asked?.ambiguous ?? []) {
    const choices = a.columns.map((c) => label(c));
    unresolved.push(
      `I could not tell which column '${a.words}' refers to: ${choices.slice(0, -1).join(", ")} or ${choices[choices.length - 1]}. Name the ${a.columns
        .map((c) => c.table)
        .slice(0, 2)
        .join(" or ")} you mean.`,
    );
  }
  const entity = asked?.entity ?? root;
  const standIn = () => {
    const c = entityColumn(linking, entity) ?? entityColumn(linking, root);
    return c ? [c] : [];
  };
  const having = havingFound.map((h) => h.having);

  // Counting another table's rows with no grouping asked for: one count per answer row ("singers and their number of concerts").
  const count = aggregates.find((a) => a.fn === "count");
  if (
    groupBy.length === 0 &&
    !top &&
    !rankedBy &&
    count?.countOf &&
    count.countOf !== root &&
    aggregates.length === 1 &&
    askedColumns.some((c) => c.table === root)
  ) {
    groupBy = [...new Set([...identity(linking, root), ...askedColumns.filter((c) => c.table === root)])];
    notes.push(`one count of ${count.countOf} rows per ${root} row`);
  }
  // Asked columns beside an aggregate are what it is computed per ("the different record companies and the corresponding number of orchestras").
  if (groupBy.length === 0 && !top && aggregates.length > 0 && askedColumns.length > 0) {
    groupBy = [...askedColumns];
    notes.push(`grouped by ${askedColumns.map(label).join(", ")}: asked beside the aggregate`);
  }
  if (having.length > 0 && groupBy.length === 0) {
    const counted = having[0].aggregate.countOf;
    if (counted && counted !== root) groupBy = [...identity(linking, root)];
    else if (askedColumns.length > 0) groupBy = [...askedColumns];
    else unresolved.push(`I could not tell what to count ${having[0].aggregate.countOf ?? "rows"} per.`);
    if (groupBy.length > 0) notes.push(`grouped by ${groupBy.map(label).join(", ")} for the count condition`);
  }

  let select: SelectItem[] = [];
  const shownAggregates = aggregates.filter((a) => a !== rankedBy);
  if (shownAggregates.length === 0) {
    // Rows (or groups ranked by a count): the asked attributes, else the entity's name.
    const grouped = () => {
      // Groups ranked by a count: the entity's stand-in when the groups are its rows, else the grouping column.
      const stand = standIn();
      if (stand.length > 0 && groupBy.includes(stand[0])) return stand;
      return groupBy
        .filter((c) => !c.key)
        .slice(0, 1)
        .concat(groupBy.every((c) => c.key) ? groupBy.slice(0, 1) : []);
    };
    const columns = askedColumns.length > 0 ? askedColumns : groupBy.length > 0 && rankedBy ? grouped() : standIn();
    select = columns.map((column) => ({ kind: "column", column }));
  } else {
    const keys = askedColumns.length > 0 ? askedColumns : groupBy.filter((c) => !c.key).slice(0, 1);
    const items: { item: SelectItem; at: number }[] = [
      ...(groupBy.length > 0 ? keys : []).map((column) => ({
        item: { kind: "column", column } as SelectItem,
        at: asked?.columns.find((a) => a.column === column)?.at ?? -1,
      })),
      ...shownAggregates.map((aggregate) => ({
        item: { kind: "aggregate", aggregate } as SelectItem,
        at: aggregate.at ?? Number.MAX_SAFE_INTEGER,
      })),
    ];
    select = items.sort((a, b) => a.at - b.at).map((x) => x.item);
  }
  // Grouped answers show their key: a grouping column the question named outside the ask ("How many singers are from each country?").
  if (groupBy.length > 0 && shownAggregates.length > 0 && !select.some((s) => s.kind === "column")) {
    const key = groupBy.find((c) => !c.key) ?? groupBy[0];
    select.unshift({ kind: "column", column: key });
  }
  // Grouping keys must hold every shown column (a column of the grouped table beside its key).
  if (groupBy.length > 0) for (const s of select) if (s.kind === "column" && !groupBy.includes(s.column)) groupBy = [...groupBy, s.column];

  // The wider context projection (evidence rows), as before: identity, mentioned columns, filters.
  let projection: ColumnFacts[] = [];
  if (aggregates.length === 0) {
    const rootWords = new Set((linking.columns.get(root) ?? []).map((c) => c.ownTerms.join(" ")));
    // Details one foreign key away count when fully named and the answer table has no such column ("birth date of the poker player").
    const mentioned = columnsOf(linking, nearTables(linking, tables))
      .filter((c) => !c.key && linking.columnScore(c) >= MENTIONED)
      .filter(
        (c) =>
          c.table === root || linking.tableCoverage(c.table) > 0 || (linking.columnScore(c) === 1 && !rootWords.has(c.ownTerms.join(" "))),
      )
      .sort((a, b) => linking.columnScore(b) - linking.columnScore(a));
    projection = [...identity(linking, root), ...askedColumns, ...mentioned];
    if (order?.column) projection.push(order.column);
    for (const v of values) projection.push(v.column);
    for (const n of numeric) projection.push(n.column);
    for (const l of lookups) projection.push(l.column);
    projection.push(...answerTypeColumns(intent, linking, projection));
    projection = [...new Set(projection)].slice(0, MAX_PROJECTED);
  }

  const flags = pickFlags(intent.completed, linking, tables, positions);
  for (const f of flags) notes.push(`"${f.column.name}" → ${label(f.column)} = ${f.value}`);
  const ties = constructs.ties && order !== null && order.column !== null && order.limit === 1 && order.offset === 0;
  const rowLimit = listLimit !== null && !(order?.limit ?? null) && shownAggregates.length === 0 ? listLimit : null;
  if (rowLimit !== null) notes.push(`list the first ${rowLimit}`);
  let picks: SqlPicks = {
    root,
    values,
    lookups,
    time,
    numeric,
    negations,
    top,
    aggregates,
    groupBy,
    order,
    projection,
    extraTables,
    via: [],
    containsMatch: adj.relax,
    select,
    having,
    antiJoins: [],
    setOp: null,
    distinct: constructs.distinct && shownAggregates.length === 0,
    ties,
    rowLimit,
    flags,
    absent,
    orGroups: new Map(),
    unresolved,
    notes,
  };
  picks = pickAntiJoins(picks, linking, constructs, intent.completed, notes, adj.widerNegation);
  picks = applyConnectives(picks, constructs, intent.completed, notes);
  return picks;
}

/** Columns the answer type asks for that the projection lacks: a number for "how much", a date for "when". */
function answerTypeColumns(intent: Intent, linking: SchemaLinking, projected: ColumnFacts[]): ColumnFacts[] {
  const root = linking.columns.get(linking.root) ?? [];
  const out: ColumnFacts[] = [];
  const types = new Set(intent.answerTypes);
  if ((types.has("number") || types.has("money") || types.has("percent")) && !projected.some((c) => c.numeric && !c.key)) {
    const column = best(
      root.filter((c) => c.numeric && !c.key),
      linking.columnScore,
    );
    if (column) out.push(column);
  }
  if (types.has("date") && !projected.some((c) => c.dateLike || c.yearLike)) {
    const column = best(
      root.filter((c) => c.dateLike || c.yearLike),
      (c) => 1 + linking.columnScore(c),
    );
    if (column) out.push(column);
  }
  return out;
}

/** Words for aliases and explanations: "list_price" → "list price". */
export function readable(name: string): string {
  return words(name.replace(/([a-z0-9])([A-Z])/g, "$1 $2")).join(" ");
}
