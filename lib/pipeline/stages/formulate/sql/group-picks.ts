import type { Constructs, Intent } from "../../../contracts";
import { terms } from "../../../text";
import { constructsOf } from "../../understand/constructs";
import { aggregateRequests, coverage, groupingTerms, textTerms } from "../lexicon";
import { best, columnsOf, identity, label, mentionedColumns, namedMeasures, namesTable, nearTables } from "./column-choice";
import { periodGrouping, periodUnitOf } from "./period-columns";
import { type PositionedTerm, wordDistance } from "./question-cues";
import type { ColumnFacts } from "./sql-structure";
import type { PickContext, SchemaLinking, SelectItem, SqlAggregate, SqlHaving, SqlPlan, WordedHaving } from "./types";

/**
 * The aggregation side of SQL formulation: the aggregates asked for, what the answer is grouped by
 * (GROUP BY) and conditions on how many rows a group has (HAVING).
 */

// ---------------------------------------------------------------------------------------------
// Aggregates and grouping

/** The noun after "how many" / "number of" (understand/counted-noun.ts). */
function countedNoun(intent: Intent): string | null {
  return constructsOf(intent).countNouns.find((n) => n.kind === "count")?.noun ?? null;
}

/**
 * The table a count noun names: by its words, else by meaning (noun-tables.ts: "how many films" counts
 * movie rows), among the tables the answer table reaches; null when none.
 */
export function nounTable(linking: SchemaLinking, reach: Set<string>, noun: string): string | null {
  const byWords = [...reach].find((t) => namesTable(linking, t, noun));
  if (byWords) return byWords;
  const byMeaning = linking.nounTables?.[noun];
  return byMeaning && reach.has(byMeaning) ? byMeaning : null;
}

/** The table a count is about: the noun after "how many" / "number of" when it names a table, else the answer table. */
function countedTable(intent: Intent, linking: SchemaLinking, reach: Set<string>): string {
  const noun = countedNoun(intent);
  if (!noun) return linking.root;
  if (coverage(linking.tableTerms.get(linking.root) ?? [], new Set(terms(noun))) > 0) return linking.root;
  return nounTable(linking, reach, noun) ?? linking.root;
}

/** "How many different nationalities…": the counted noun is a column of the answer table, counted by distinct values. */
function countedColumn(intent: Intent, linking: SchemaLinking, reach: Set<string>): ColumnFacts | null {
  const noun = countedNoun(intent);
  if (!noun || [...reach].some((t) => namesTable(linking, t, noun))) return null;
  const bag = new Set(terms(noun));
  return best(
    (linking.columns.get(linking.root) ?? []).filter((c) => !c.key),
    (c) => coverage(c.ownTerms, bag),
    0.99,
  );
}

export function pickAggregates(
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
      // "How many units …" counts what a measure sums ("units sold" = SUM(quantity)): the measure answers (below).
      const counted = countedNoun(intent);
      if (counted && namedMeasures(linking, reach).some((c) => coverage(c.ownTerms, new Set(terms(counted))) > 0)) continue;
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
    // "the highest revenue" of a group ranks groups by the measure's own aggregate (below), not by its largest row.
    if (column?.measure && (request.fn === "max" || request.fn === "min")) continue;
    if (column) out.push({ fn: request.fn, column, at: request.at });
    else notes.push(`no numeric column for ${request.fn.toUpperCase()}: the question names none`);
  }
  // A measure the question names is an aggregate by definition ("revenue" is SUM(quantity * unit_price)):
  // named with no aggregate word of its own, it is its own aggregate, so it is computed per group and
  // ranks groups rather than rows.
  for (const column of namedMeasures(linking, reach)) {
    if (out.some((a) => a.column === column)) continue;
    // At the measure's first word, so the words that name it are not asked for again as columns ("units" is no unit_price).
    const at = positions.find((p) => column.ownTerms.includes(p.term))?.at;
    out.push({ fn: column.measure!.aggregate, column, ...(at !== undefined ? { at } : {}) });
    notes.push(`"${column.name}" is the analysts' measure ${column.measure!.aggregate.toUpperCase()}(…) of ${column.table}`);
  }
  return out;
}

/** Grouping: by a table's rows when the words name a table ("for each stadium"), else by the column they name ("per country"). */
export function pickGrouping(intent: Intent, linking: SchemaLinking, reach: Set<string>, wanted: boolean, looser = false): ColumnFacts[] {
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
  if (column) return [column];
  // "per month", "in each year": the period of the question's date, when no column holds it.
  const unit = periodUnitOf(groupTerms);
  const period = unit ? periodGrouping(linking, reach, unit) : null;
  return period ? [period] : [];
}

