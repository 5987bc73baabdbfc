import { constructsOf } from "../../understand/constructs";
import { checkSqlSafety } from "../../../../backends/sql";
import { terms } from "../../../text";
import { questionCoverage } from "../coverage";
import { namedValues } from "./named-values";
import type { Candidate, FormulatedQuery, Intent, QueryFit } from "../../../contracts";
import type { Adjustments } from "../feedback";
import { linkSchema } from "./schema-linking";
import { type SchemaLinking, type SqlPicks } from "./types";
import { identity } from "./column-choice";
import { pickSql } from "./sql-picks";
import { pinnedColumns } from "./select-picks";
import { renderSql } from "./render-sql";
import type { SqlStructure } from "./sql-structure";

/** Rows returned by row queries: enough evidence for a list answer, few enough to pool quickly. */
export const SQL_ROW_LIMIT = 50;
/** A superlative's context query shows this many leading rows, so ties and runners-up are visible. */
const SUPERLATIVE_CONTEXT = 10;

interface Variant {
  picks: SqlPicks;
  why: string;
  /** The variant that renders the whole question (its result is the answer). */
  answers?: boolean;
}

/** The rows an aggregate is computed from, with what identifies them: evidence the critic can check. */
function rowsBehind(linking: SchemaLinking, p: SqlPicks): SqlPicks {
  const measured = p.aggregates.flatMap((a) => (a.column ? [a.column] : []));
  const counted = p.aggregates.find((a) => a.countOf && a.countOf !== p.root)?.countOf;
  const projection = [
    ...identity(linking, p.root),
    ...(counted ? identity(linking, counted) : []),
    ...measured,
    ...p.values.map((v) => v.column),
    ...p.time.map((t) => t.column),
  ];
  return {
    ...p,
    aggregates: [],
    groupBy: [],
    having: [],
    order: null,
    select: null,
    setOp: null,
    ties: false,
    projection: [...new Set(projection)],
    extraTables: counted ? [...p.extraTables, counted] : p.extraTables,
  };
}

/** Without the value filters: a count per value for an aggregate, else the rows with the value's column shown. */
function withoutValues(p: SqlPicks): SqlPicks {
  const valueColumns = p.values.map((v) => v.column);
  const singleAggregate = p.aggregates.length > 0 && p.groupBy.length === 0;
  return {
    ...p,
    values: [],
    select: null,
    setOp: null,
    groupBy: singleAggregate ? valueColumns : p.groupBy,
    projection: [...new Set([...p.projection, ...valueColumns])],
  };
}

/** The answer would only repeat what the question names: every shown column is one the query filters to a single value. */
export function tautological(p: SqlPicks): boolean {
  const pinned = pinnedColumns(p.values);
  const shown = p.select ?? [];
  return shown.length > 0 && shown.every((s) => s.kind === "column" && pinned.has(s.column));
}

function variantsOf(linking: SchemaLinking, picks: SqlPicks): Variant[] {
  const variants: Variant[] = [
    {
      picks,
      answers: !tautological(picks),
      why:
        picks.containsMatch && picks.values.length > 0
          ? "the question as asked, values matched loosely after an empty result"
          : "the question as asked",
    },
  ];
  const context: SqlPicks = { ...picks, select: null, setOp: null, ties: false };
  const singleAggregate = picks.aggregates.length > 0 && picks.groupBy.length === 0;
  if (singleAggregate) variants.push({ picks: rowsBehind(linking, picks), why: "the rows behind the aggregate" });
  else if (picks.order && picks.order.limit !== null && picks.order.limit < SUPERLATIVE_CONTEXT) {
    variants.push({
      picks: { ...context, order: { ...picks.order, limit: SUPERLATIVE_CONTEXT } },
      why: `the top ${SUPERLATIVE_CONTEXT} rows, to show ties and runners-up`,
    });
  } else if (picks.aggregates.length === 0) variants.push({ picks: context, why: "the matching rows with what identifies them" });
  // Rows without the filter only help an aggregate (one count per value shows where the value really is)
  // or a run whose filtered query came back empty; otherwise they are noise in the pool.
  if (picks.values.length > 0 && (singleAggregate || picks.containsMatch)) {
    variants.push({
      picks: withoutValues(picks),
      why: singleAggregate
        ? "without the value filter, per value (in case the value was linked to the wrong column)"
        : "without the value filter",
    });
  }
  return variants;
}

const NEGATION_WORDS = /\b(?:not|never|no|without|lack|lacks|missing|any)\b/gi;

/**
 * What of the question the answer query represents: which named values it filters on and which it
 * could not use (no link into this KB, or a link into a table no join reaches), and what the
 * construct rules could not represent.
 */
