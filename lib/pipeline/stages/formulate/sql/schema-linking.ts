import { namedValues } from "./named-values";
import type { EntityLink, Intent } from "../../../contracts";
import { terms } from "../../../text";
import type { Adjustments } from "../feedback";
import { resolveEntities } from "../entities";
import { coverage, focusTerms, identifierTerms, questionTerms } from "../lexicon";
import { MENTIONED } from "./column-choice";
import { columnKey } from "./column-meaning";
import { type PositionedTerm, positionedTerms } from "./question-cues";
import { type ColumnFacts, columnFacts, type SqlStructure } from "./sql-structure";
import type { LinkedValue, LinkingCandidate, SchemaLinking } from "./types";

/**
 * Schema linking for SQL (the classical half of text-to-SQL): question terms against table and column
 * names, value links from the KB's entity index against cell values, and the question's focus noun
 * against table names, giving each table and column a score and picking the answer table. With a
 * sentence embedder, closeness in meaning (tables: source selection's; columns: column-meaning.ts)
 * ranks what no word of the question names.
 */

/** Splits an SQL entity-index ref "table.column=value" (sql/entity-index.ts) against the known tables. */
export function parseValueRef(ref: string, structure: SqlStructure): { table: string; column: string; value: string } | null {
  const eq = ref.indexOf("=");
  if (eq < 0) return null;
  const left = ref.slice(0, eq);
  const value = ref.slice(eq + 1);
  // Longest table name first: "order" must not claim "order.items.sku" when "order.items" exists.
  const tables = [...structure.tables].sort((a, b) => b.name.length - a.name.length);
  for (const t of tables) {
    if (!left.startsWith(`${t.name}.`)) continue;
    const column = left.slice(t.name.length + 1);
    if (t.columns.some((c) => c.name === column)) return { table: t.name, column, value };
  }
  return null;
}

/** "table.column" refs of column links. */
function parseColumnRef(ref: string, structure: SqlStructure): { table: string; column: string } | null {
  for (const t of structure.tables) {
    if (!ref.startsWith(`${t.name}.`)) continue;
    const column = ref.slice(t.name.length + 1);
    if (t.columns.some((c) => c.name === column)) return { table: t.name, column };
  }
  return null;
}

const WEIGHTS = {
  /** The focus noun names the table: "How many singers…" is about singer rows. */
  focus: 1,
  /** Each linked value lives in the table. */
  value: 0.75,
  /** The best column of the table is named by the question. */
  column: 0.3,
  /** Source selection matched the table as a source object. */
  selected: 0.3,
  /** The understand stage linked a mention to the table itself. */
  tableLink: 0.5,
  /**
   * The table is close in meaning to the question (source selection's embedding similarity, 0..1):
   * "clients" for a customer table. Half a focus match at most: it ranks tables no word names, it
   * does not overrule one the question names.
   */
  meaning: 0.5,
  /**
   * A column close in meaning to the question (column-meaning.ts, 0..1) scores at most this: below
   * MENTIONED (column-choice.ts, 0.5), so it ranks columns no word names ("How old" → age) but never
   * makes one "asked for", and a column the question names by half its words or more stays ahead.
   * Only in tables none of whose attributes the question names by words.
   */
  columnMeaning: 0.45,
  /**
   * Among a mention's equally plausible value links, the column the words beside the mention name
   * (0..1, VALUE_CONTEXT words either side), else the column close in meaning, holds the value:
   * "flights with source airport AHD" is a SourceAirport, not a DestAirport of the same table; in "the
   * city and country of the Alton airport" Alton is an airport name, though the question names the city
   * column too. Small: which table the question is about decides first.
   */
  valueColumn: 0.1,
  /** Each distinct question word the table's columns hold (up to MAX_COVERED_TERMS). */
  coveredTerm: 0.15,
};
const MAX_COVERED_TERMS = 4;
/** Words either side of a value mention that describe it ("source airport AHD", "the Alton airport"). */
const VALUE_CONTEXT = 3;

/** How completely the words beside a mention name the column (0..1); 0 for a mention carried over from an earlier turn. */
function namedBeside(words: PositionedTerm[], span: [number, number] | null, column: ColumnFacts): number {
  if (!span) return 0;
  const first = words.findIndex((w) => w.at >= span[0]);
  if (first < 0) return 0;
  const after = words.findIndex((w) => w.at >= span[1]);
  const end = after < 0 ? words.length : after;
  const beside = [...words.slice(Math.max(0, first - VALUE_CONTEXT), first), ...words.slice(end, end + VALUE_CONTEXT)];
  return coverage(column.ownTerms, new Set(beside.map((w) => w.term).filter(Boolean)));
}
/** Value links this close to a mention's best one are equally plausible; the table context decides. */
const NEAR_BEST = 0.05;