/**
 * "Which month had the highest revenue?", "which year had the most orders?": a period asked for as the
 * answer, ranked by a superlative, is what the rows are grouped by (when no column holds it).
 */
export function askedPeriod(linking: SchemaLinking, reach: Set<string>): ColumnFacts[] {
  const unit = linking.focus.length > 0 ? periodUnitOf([linking.focus[0]]) : null;
  const period = unit ? periodGrouping(linking, reach, unit) : null;
  return period ? [period] : [];
}

// ---------------------------------------------------------------------------------------------
// What the aggregates already say

/** Question words an aggregate accounts for ("average age": both), so the projection does not show them again. */
export function aggregateWords(aggregates: SqlAggregate[], positions: PositionedTerm[], linking: SchemaLinking): Set<number> {
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
 * "Which regions have 3 or more warehouses?", "customers who placed more than one order":
 * a count condition whose noun names a table is a HAVING on the number of that table's rows per group.
 */
export function pickHaving(constructs: Constructs, linking: SchemaLinking, reach: Set<string>, notes: string[]): WordedHaving[] {
  const out: WordedHaving[] = [];
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
    if (!table) {
      // "bought more than 40 units": a noun that names an analysts' measure is a condition on that measure per answer row.
      const nounTerms = new Set(textTerms(c.noun));
      const measure = best(
        columnsOf(linking, reach).filter((m) => m.measure),
        (m) => coverage(m.ownTerms, nounTerms),
        0.49,
      );
      if (measure?.measure) {
        out.push({
          having: { aggregate: { fn: measure.measure.aggregate, column: measure }, op: c.op, value: c.value },
          at: c.at,
          end: c.at + c.text.length,
        });
        notes.push(`"${c.text}" → HAVING ${label(measure)} ${c.op} ${c.value}`);
      }
      continue;
    }
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
// The grouping the projection completes

/**
 * Grouping the superlative left open, now that the asked columns are known: one count per answer row,
 * the asked columns beside an aggregate, or the rows a count condition counts per.
 */
export function completeGrouping(ctx: PickContext, plan: SqlPlan, askedColumns: ColumnFacts[], having: SqlHaving[]): void {
  const { linking, root, notes, unresolved } = ctx;
  // Counting another table's rows with no grouping asked for: one count per answer row ("singers and their number of concerts").
  const count = plan.aggregates.find((a) => a.fn === "count");
  if (
    plan.groupBy.length === 0 &&
    !plan.top &&
    !plan.rankedBy &&
    count?.countOf &&
    count.countOf !== root &&
    plan.aggregates.length === 1 &&
    askedColumns.some((c) => c.table === root)
  ) {
    plan.groupBy = [...new Set([...identity(linking, root), ...askedColumns.filter((c) => c.table === root)])];
    notes.push(`one count of ${count.countOf} rows per ${root} row`);
  }
  // Asked columns beside an aggregate are what it is computed per ("the different record companies and the corresponding number of orchestras").
  if (plan.groupBy.length === 0 && !plan.top && plan.aggregates.length > 0 && askedColumns.length > 0) {
    plan.groupBy = [...askedColumns];
    notes.push(`grouped by ${askedColumns.map(label).join(", ")}: asked beside the aggregate`);
  }
  if (having.length > 0 && plan.groupBy.length === 0) {
    // Counted rows, or the rows a measure of another table sums up ("products that sold more than 100 units": order lines).
    const measured = having[0].aggregate.column?.measure ? having[0].aggregate.column.table : undefined;
    const counted = having[0].aggregate.countOf ?? measured;
    if (counted && counted !== root) plan.groupBy = [...identity(linking, root)];
    else if (askedColumns.length > 0) plan.groupBy = [...askedColumns];
    else unresolved.push(`I could not tell what to count ${having[0].aggregate.countOf ?? "rows"} per.`);
    if (plan.groupBy.length > 0) notes.push(`grouped by ${plan.groupBy.map(label).join(", ")} for the count condition`);
  }
}

/** Grouping keys must hold every shown column (a column of the grouped table beside its key). */
export function groupByShown(groupBy: ColumnFacts[], select: SelectItem[]): ColumnFacts[] {
  let keys = groupBy;
  if (keys.length > 0) for (const s of select) if (s.kind === "column" && !keys.includes(s.column)) keys = [...keys, s.column];
  return keys;
}
