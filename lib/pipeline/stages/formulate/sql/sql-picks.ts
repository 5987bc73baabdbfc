import { terms, words } from "../../../text";
import type { Intent, TimeCue } from "../../../types";
import type { Adjustments } from "../feedback";
import { type AggregateFn, aggregateRequests, BARE_ORDER, chooseSuperlativeAttribute, coverage, groupingTerms, ORDER_BY } from "../lexicon";
import { best, columnsOf, connected, identity, label, MENTIONED, mentionedColumns, namesTable, nearTables, relevantTables } from "./column-choice";
import { isNegated, periodCues, pickLookups, pickNegations, pickNumericFilters, pickTimeColumn } from "./filter-picks";
import { type ComparisonOp, type PositionedTerm, positionedTerms, wordDistance } from "./question-cues";
import type { LinkedValue, SchemaLinking } from "./schema-linking";
import type { ColumnFacts } from "./sql-structure";

/**
 * What one SQL query over the linked schema is made of, decided before any text is written: filters,
 * aggregates, grouping, ordering and the projected columns, each with the reason it was chosen.
 */

export interface SqlAggregate {
  fn: AggregateFn;
  /** Null for a count of rows; for a count with a column, the count of its distinct values. */
  column: ColumnFacts | null;
  /** For counts: the table whose rows are counted ("number of concerts" → concert). */
  countOf?: string;
}

export interface SqlOrdering {
  /** Null orders by the count (a "most orders" superlative over groups). */
  column: ColumnFacts | null;
  descending: boolean;
  limit: number | null;
  offset: number;
}

export interface SqlTimeFilter {
  column: ColumnFacts;
  cues: TimeCue[];
}

export interface SqlNumericFilter {
  column: ColumnFacts;
  op: ComparisonOp;
  values: number[];
  /** Compared with the column's average over its table. */
  withAverage: boolean;
}

/** Answers that have no row in `table` pointing at them ("stadiums without any concert"). */
export interface SqlNegation {
  table: string;
  /** table.columns reference root.refColumns. */
  columns: string[];
  refColumns: string[];
}

/** An aggregate over the top rows of a superlative ("the number of concerts in the stadium with the highest capacity"). */
export interface SqlTopRestriction {
  column: ColumnFacts;
  key: string;
  descending: boolean;
  limit: number;
}

/** A linked value as a filter; negated for "not from Russia", "whose type is not 'Live final'". */
export interface SqlValueFilter extends LinkedValue {
  negated: boolean;
}

export interface SqlPicks {
  root: string;
  values: SqlValueFilter[];
  /** Text looked up in a column (contains-match): quoted phrases, mentions the critic asked to find by name. */
  lookups: { column: ColumnFacts; text: string }[];
  time: SqlTimeFilter[];
  numeric: SqlNumericFilter[];
  negations: SqlNegation[];
  top: SqlTopRestriction | null;
  aggregates: SqlAggregate[];
  groupBy: ColumnFacts[];
  order: SqlOrdering | null;
  projection: ColumnFacts[];
  /** Tables the query needs besides those of the columns above (the counted table of "most orders"). */
  extraTables: string[];
  /** Value filters written as case-insensitive contains-matches (relaxed after an empty result). */
  containsMatch: boolean;
  notes: string[];
}

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

function pickAggregates(intent: Intent, linking: SchemaLinking, tables: string[], reach: Set<string>, positions: PositionedTerm[], notes: string[]): SqlAggregate[] {
  // The measured column may sit one foreign key away ("total quantity of Tents": order_items.quantity for products).
  const measurable = columnsOf(linking, nearTables(linking, tables)).filter((c) => c.numeric && !c.key && linking.columnScore(c) > 0);
  const out: SqlAggregate[] = [];
  for (const request of aggregateRequests(intent)) {
    if (request.fn === "count") {
      const distinct = countedColumn(intent, linking, reach);
      out.push(distinct ? { fn: "count", column: distinct } : { fn: "count", column: null, countOf: countedTable(intent, linking, reach) });
      continue;
    }
    // The measured column is the one named right after the aggregate word ("average age", "total weight").
    const column = best(measurable, (c) => {
      const distance = request.at >= 0 ? wordDistance(positions, request.at, c.ownTerms, 0, 6) : Infinity;
      return linking.columnScore(c) + (Number.isFinite(distance) ? 2 - distance / 10 : 0);
    });
    if (column) out.push({ fn: request.fn, column });
    else notes.push(`no numeric column for ${request.fn.toUpperCase()}: the question names none`);
  }
  return out;
}

