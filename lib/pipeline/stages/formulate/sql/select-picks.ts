import type { Intent } from "../../../contracts";
import { best, columnsOf, identity, label, MENTIONED, namesTable, nearTables } from "./column-choice";
import { aggregateWords } from "./group-picks";
import { type AskedProjection, askedProjection, entityColumn } from "./projection";
import type { ColumnFacts } from "./sql-structure";
import type { PickContext, SchemaLinking, SelectItem, SqlAggregate, SqlLookup, SqlNumericFilter, SqlPlan, SqlValueFilter } from "./types";

/**
 * The SELECT side of SQL formulation: exactly what the question asks, in question order (the answer's
 * SELECT list), and the wider projection of evidence rows around it.
 */

const MAX_PROJECTED = 8;

/** The columns the question asks for, besides what the aggregates already say; an attribute two tables hold alike is unresolved. */
export function pickAsked(ctx: PickContext, plan: SqlPlan): { asked: AskedProjection | null; askedColumns: ColumnFacts[] } {
  const { intent, linking, constructs, positions, reach, unresolved } = ctx;
  const taken = aggregateWords(plan.aggregates, positions, linking);
  const asked = askedProjection(intent.completed, linking, constructs.ask, positions, reach, taken);
  const askedColumns = (asked?.columns ?? [])
    .map((a) => a.column)
    .filter((c) => !plan.aggregates.some((g) => g.column === c && g !== plan.rankedBy));
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
  return { asked, askedColumns };
}

/** The columns the filters fix to one value: every answer row holds the same value there. */
export function pinnedColumns(values: SqlValueFilter[]): Set<ColumnFacts> {
  return new Set(values.filter((v) => !v.negated && !v.alternatives?.length).map((v) => v.column));
}

/**
 * Whether the ask names the table in words of its own, outside the values the filters pin: "which orders were
 * returned" does; "which code corresponds to Acme Airlines" names airlines only inside the value.
 */
function askNamesTable(ctx: PickContext, table: string, values: SqlValueFilter[]): boolean {
  const ask = ctx.constructs.ask;
  if (!ask) return false;
  let words = ask.text.toLowerCase();
  for (const v of values) words = words.split(v.entity.mention.toLowerCase()).join(" ");
  return namesTable(ctx.linking, table, words);
}

/** The answer's SELECT list: the asked columns, else the entity's name; aggregates in question order beside their keys. */
export function pickSelectList(
  ctx: PickContext,
  plan: SqlPlan,
  asked: AskedProjection | null,
  askedColumns: ColumnFacts[],
  values: SqlValueFilter[],
): { select: SelectItem[]; shownAggregates: SqlAggregate[] } {
  const { linking, root } = ctx;
  const { groupBy, rankedBy } = plan;
  const entity = asked?.entity ?? root;
  const pinned = pinnedColumns(values);
  const standIn = () => {
    const c = entityColumn(linking, entity) ?? entityColumn(linking, root);
    if (!c || !c.nameStandIn || !pinned.has(c) || asked?.entity !== c.table || !askNamesTable(ctx, c.table, values)) return c ? [c] : [];
    // A table without a name stands in its first text column (sql-structure.ts); when a filter fixes that
    // column to one value and the ask names the table itself ("which orders were returned": the status),
    // that column cannot tell the rows apart: what identifies them does. When the ask names no table of its
    // own, the question wants an attribute of what the value names ("how is <airline> abbreviated") that
    // nothing linked: the id would answer it wrongly, so the query stays no answer (formulate-sql.ts
    // tautological), as it does for a real name fixed by the question.
    return [identity(linking, c.table).find((x) => !pinned.has(x)) ?? c];
  };
  let select: SelectItem[] = [];
  const shownAggregates = plan.aggregates.filter((a) => a !== rankedBy);
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
  // Grouped answers show their key: a grouping column the question named outside the ask ("How many suppliers are based in each country?").
  if (groupBy.length > 0 && shownAggregates.length > 0 && !select.some((s) => s.kind === "column")) {
    const key = groupBy.find((c) => !c.key) ?? groupBy[0];
    select.unshift({ kind: "column", column: key });
  }
  return { select, shownAggregates };
}

/** The wider context projection (evidence rows): identity, mentioned columns, filters. Empty for an aggregate. */
export function pickContextProjection(
  ctx: PickContext,
  plan: SqlPlan,
  askedColumns: ColumnFacts[],
  filters: { values: SqlValueFilter[]; numeric: SqlNumericFilter[]; lookups: SqlLookup[] },
): ColumnFacts[] {
  const { intent, linking, tables, root } = ctx;
  let projection: ColumnFacts[] = [];
  if (plan.aggregates.length === 0) {
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
    if (plan.order?.column) projection.push(plan.order.column);
    for (const v of filters.values) projection.push(v.column);
    for (const n of filters.numeric) projection.push(n.column);
    for (const l of filters.lookups) projection.push(l.column);
    projection.push(...answerTypeColumns(intent, linking, projection));
    projection = [...new Set(projection)].slice(0, MAX_PROJECTED);
  }
  return projection;
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
