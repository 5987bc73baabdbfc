import type { Candidate, Constructs, Intent, TimeCue } from "../../../contracts";
import type { ResolvedEntity } from "../entities";
import type { Adjustments } from "../feedback";
import type { AggregateFn } from "../lexicon";
import type { ColumnMeaning } from "./column-meaning";
import type { TextAnchor } from "../../understand/quoted";
import type { ComparisonOp, PositionedTerm } from "./question-cues";
import type { ColumnFacts, SqlStructure } from "./sql-structure";
import type { NamedValue } from "./named-values";

// ---------------------------------------------------------------------------------------------
// Schema linking (schema-linking.ts)

/**
 * A candidate as formulation sees it: with its columns' closeness in meaning when an embedder runs, and
 * the tables the question's count nouns name by meaning (noun-tables.ts), by noun.
 */
export type LinkingCandidate = Pick<Candidate, "kbId" | "sourceObjects" | "meaning"> & {
  columnMeaning?: ColumnMeaning;
  nounTables?: Readonly<Record<string, string>>;
};

export interface LinkedValue {
  entity: ResolvedEntity;
  column: ColumnFacts;
  value: string;
}

export interface SchemaLinking {
  structure: SqlStructure;
  columns: Map<string, ColumnFacts[]>;
  tableTerms: Map<string, string[]>;
  tableScores: Map<string, number>;
  /** How completely the question names each column (0..1), by table then column name. */
  columnScore(column: ColumnFacts): number;
  /** How completely the question names the table itself (0..1). */
  tableCoverage(table: string): number;
  /** The table the answer rows come from. */
  root: string;
  /** Tables that scored exactly as the root: nothing in the question preferred the root over them. */
  rootTiedWith: string[];
  values: LinkedValue[];
  /** Mentions the critic asked to find by their text (no value link). */
  lookups: ResolvedEntity[];
  /**
   * Names the question gives that no value link of this source matches (named-values.ts): looked up in the
   * column the words beside them name, else counted as values the query could not use.
   */
  unplaced?: NamedValue[];
  /** The question's terms without the words of linked values. */
  bag: Set<string>;
  /** The table a count noun ("how many films") names by meaning, where no table's words name it; absent without models. */
  nounTables?: Readonly<Record<string, string>>;
  focus: string[];
  /** An entity asked for by name only is the row itself (a graph node), not its name column. */
  entityIdentity?: boolean;
}

// ---------------------------------------------------------------------------------------------
// The picks (sql-picks.ts)

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
  /** Offset of the aggregate word in the question (-1: implied), for the SELECT order. */
  at?: number;
}

export interface SqlOrdering {
  /** Null orders by `aggregate`, else by the count (a "most orders" superlative over groups). */
  column: ColumnFacts | null;
  /** The aggregate groups are ranked by ("the suppliers with the highest average unit price"). */
  aggregate?: SqlAggregate;
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
  /** Where the comparison is worded in the question. */
  at?: number;
  end?: number;
  negated?: boolean;
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
  /** Further values of the same column joined by "or" ("houses or apartments" → IN). */
  alternatives?: string[];
  /** The question's words for those further values. */
  alternativeMentions?: string[];
}

/** One item of the answer's SELECT list: a column or an aggregate. */
export type SelectItem = { kind: "column"; column: ColumnFacts } | { kind: "aggregate"; aggregate: SqlAggregate };

/** A condition on a group's aggregate ("4 or more students" → HAVING COUNT(*) >= 4). */
export interface SqlHaving {
  aggregate: SqlAggregate;
  op: ComparisonOp;
  value: number;
}

/**
 * A condition the answer rows must NOT meet through a related table ("stadiums that did not have a
 * concert in 2014"): the answer table's key NOT IN the keys that do. Rendered as an anti-join.
 */
export interface SqlAntiJoin {
  /** The filters that describe the rows to exclude (on tables reached from the root). */
  picks: SqlPicks;
  why: string;
}

/** Two readings combined: "both 2014 and 2015" → INTERSECT, "but not" → EXCEPT, "either … or" → UNION. */
export interface SqlSetOperation {
  op: "INTERSECT" | "EXCEPT" | "UNION";
  right: SqlPicks;
}

/** Text looked up in a column: a quoted phrase, or a mention the critic asked to find by name. */
export interface SqlLookup {
  column: ColumnFacts;
  text: string;
  at?: number;
  /** Where the text sits in the column's value: anywhere (the default), at its start ("starting with 'L'") or at its end. */
  anchor?: TextAnchor;
  /** The question quotes the text: it is the exact text sought, case included, where the query language matches case. */
  quoted?: boolean;
  /** No word of the question places the text: it is sought in the answer table's name column as a guess. */
  guessed?: boolean;
}

export interface SqlPicks {
  root: string;
  values: SqlValueFilter[];
  /** Text looked up in a column (contains-match): quoted phrases, mentions the critic asked to find by name. */
  lookups: SqlLookup[];
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
  /** Tables the question names as the relation between the others ("movies produced by …" → PRODUCED): joined through first. */
  via: string[];
  /** Value filters written as case-insensitive contains-matches (relaxed after an empty result). */
  containsMatch: boolean;
  /** The answer's SELECT list (exactly what the question asks); null: the wider context projection above. */
  select: SelectItem[] | null;
  having: SqlHaving[];
  antiJoins: SqlAntiJoin[];
  setOp: SqlSetOperation | null;
  /** Each value once ("the different countries"). */
  distinct: boolean;
  /** A superlative keeps every row tied at the extreme ("= (SELECT MAX …)") instead of LIMIT 1. */
  ties: boolean;
  /** "the first 3 orders": a plain limit on the rows listed (no ranking asked). */
  rowLimit: number | null;
  /** Yes/no columns the question names as a property of the answer rows ("discontinued products" → discontinued = true). */
  flags: { column: ColumnFacts; value: boolean }[];
  /** Properties the answers lack ("suppliers that do not have a fax number" → fax IS NULL). */
  absent: { column: ColumnFacts }[];
  /** Groups of filters joined by "or": each filter's group id (filters without one are ANDed). */
  orGroups: Map<object, number>;
  /** What the construct rules could not represent (the answer query is then not faithful). */
  unresolved: string[];
  notes: string[];
}

// ---------------------------------------------------------------------------------------------
// Picking, clause by clause (sql-picks.ts composes the pickers)

/** What every clause picker reads: the question, its reading, the linked schema; notes and unresolved collect in order. */
export interface PickContext {
  intent: Intent;
  linking: SchemaLinking;
  adj: Adjustments;
  constructs: Constructs;
  positions: PositionedTerm[];
  /** The tables reachable from the answer table. */
  reach: Set<string>;
  /** The reachable tables the question is about. */
  tables: string[];
  root: string;
  notes: string[];
  unresolved: string[];
}

/** A count condition with where the question words it (numeric filters over the same words give way to it). */
export interface WordedHaving {
  having: SqlHaving;
  at: number;
  end: number;
}

/** The aggregation and ranking decided so far: the pickers after the superlative refine it in turn. */
export interface SqlPlan {
  aggregates: SqlAggregate[];
  groupBy: ColumnFacts[];
  order: SqlOrdering | null;
  top: SqlTopRestriction | null;
  /** The aggregate a superlative ranks by (a count per group), not shown unless asked. */
  rankedBy: SqlAggregate | null;
  extraTables: string[];
}