export function linkSchema(structure: SqlStructure, intent: Intent, candidate: LinkingCandidate, adj: Adjustments): SchemaLinking {
  const columns = new Map(structure.tables.map((t) => [t.name, columnFacts(t)]));
  const tableTerms = new Map(structure.tables.map((t) => [t.name, identifierTerms(t.name)]));
  const entities = resolveEntities(intent, candidate.kbId, adj);

  // Words of linked values are values, not schema words ("France" says nothing about a france column).
  const valueMentionTerms = new Set(entities.filter((e) => e.link?.kind === "value").flatMap((e) => terms(e.mention)));
  const bag = new Set([...questionTerms(intent)].filter((t) => !valueMentionTerms.has(t)));
  const focus = focusTerms(intent).filter((t) => !valueMentionTerms.has(t));

  const columnLinkScore = new Map<string, number>();
  const tableLinkScore = new Map<string, number>();
  for (const e of entities) {
    for (const l of [e.link, ...e.alternatives]) {
      if (!l) continue;
      if (l.kind === "column") {
        const c = parseColumnRef(l.ref, structure);
        if (c)
          columnLinkScore.set(`${c.table}\u0000${c.column}`, Math.max(columnLinkScore.get(`${c.table}\u0000${c.column}`) ?? 0, l.score));
      } else if (l.kind === "table") {
        tableLinkScore.set(l.ref, Math.max(tableLinkScore.get(l.ref) ?? 0, l.score));
      }
    }
  }
  const byWords = (c: ColumnFacts) => Math.max(coverage(c.ownTerms, bag), columnLinkScore.get(columnKey(c.table, c.name)) ?? 0);
  // Meaning ranks the columns of tables whose attributes the question names in no word: where it names
  // one ("the maximum shares"), that column is what it asks about, even when it cannot serve (text, not numbers).
  const namedByWords = new Set([...columns].filter(([, cs]) => cs.some((c) => !c.key && byWords(c) >= MENTIONED)).map(([t]) => t));
  const closeness = candidate.columnMeaning;
  const byMeaning = (c: ColumnFacts) =>
    closeness && !namedByWords.has(c.table) ? WEIGHTS.columnMeaning * (closeness.get(columnKey(c.table, c.name)) ?? 0) : 0;
  const columnScore = (c: ColumnFacts) => Math.max(byWords(c), byMeaning(c));
  const tableCoverage = (table: string) => coverage(tableTerms.get(table) ?? [], bag);

  const selected = new Set(candidate.sourceObjects);
  const preScore = new Map<string, number>();
  for (const t of structure.tables) {
    const tt = tableTerms.get(t.name) ?? [];
    const attributes = (columns.get(t.name) ?? []).filter((c) => !c.key);
    const bestColumn = Math.max(0, ...attributes.map(columnScore));
    // A table whose columns hold more of the question's words is likelier the one asked about ("makers and models").
    const covered = new Set(attributes.flatMap((c) => c.ownTerms.filter((term) => bag.has(term)))).size;
    preScore.set(
      t.name,
      tableCoverage(t.name) +
        (focus.some((f) => tt.includes(f)) ? WEIGHTS.focus : 0) +
        WEIGHTS.column * bestColumn +
        WEIGHTS.coveredTerm * Math.min(covered, MAX_COVERED_TERMS) +
        (selected.has(t.name) ? WEIGHTS.selected : 0) +
        WEIGHTS.tableLink * (tableLinkScore.get(t.name) ?? 0) +
        WEIGHTS.meaning * (candidate.meaning?.[t.name] ?? 0),
    );
  }

  // Each value mention takes, among its near-best links, the one in the table the question is most about, then in the column it names or means.
  const values: LinkedValue[] = [];
  const words = positionedTerms(intent.completed);
  const spanOf = (mention: string) => intent.entities.find((m) => m.mention === mention && !m.fromContext)?.span ?? null;
  for (const e of entities) {
    // A mention may also name a table or column ("orders"); its value links are what filters.
    const valueLinks = [e.link, ...e.alternatives].filter((l): l is EntityLink => l?.kind === "value");
    if (valueLinks.length === 0) continue;
    const near = valueLinks.filter((l) => l.score >= valueLinks[0].score - NEAR_BEST);
    let best: LinkedValue | null = null;
    let bestScore = -1;
    for (const l of near) {
      const parsed = parseValueRef(l.ref, structure);
      if (!parsed) continue;
      const column = columns.get(parsed.table)?.find((c) => c.name === parsed.column);
      const s =
        (preScore.get(parsed.table) ?? 0) +
        (column ? WEIGHTS.valueColumn * Math.max(namedBeside(words, spanOf(e.mention), column), byMeaning(column)) : 0);
      if (column && s > bestScore) {
        best = { entity: e, column, value: parsed.value };
        bestScore = s;
      }
    }
    if (best) values.push(best);
  }

  const tableScores = new Map<string, number>();
  for (const t of structure.tables) {
    const valueCount = values.filter((v) => v.column.table === t.name).length;
    tableScores.set(t.name, (preScore.get(t.name) ?? 0) + WEIGHTS.value * valueCount);
  }
  let root = structure.tables[0]?.name ?? "";
  for (const t of structure.tables) if ((tableScores.get(t.name) ?? 0) > (tableScores.get(root) ?? 0)) root = t.name;
  const rootTiedWith = structure.tables
    .filter((t) => t.name !== root && tableScores.get(t.name) === tableScores.get(root))
    .map((t) => t.name);

  const lookups = entities.filter((e) => e.byName && !e.link);
  const linkedHere = new Set(values.map((v) => v.entity.mention.toLowerCase()));
  // Mentions the critic dropped are not in `entities`, and stay dropped.
  const kept = new Set(entities.map((e) => e.mention));
  const unplaced = namedValues(intent, candidate.kbId).filter(
    (n) => !n.quoted && kept.has(n.entity.mention) && !linkedHere.has(n.entity.mention.toLowerCase()),
  );
  return {
    structure,
    columns,
    tableTerms,
    tableScores,
    columnScore,
    tableCoverage,
    root,
    rootTiedWith,
    values,
    lookups,
    unplaced,
    bag,
    focus,
    nounTables: candidate.nounTables,
  };
}
