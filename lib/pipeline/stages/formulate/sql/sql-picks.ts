import type { Intent } from "../../../contracts";
import { words } from "../../../text";
import { constructsOf } from "../../understand/constructs";
import type { Adjustments } from "../feedback";
import { connected, relevantTables } from "./column-choice";
import { pickAbsent, pickFlags, pickLookups, pickNegations, pickNumericFilters, pickTimeFilters, pickValueFilters } from "./filter-picks";
import { askedPeriod, completeGrouping, groupByShown, pickAggregates, pickGrouping, pickHaving } from "./group-picks";
import { pickExistence } from "./join-picks";
import { applyConnectives, pickAntiJoins } from "./nesting-picks";
import { orderCues, pickLimits, pickOrder, pickSuperlative } from "./order-picks";
import { positionedTerms } from "./question-cues";
import { pickAsked, pickContextProjection, pickSelectList } from "./select-picks";
import type { PickContext, SchemaLinking, SqlNumericFilter, SqlPicks, SqlPlan, WordedHaving } from "./types";

/**
 * What one SQL query over the linked schema is made of, decided before any text is written (types.ts:
 * SqlPicks): one picker per clause, each with the reason it chose what it did, in this order: the
 * conditions (WHERE, and the count conditions of HAVING), the aggregates and grouping, the superlative,
 * periods, the order, tables that must have related rows, the asked columns, the rest of the grouping,
 * the SELECT list, the context projection, yes/no properties, limits; then anti-joins and set operations
 * over the whole.
 */
/** The HAVING a comparison on a measure column stands for; null for a stored column or a comparison HAVING cannot hold. */
function measureCondition(n: SqlNumericFilter): WordedHaving | null {
  const measure = n.column.measure;
  if (!measure || n.withAverage || n.negated || n.op === "between" || n.values.length !== 1) return null;
  return {
    having: { aggregate: { fn: measure.aggregate, column: n.column }, op: n.op, value: n.values[0] },
    at: n.at ?? -1,
    end: n.end ?? n.at ?? -1,
  };
}

export function pickSql(intent: Intent, linking: SchemaLinking, adj: Adjustments): SqlPicks {
  const ctx = pickContext(intent, linking, adj);
  const { constructs, positions, reach, tables, root, notes, unresolved } = ctx;

  // WHERE; a numeric comparison that words a count condition (HAVING) is the count condition's.
  const values = pickValueFilters(ctx);
  const lookups = pickLookups(intent, linking, tables, positions, notes);
  const havingFound = adj.relax ? [] : pickHaving(constructs, linking, reach, notes);
  const compared = (adj.relax ? [] : pickNumericFilters(intent, linking, tables, positions, notes, reach, unresolved, havingFound)).filter(
    (n) => !havingFound.some((h) => (n.at ?? -1) < h.end && (n.end ?? n.at ?? -1) > h.at),
  );
  // A comparison on an analysts' measure (an aggregate, "sold more than 100 units") holds per answer row: a HAVING.
  const onMeasures = compared.filter((n) => measureCondition(n) !== null);
  for (const n of onMeasures) havingFound.push(measureCondition(n)!);
  const numeric = compared.filter((n) => !onMeasures.includes(n));
  const negations = pickNegations(intent, linking, notes);
  const absent = pickAbsent(constructs.lacked, linking, reach, notes);

  // Aggregates and grouping, then what the superlative makes of them.
  // A measure the question compares is a condition, not also a figure to report.
  const aggregates = pickAggregates(intent, linking, tables, reach, positions, notes).filter(
    (a) => !(a.column?.measure && havingFound.some((h) => h.having.aggregate.column === a.column)),
  );
  const cues = orderCues(ctx);
  const worded = pickGrouping(
    intent,
    linking,
    reach,
    aggregates.length > 0 || cues.superlative !== null || havingFound.length > 0 || adj.looserGrouping,
    adj.looserGrouping,
  );
  const groupBy = worded.length === 0 && cues.superlative ? askedPeriod(linking, reach) : worded;
  if (groupBy.some((c) => c.period))
    notes.push(`grouped by the ${groupBy[0].period!.unit} of ${groupBy[0].table}.${groupBy[0].period!.column}`);
  const plan: SqlPlan = {
    aggregates,
    // A period grouping is asked for itself ("which year had the most orders"); any other waits for an aggregate.
    groupBy: aggregates.length === 0 && havingFound.length === 0 && !groupBy.some((c) => c.period) ? [] : groupBy,
    order: null,
    top: null,
    rankedBy: null,
    extraTables: [],
  };
  if (cues.superlative) pickSuperlative(ctx, cues.superlative, plan);

  const time = pickTimeFilters(ctx);
  plan.order = pickOrder(ctx, cues, plan, numeric, havingFound);
  pickExistence(ctx, plan.extraTables);

  // The answer's projection: exactly what is asked, in question order.
  const { asked, askedColumns } = pickAsked(ctx, plan);
  const having = havingFound.map((h) => h.having);
  completeGrouping(ctx, plan, askedColumns, having);
  const { select, shownAggregates } = pickSelectList(ctx, plan, asked, askedColumns, values);
  plan.groupBy = groupByShown(plan.groupBy, select);
  const projection = pickContextProjection(ctx, plan, askedColumns, { values, numeric, lookups });

  const flags = pickFlags(ctx);
  const { ties, rowLimit } = pickLimits(ctx, cues, plan.order, shownAggregates);
  let picks: SqlPicks = {
    root,
    values,
    lookups,
    time,
    numeric,
    negations,
    top: plan.top,
    aggregates: plan.aggregates,
    groupBy: plan.groupBy,
    order: plan.order,
    projection,
    extraTables: plan.extraTables,
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

function pickContext(intent: Intent, linking: SchemaLinking, adj: Adjustments): PickContext {
  const reach = connected(linking);
  return {
    intent,
    linking,
    adj,
    constructs: constructsOf(intent),
    positions: positionedTerms(intent.completed),
    reach,
    tables: relevantTables(linking, reach),
    root: linking.root,
    notes: [],
    unresolved: [],
  };
}

/** Words for aliases and explanations: "list_price" → "list price". */
export function readable(name: string): string {
  return words(name.replace(/([a-z0-9])([A-Z])/g, "$1 $2")).join(" ");
}