/** Grouping: by a table's rows when the words name a table ("for each stadium"), else by the column they name ("per country"). */
function pickGrouping(intent: Intent, linking: SchemaLinking, reach: Set<string>, wanted: boolean): ColumnFacts[] {
  const groupTerms = groupingTerms(intent, wanted);
  if (!groupTerms || groupTerms.length === 0) return [];
  const bag = new Set(groupTerms);
  const reachable = [linking.root, ...[...reach].filter((t) => t !== linking.root)];
  const table = reachable.find((t) => namesTable(linking, t, groupTerms.join(" ")));
  if (table) return [...new Set([...identity(linking, table), ...mentionedColumns(linking, table)])];
  // A key column groups too when its words besides "id" are the grouping words ("each student" → student_id).
  const column = best(
    columnsOf(linking, reachable),
    (c) => {
      const words = c.key ? c.terms.filter((t) => t !== "id") : c.ownTerms;
      return Math.max(coverage(words, bag), c.key ? 0 : coverage(c.terms, bag)) + (c.nameLike ? 0.01 : 0) - (c.key ? 0.005 : 0);
    },
    0.99,
  );
  return column ? [column] : [];
}

// ---------------------------------------------------------------------------------------------
// Ordering

const DESCENDING = /\bdesc(?:ending)?\b|\bfrom\s+(?:the\s+)?(?:old|high|larg|big|most|great|long)\w*|\bdecreasing\b/i;
/** "the most concerts", "the fewest orders": a superlative over a count of rows. */
const MOST_ROWS = /\b(?:most|fewest|least|greatest\s+number\s+of|largest\s+number\s+of|highest\s+number\s+of|smallest\s+number\s+of)\s+(?:number\s+of\s+)?([\p{L}_]+(?:\s+[\p{L}_]+)?)/iu;
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
  if (!m) return null;
  return [...reach].find((t) => namesTable(linking, t, m[1]) || namesTable(linking, t, m[1].split(/\s+/)[0])) ?? null;
}

// ---------------------------------------------------------------------------------------------