export function fitOf(intent: Intent, candidate: Candidate, linking: SchemaLinking, picks: SqlPicks, tables: string[]): QueryFit {
  const quoted = new Set(constructsOf(intent).quoted.map((q) => q.text.toLowerCase()));
  const filtered = new Set([
    ...allValues(picks).flatMap((v) => [v.entity.mention, ...(v.alternativeMentions ?? [])].map((m) => m.toLowerCase())),
    ...allLookups(picks).map((l) => l.text.toLowerCase()),
  ]);
  const valuesUsed: string[] = [];
  const valuesMissed: string[] = [];
  for (const { entity: e } of namedValues(intent, candidate.kbId)) {
    if (filtered.has(e.mention.toLowerCase())) valuesUsed.push(e.mention);
    else valuesMissed.push(e.mention);
  }
  for (const q of quoted) if (filtered.has(q) && !valuesUsed.some((v) => v.toLowerCase() === q)) valuesUsed.push(q);
  // The tables a negation excludes rows of and the negation word itself are represented too ("never reviewed a movie").
  const negationTables = picks.negations.flatMap((n) => [
    n.table,
    ...(linking.structure.tables.find((t) => t.name === n.table)?.foreignKeys.map((f) => f.refTable) ?? []),
  ]);
  const negationWords =
    negationTables.length + picks.absent.length + picks.antiJoins.length > 0
      ? [...intent.completed.matchAll(NEGATION_WORDS)].map((m) => m[0].toLowerCase())
      : [];
  const noted = (t: string) => linking.structure.tables.find((x) => x.name === t)?.columns.flatMap((c) => c.synonyms ?? []) ?? [];
  const schemaWords = [
    ...[...tables, ...negationTables].flatMap((t) => [
      ...(linking.tableTerms.get(t) ?? []),
      ...(linking.columns.get(t) ?? []).flatMap((c) => c.terms),
      // The analysts' words for its columns (table-notes.ts) name them too.
      ...terms(noted(t).join(" ")),
    ]),
    // A period grouped by ("each year") is named by its unit.
    ...picks.groupBy.filter((c) => c.period).flatMap((c) => c.terms),
  ];
  const valueWords = [
    ...allValues(picks).flatMap((v) => [v.entity.mention, v.value, ...(v.alternatives ?? []), ...(v.alternativeMentions ?? [])]),
    ...allLookups(picks).map((l) => l.text),
    ...intent.time.map((t) => t.text),
  ];
  const { coverage, uncovered } = questionCoverage(intent.completed, [
    ...schemaWords,
    ...terms(valueWords.join(" ")),
    ...terms(negationWords.join(" ")),
  ]);
  const valuesGuessed = allLookups(picks)
    .filter((l) => l.guessed)
    .map((l) => l.text);
  const linked = new Set(allValues(picks).flatMap((v) => [v.entity.mention, ...(v.alternativeMentions ?? [])].map((m) => m.toLowerCase())));
  const valuesLookedUp = valuesUsed.filter((v) => !linked.has(v.toLowerCase()));
  return {
    valuesUsed,
    valuesMissed,
    ...(valuesGuessed.length ? { valuesGuessed } : {}),
    ...(valuesLookedUp.length ? { valuesLookedUp } : {}),
    unresolved: [...picks.unresolved],
    coverage,
    uncovered,
  };
}

/** Value filters of the picks and of what they combine with (set operations, anti-joins). */
function allValues(p: SqlPicks): SqlPicks["values"] {
  return [...p.values, ...(p.setOp ? allValues(p.setOp.right) : []), ...p.antiJoins.flatMap((a) => allValues(a.picks))];
}

function allLookups(p: SqlPicks): SqlPicks["lookups"] {
  return [...p.lookups, ...(p.setOp ? allLookups(p.setOp.right) : []), ...p.antiJoins.flatMap((a) => allLookups(a.picks))];
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
  let fit: QueryFit | null = null;
  for (const variant of variantsOf(linking, picks)) {
    if (queries.length >= max) break;
    // An answer query is not paged: the backend's answer row cap bounds it (PipelineConfig.answerRowCap).
    if (variant.answers && page > 0) continue;
    const rendered = renderSql(linking, variant.picks, { rowLimit: variant.answers ? null : SQL_ROW_LIMIT, page });
    if (variant.answers) fit = fitOf(intent, candidate, linking, picks, rendered.tables);
    if (seen.has(rendered.text)) continue;
    seen.add(rendered.text);
    try {
      await checkSqlSafety(rendered.text, structure.dialect);
    } catch (e) {
      notes.push(`a formulated SQL query was dropped: ${(e as Error).message}`);
      continue;
    }
    const parts = [...variant.picks.notes, rendered.joins.length > 0 ? `joined ${rendered.joins.join(", ")}` : "", ...adj.notes].filter(
      Boolean,
    );
    queries.push({
      kbId: candidate.kbId,
      kbName: candidate.kbName,
      kind: candidate.kind,
      query: { language: "sql", text: rendered.text },
      strategy: "schema-linking",
      sourceObject: picks.root,
      explanation: `Schema linking on ${picks.root} (${variant.why})${parts.length > 0 ? `: ${parts.join("; ")}` : ""}.`,
      ...(variant.answers && fit ? { role: "answer" as const, fit, grouped: rendered.grouped } : { role: "context" as const }),
    });
  }
  return { queries, notes };
}
