import { checkSqlSafety } from "../../../../backends/sql";
import type { Candidate, FormulatedQuery, Intent } from "../../../types";
import type { Adjustments } from "../feedback";
import { linkSchema, type SchemaLinking } from "./schema-linking";
import { identity } from "./column-choice";
import { pickSql, type SqlPicks } from "./sql-picks";
import { renderSql } from "./render-sql";
import type { SqlStructure } from "./sql-structure";

/** Rows returned by row queries: enough evidence for a list answer, few enough to pool quickly. */
export const SQL_ROW_LIMIT = 50;
/** A superlative's context query shows this many leading rows, so ties and runners-up are visible. */
const SUPERLATIVE_CONTEXT = 10;

interface Variant {
  picks: SqlPicks;
  why: string;
}

/** The rows an aggregate is computed from, with what identifies them: evidence the critic can check. */
function rowsBehind(linking: SchemaLinking, p: SqlPicks): SqlPicks {
  const measured = p.aggregates.flatMap((a) => (a.column ? [a.column] : []));
  const counted = p.aggregates.find((a) => a.countOf && a.countOf !== p.root)?.countOf;
  const projection = [...identity(linking, p.root), ...(counted ? identity(linking, counted) : []), ...measured, ...p.values.map((v) => v.column), ...p.time.map((t) => t.column)];
  return { ...p, aggregates: [], groupBy: [], order: null, projection: [...new Set(projection)], extraTables: counted ? [...p.extraTables, counted] : p.extraTables };
}

/** Without the value filters: a count per value for an aggregate, else the rows with the value's column shown. */
function withoutValues(p: SqlPicks): SqlPicks {
  const valueColumns = p.values.map((v) => v.column);
  const singleAggregate = p.aggregates.length > 0 && p.groupBy.length === 0;
  return {
    ...p,
    values: [],
    groupBy: singleAggregate ? valueColumns : p.groupBy,
    projection: [...new Set([...p.projection, ...valueColumns])],
  };
}

function variantsOf(linking: SchemaLinking, picks: SqlPicks): Variant[] {
  const variants: Variant[] = [{ picks, why: picks.containsMatch && picks.values.length > 0 ? "values matched loosely after an empty result" : "best reading" }];
  const singleAggregate = picks.aggregates.length > 0 && picks.groupBy.length === 0;
  if (singleAggregate) variants.push({ picks: rowsBehind(linking, picks), why: "the rows behind the aggregate" });
  else if (picks.order && picks.order.limit !== null && picks.order.limit < SUPERLATIVE_CONTEXT) {
    variants.push({ picks: { ...picks, order: { ...picks.order, limit: SUPERLATIVE_CONTEXT } }, why: `the top ${SUPERLATIVE_CONTEXT} rows, to show ties and runners-up` });
  }
  // Rows without the filter only help an aggregate (one count per value shows where the value really is)
  // or a run whose filtered query came back empty; otherwise they are noise in the pool.
  if (picks.values.length > 0 && (singleAggregate || picks.containsMatch)) {
    variants.push({
      picks: withoutValues(picks),
      why: singleAggregate ? "without the value filter, per value (in case the value was linked to the wrong column)" : "without the value filter",
    });
  }
  return variants;
}

/**
 * SQL schema linking for one candidate: 1–`max` SELECTs, best first. Every text passes the backend's
 * safety check here already, so a formulation bug shows up as a missing query with a note, never as a
 * refused execution.
 */
export async function formulateSql(
  intent: Intent,
  candidate: Candidate,
  structure: SqlStructure,
  adj: Adjustments,
  max: number,
  page: number,
): Promise<{ queries: FormulatedQuery[]; notes: string[] }> {
  const notes: string[] = [];
  if (structure.tables.length === 0) return { queries: [], notes: [`${candidate.kbName} has no tables`] };
  const linking = linkSchema(structure, intent, candidate, adj);
  const picks = pickSql(intent, linking, adj);
  const seen = new Set<string>();
  const queries: FormulatedQuery[] = [];
  for (const variant of variantsOf(linking, picks)) {
    if (queries.length >= max) break;
    const rendered = renderSql(linking, variant.picks, { rowLimit: SQL_ROW_LIMIT, page });
    if (seen.has(rendered.text)) continue;
    seen.add(rendered.text);
    try {
      await checkSqlSafety(rendered.text, structure.dialect);
    } catch (e) {
      notes.push(`a formulated SQL query was dropped: ${(e as Error).message}`);
      continue;
    }
    const parts = [...variant.picks.notes, rendered.joins.length > 0 ? `joined ${rendered.joins.join(", ")}` : "", ...adj.notes].filter(Boolean);
    queries.push({
      kbId: candidate.kbId,
      kbName: candidate.kbName,
      kind: candidate.kind,
      query: { language: "sql", text: rendered.text },
      strategy: "schema-linking",
      sourceObject: picks.root,
      explanation: `Schema linking on ${picks.root} (${variant.why})${parts.length > 0 ? `: ${parts.join("; ")}` : ""}.`,
    });
  }
  return { queries, notes };
}
