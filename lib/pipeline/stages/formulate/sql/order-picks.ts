import type { Constructs, Intent } from "../../../contracts";
import { terms } from "../../../text";
import { constructsOf } from "../../understand/constructs";
import { adjectiveSense, chooseSuperlativeAttribute, coverage } from "../lexicon";
import { best, columnsOf, identity, label, namedMeasures, namesTable, nearTables } from "./column-choice";
import { pickTimeColumn } from "./filter-picks";
import { aggregateWords, nounTable } from "./group-picks";
import { askedProjection } from "./projection";
import type { ColumnFacts } from "./sql-structure";
import type { PickContext, SchemaLinking, SqlAggregate, SqlNumericFilter, SqlOrdering, SqlPlan, WordedHaving } from "./types";

/**
 * The ordering side of SQL formulation: superlatives (an ORDER BY … LIMIT, a ranking of groups by an
 * aggregate, an aggregate over the top rows), ordinals, an explicit "ordered by", and how many rows
 * the answer lists.
 */

// ---------------------------------------------------------------------------------------------
// Ordering

function explicitOrder(
  order: Constructs["order"],
  linking: SchemaLinking,
  tables: string[],
): { column: ColumnFacts; descending: boolean } | null {
  const { descending } = order;
  if (order.by !== null) {
    const bag = new Set(terms(order.by));
    const column = best(columnsOf(linking, tables), (c) => coverage(c.ownTerms, bag), 0.49);
    if (column) return { column, descending };
  }
  // "List the earnings … in descending order": the one measurable column the question names.
  if (order.sorted) {
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
  if (constructsOf(intent).order.frequency) return linking.root;
  const noun = constructsOf(intent).countNouns.find((n) => n.kind === "rank")?.noun;
  // "the most expensive charge" ranks by price, not by how many charges: a degree adjective is not a count.
  if (!noun || adjectiveSense(noun.split(/\s+/)[0])) return null;
  const first = noun.split(/\s+/)[0];
  return [...reach].find((t) => namesTable(linking, t, noun) || namesTable(linking, t, first)) ?? nounTable(linking, reach, noun);
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
// What the question says about order

export interface OrderCues {
  /** "ordered by age", "in descending order". */
  explicit: { column: ColumnFacts; descending: boolean } | null;
  /** "the first 3 orders", "top 5 products": how many rows to list. */
  listLimit: number | null;
  /** A ranking word besides "top" / "first" ("most", "highest", "oldest"). */
  ranked: boolean;
  /** The superlative that ranks the rows, if any survives the explicit order and the list limit. */
  superlative: Intent["superlative"];
}

export function orderCues(ctx: PickContext): OrderCues {
  const { intent, linking, tables, constructs } = ctx;
  const explicit = explicitOrder(constructs.order, linking, tables);
  // "ordered by age from the oldest to the youngest" lists every row: the sort wins over the superlative.
  // "the top 5 products", "the first 3 orders": how many to list, not a ranking, unless a ranking word says by what.
  const listLimit = constructs.limit;
  const { ranked } = constructs.order;
  const superlative = explicit || (listLimit !== null && !ranked && !intent.superlative?.attribute) ? null : intent.superlative;
  return { explicit, listLimit, ranked, superlative };
}

// ---------------------------------------------------------------------------------------------
// The superlative

/**
 * What a superlative makes of the plan: the MAX/MIN already asked for, groups ranked by their aggregate,
 * an aggregate over the top rows, the top rows themselves (ORDER BY … LIMIT), or groups ranked by how
 * many rows they count.
 */
export function pickSuperlative(ctx: PickContext, superlative: NonNullable<Intent["superlative"]>, plan: SqlPlan): void {
  const { intent, linking, constructs, positions, reach, tables, root, notes } = ctx;
  const near = columnsOf(linking, nearTables(linking, tables)).filter((c) => (c.numeric || c.dateLike || c.yearLike) && !c.key);
  const measurable = [...new Set([...near, ...namedMeasures(linking, reach)])];
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
  const same = choice ? plan.aggregates.find((a) => a.column === choice.item && (a.fn === "max" || a.fn === "min")) : undefined;
  const preliminary = askedProjection(
    intent.completed,
    linking,
    constructs.ask,
    positions,
    reach,
    aggregateWords(plan.aggregates, positions, linking),
  );
  const otherAsked = (preliminary?.columns ?? []).filter(
    (a) => a.column !== choice?.item && !plan.aggregates.some((g) => g.column === a.column),
  );
  // "the suppliers with the highest average unit price": groups of another table's rows, ranked by their aggregate.
  const rankingAggregate = choice ? plan.aggregates.find((a) => a.column === choice.item && a.fn !== "max" && a.fn !== "min") : undefined;
  const rankedEntity = preliminary?.entity ?? root;
  const entityKey = linking.structure.tables.find((t) => t.name === rankedEntity)?.primaryKey ?? [];
  if (choice && same && otherAsked.length === 0) {
    notes.push(`"${superlative.attribute ?? superlative.direction}" is the ${same.fn.toUpperCase()} asked for`);
  } else if (
    choice &&
    rankingAggregate &&
    // Groups of another table's rows, or the periods asked for ("which month had the highest revenue").
    ((rankedEntity !== choice.item.table && entityKey.length === 1 && reach.has(rankedEntity)) || plan.groupBy.some((c) => c.period))
  ) {
    plan.groupBy = plan.groupBy.length > 0 ? plan.groupBy : [...identity(linking, rankedEntity)];
    plan.rankedBy = rankingAggregate;
    const descending = choice.direction === "max";
    plan.order = { column: null, aggregate: rankingAggregate, descending, limit: superlative.limit, offset: 0 };
    notes.push(
      `${rankedEntity} ranked by ${rankingAggregate.fn.toUpperCase()}(${label(choice.item)}) ${descending ? "DESC" : "ASC"} LIMIT ${superlative.limit}`,
    );
  } else if (choice) {
    const descending = choice.direction === "max";
    const keyOf = linking.structure.tables.find((t) => t.name === choice.item.table)?.primaryKey ?? [];
    const aggregated = plan.aggregates.filter((a) => !(a.column === choice.item && (a.fn === "max" || a.fn === "min")));
    if (aggregated.length > 0 && keyOf.length === 1) {
      // An aggregate of the superlative's rows: aggregate over the top rows, not order the aggregate.
      plan.aggregates = aggregated;
      plan.top = { column: choice.item, key: keyOf[0], descending, limit: superlative.limit };
      notes.push(
        `over the ${superlative.limit === 1 ? "row" : `${superlative.limit} rows`} with the ${choice.direction === "max" ? "highest" : "lowest"} ${label(choice.item)} (${choice.reason})`,
      );
    } else {
      // "the age of the oldest dog" is the largest age: the top row's value, read from the ordered rows.
      plan.aggregates = aggregated;
      plan.order = { column: choice.item, descending, limit: superlative.limit, offset: 0 };
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
    const frequencyColumn = constructs.order.frequency
      ? best(
          columnsOf(linking, [root]).filter((c) => !c.key),
          (c) => coverage(c.ownTerms, attributeTerms),
          0.49,
        )
      : null;
    let keys: ColumnFacts[] = [];
    if (plan.groupBy.length > 0) keys = plan.groupBy;
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
        plan.extraTables.push(link.table);
        notes.push(`ranked rows reached from ${counted} through ${link.table}: ${link.end}`);
      }
    }
    if (keys.length > 0) {
      plan.groupBy = [...new Set(keys)];
      plan.rankedBy = { fn: "count", column: null, countOf: counted };
      plan.aggregates = [plan.rankedBy];
      plan.extraTables.push(counted);
      const descending = superlative.direction === "max" && !constructs.order.fewest;
      plan.order = { column: null, descending, limit: superlative.limit, offset: 0 };
      notes.push(
        `superlative over counts: ${counted} rows per ${plan.groupBy.map(label).join(", ")}, ORDER BY the count ${direction(descending)} LIMIT ${superlative.limit}`,
      );
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Ordinals, an explicit order, "top N"

/** The order when no superlative set one: an ordinal ("the second order"), "ordered by …", or "top N" over a lower bound. */
export function pickOrder(
  ctx: PickContext,
  cues: OrderCues,
  plan: SqlPlan,
  numeric: SqlNumericFilter[],
  having: WordedHaving[],
): SqlOrdering | null {
  const { intent, linking, tables, reach, positions, notes } = ctx;
  const { explicit, listLimit, ranked } = cues;
  let order = plan.order;
  const ordinal = listLimit !== null && !ranked ? undefined : intent.time.find((c) => c.kind === "ordinal" && c.ordinal !== null);
  if (!order && !plan.top && ordinal?.ordinal) {
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
    !plan.top &&
    lowerBound &&
    listLimit !== null &&
    !ranked &&
    ctx.constructs.order.top &&
    plan.aggregates.length === 0 &&
    having.length === 0
  ) {
    order = { column: lowerBound.column, descending: true, limit: listLimit, offset: 0 };
    notes.push(`"top ${listLimit}" with ${label(lowerBound.column)} bounded below → ORDER BY it DESC LIMIT ${listLimit}`);
  }
  return order;
}

/** Ties at the extreme ("which dogs are the oldest") and a plain limit on the rows listed ("the first 3 orders"). */
export function pickLimits(
  ctx: PickContext,
  cues: OrderCues,
  order: SqlOrdering | null,
  shownAggregates: SqlAggregate[],
): { ties: boolean; rowLimit: number | null } {
  const { listLimit } = cues;
  const ties = ctx.constructs.ties && order !== null && order.column !== null && order.limit === 1 && order.offset === 0;
  const rowLimit = listLimit !== null && !(order?.limit ?? null) && shownAggregates.length === 0 ? listLimit : null;
  if (rowLimit !== null) ctx.notes.push(`list the first ${rowLimit}`);
  return { ties, rowLimit };
}