export function pickSql(intent: Intent, linking: SchemaLinking, adj: Adjustments): SqlPicks {
  const notes: string[] = [];
  const positions = positionedTerms(intent.completed);
  const reach = connected(linking);
  const tables = relevantTables(linking, reach);
  const root = linking.root;
  const values = linking.values.filter((v) => reach.has(v.column.table)).map((v) => ({ ...v, negated: isNegated(intent.completed, v.entity.mention) }));
  for (const v of values) notes.push(`linked "${v.entity.mention}" to ${label(v.column)} ${v.negated ? "<>" : "="} '${v.value}'`);
  const lookups = pickLookups(intent, linking, tables, positions, notes);
  const numeric = adj.relax ? [] : pickNumericFilters(intent, linking, tables, positions, notes);
  const negations = pickNegations(intent, linking, notes);

  let aggregates = pickAggregates(intent, linking, tables, reach, positions, notes);
  const explicit = explicitOrder(intent, linking, tables);
  // "ordered by age from the oldest to the youngest" lists every row: the sort wins over the superlative.
  const superlative = explicit ? null : intent.superlative;
  let groupBy = pickGrouping(intent, linking, reach, aggregates.length > 0 || superlative !== null);
  if (aggregates.length === 0) groupBy = [];
  const extraTables: string[] = [];
  let order: SqlOrdering | null = null;
  let top: SqlTopRestriction | null = null;

  if (superlative) {
    const measurable = columnsOf(linking, nearTables(linking, tables)).filter((c) => (c.numeric || c.dateLike || c.yearLike) && !c.key);
    const counted = countedBySuperlative(intent, linking, reach, measurable);
    const choice = counted ? null : chooseSuperlativeAttribute(superlative, measurable.map((c) => ({ item: c, terms: c.terms })), linking.bag, intent.completed);
    const direction = (max: boolean) => (max ? "DESC" : "ASC");
    if (choice) {
      const descending = choice.direction === "max";
      const keyOf = linking.structure.tables.find((t) => t.name === choice.item.table)?.primaryKey ?? [];
      if (aggregates.length > 0 && keyOf.length === 1) {
        // An aggregate of the superlative's rows: aggregate over the top rows, not order the aggregate.
        top = { column: choice.item, key: keyOf[0], descending, limit: superlative.limit };
        notes.push(`over the ${superlative.limit === 1 ? "row" : `${superlative.limit} rows`} with the ${choice.direction === "max" ? "highest" : "lowest"} ${label(choice.item)} (${choice.reason})`);
      } else {
        order = { column: choice.item, descending, limit: superlative.limit, offset: 0 };
        notes.push(`superlative "${superlative.attribute ?? superlative.direction}" → ORDER BY ${label(choice.item)} ${direction(descending)} LIMIT ${superlative.limit} (${choice.reason})`);
      }
    } else if (counted) {
      const focusColumn = best(
        columnsOf(linking, reach).filter((c) => !c.key),
        (c) => coverage(c.terms, new Set(linking.focus)),
        0.99,
      );
      // Per what: the grouping asked for, else the focus noun's column ("which year…"), else the answer table's rows.
      // "the most common nationality": the rows are grouped by the column the attribute names.
      const attributeTerms = new Set(terms(superlative.attribute ?? "").filter((t) => !["common", "frequent", "popular", "usual"].includes(t)));
      const frequencyColumn = FREQUENCY.test(intent.completed) ? best(columnsOf(linking, [root]).filter((c) => !c.key), (c) => coverage(c.ownTerms, attributeTerms), 0.49) : null;
      let keys: ColumnFacts[] = [];
      if (groupBy.length > 0) keys = groupBy;
      else if (frequencyColumn) keys = [frequencyColumn];
      else if (focusColumn) keys = [focusColumn];
      else if (root !== counted) keys = [...identity(linking, root), ...mentionedColumns(linking, root)];
      if (keys.length > 0) {
        groupBy = [...new Set(keys)];
        aggregates = [{ fn: "count", column: null, countOf: counted }];
        extraTables.push(counted);
        const descending = superlative.direction === "max" && !/\b(?:fewest|least)\b/i.test(intent.completed);
        order = { column: null, descending, limit: superlative.limit, offset: 0 };
        notes.push(`superlative over counts: ${counted} rows per ${groupBy.map(label).join(", ")}, ORDER BY the count ${direction(descending)} LIMIT ${superlative.limit}`);
      }
    }
  }

  // Counting another table's rows with no grouping asked for: one count per answer row ("singers and their number of concerts").
  const count = aggregates.find((a) => a.fn === "count");
  if (groupBy.length === 0 && !top && count?.countOf && count.countOf !== root && aggregates.length === 1 && mentionedColumns(linking, root).length > 0) {
    groupBy = [...new Set([...identity(linking, root), ...mentionedColumns(linking, root)])];
    notes.push(`one count of ${count.countOf} rows per ${root} row`);
  }

  const time: SqlTimeFilter[] = [];
  const cues = adj.relax ? [] : periodCues(intent);
  if (cues.length > 0) {
    const at = intent.completed.toLowerCase().indexOf(cues[0].text.toLowerCase());
    const column = pickTimeColumn(linking, tables, reach, positions, at);
    if (column) {
      time.push({ column, cues });
      notes.push(`time "${cues.map((c) => c.text).join(", ")}" on ${label(column)}`);
    }
  }
  const ordinal = intent.time.find((c) => c.kind === "ordinal" && c.ordinal !== null);
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

  let projection: ColumnFacts[] = [];
  if (aggregates.length === 0) {
    const rootWords = new Set((linking.columns.get(root) ?? []).map((c) => c.ownTerms.join(" ")));
    // Details one foreign key away count when fully named and the answer table has no such column ("birth date of the poker player").
    const mentioned = columnsOf(linking, nearTables(linking, tables))
      .filter((c) => !c.key && linking.columnScore(c) >= MENTIONED)
      .filter((c) => c.table === root || linking.tableCoverage(c.table) > 0 || (linking.columnScore(c) === 1 && !rootWords.has(c.ownTerms.join(" "))))
      .sort((a, b) => linking.columnScore(b) - linking.columnScore(a));
    projection = [...identity(linking, root), ...mentioned];
    if (order?.column) projection.push(order.column);
    for (const v of values) projection.push(v.column);
    for (const n of numeric) projection.push(n.column);
    for (const l of lookups) projection.push(l.column);
    projection.push(...answerTypeColumns(intent, linking, projection));
    projection = [...new Set(projection)].slice(0, MAX_PROJECTED);
  }
  return { root, values, lookups, time, numeric, negations, top, aggregates, groupBy, order, projection, extraTables, containsMatch: adj.relax, notes };
}

/** Columns the answer type asks for that the projection lacks: a number for "how much", a date for "when". */
function answerTypeColumns(intent: Intent, linking: SchemaLinking, projected: ColumnFacts[]): ColumnFacts[] {
  const root = linking.columns.get(linking.root) ?? [];
  const out: ColumnFacts[] = [];
  const types = new Set(intent.answerTypes);
  if ((types.has("number") || types.has("money") || types.has("percent")) && !projected.some((c) => c.numeric && !c.key)) {
    const column = best(root.filter((c) => c.numeric && !c.key), linking.columnScore);
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
