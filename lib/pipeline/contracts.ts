import { quantitySchema } from "../format/quantity";
import { type Period, periodsIn } from "../tables/periods";
import { z } from "zod";
import type { EvidencePiece, KbKind, NativeQuery, Scalar } from "../backends/types";

/**
 * The pipeline's contracts: the typed inputs and outputs the stages pass one another (DESIGN.md "The
 * pipeline"): understand → select → formulate → execute → verbalize → pool → rerank → select evidence →
 * answer → critique. Every stage has a classical strategy (no LLM); LLM strategies plug into the same
 * schemas. A leaf: stages import it, it imports no stage.
 */

// ---------------------------------------------------------------------------------------------
// understand: Quasar's structured intent

export const ANSWER_TYPES = [
  "person",
  "organisation",
  "location",
  "date",
  "number",
  "count",
  "money",
  "percent",
  "boolean",
  "entity",
  "text",
  "list",
] as const;
export type AnswerType = (typeof ANSWER_TYPES)[number];

export const entityLinkSchema = z.object({
  kbId: z.string(),
  label: z.string(),
  /** EntityIndexEntry.kind: value, label, class, predicate, node, table, column, document. */
  kind: z.string(),
  /** The KB's own reference: IRI, node id, "table.column=value", document id. */
  ref: z.string(),
  sourceObject: z.string().nullable(),
  /** 0..1: how well the mention matches the label (exact normalized match = 1). */
  score: z.number(),
});
export type EntityLink = z.infer<typeof entityLinkSchema>;

export const entityMentionSchema = z.object({
  /** The surface form in the (completed) question. */
  mention: z.string(),
  /** Character offsets in the completed question; null when carried over from an earlier turn. */
  span: z.tuple([z.number(), z.number()]).nullable(),
  /** Ranked links into the entity indexes of the KBs the user may use (best first, at most ~10). */
  links: z.array(entityLinkSchema),
  /** True when the mention came from an earlier turn of the conversation (a follow-up). */
  fromContext: z.boolean().default(false),
});
export type EntityMention = z.infer<typeof entityMentionSchema>;

export const timeCueSchema = z.object({
  text: z.string(),
  kind: z.enum(["absolute", "relative", "ordinal", "range"]),
  /** ISO dates (inclusive start, exclusive end) when the cue resolves to a period. */
  start: z.string().nullable().default(null),
  end: z.string().nullable().default(null),
  /** "before 2010" → before; "after", "in", "between", "since", "until". */
  comparator: z.enum(["before", "after", "in", "between", "since", "until"]).nullable().default(null),
  /** "first" → 1, "second" → 2, "last"/"latest" → -1. */
  ordinal: z.number().int().nullable().default(null),
});
export type TimeCue = z.infer<typeof timeCueSchema>;

/**
 * The question's logical constructs, read from its wording (understand/constructs.ts): what it asks to
 * be returned, how its conditions are joined, what it negates, conditions on counts, ties, distinctness,
 * a row limit and a breakdown.
 */
const span = z.object({ start: z.number().int(), end: z.number().int(), text: z.string() });

export const comparisonOps = [">", "<", ">=", "<=", "="] as const;
/** A numeric comparison's operator; "between" compares with two numbers. */
export type ComparisonOp = (typeof comparisonOps)[number] | "between";

export const constructsSchema = z.object({
  /** What the question asks to be returned, as offsets into the completed question. */
  ask: span.nullable(),
  /** Connectives between conditions, in question order: "and", "or", "but-not" (except), "both" (both … and), "either" (either … or). */
  connectives: z.array(z.object({ kind: z.enum(["and", "or", "but-not", "both", "either"]), at: z.number().int(), text: z.string() })),
  /** Negation cues ("not", "never", "no", "without", "except"), each with the words it governs. */
  negations: z.array(z.object({ cue: z.string(), at: z.number().int(), scope: z.string() })),
  /** Conditions on how many of something a row has: "4 or more high schoolers" → {op: ">=", value: 4, noun: "high schoolers"}. */
  counts: z.array(z.object({ op: z.enum(comparisonOps), value: z.number(), noun: z.string(), at: z.number().int(), text: z.string() })),
  /**
   * The nouns whose rows the question counts: after "how many" / "number of" (kind "count"), after a
   * ranking by count, "the most films" (kind "rank"); `at` is the noun's offset (understand/counted-noun.ts).
   */
  countNouns: z.array(z.object({ kind: z.enum(["count", "rank"]), noun: z.string(), at: z.number().int() })).default([]),
  /**
   * Numeric comparisons, in question order (understand/comparisons.ts): "more than 300000" → {op: ">",
   * values: [300000]}, "between 5 and 10" → between, "older than average" → withAverage, "with 4
   * cylinders" → "=" with its attribute words; `at` and `text` are the phrase's offset and words.
   */
  comparisons: z
    .array(
      z.object({
        op: z.enum([...comparisonOps, "between"]),
        /** One number, two for between; none when compared with the average. */
        values: z.array(z.number()),
        /** Compared with the column's own average ("older than average"). */
        withAverage: z.boolean(),
        at: z.number().int(),
        /** Words between the comparator and the number ("above age 20" → age), or the comparative adjective. */
        attribute: z.string(),
        text: z.string(),
      }),
    )
    .default([]),
  /**
   * Phrases the question quotes ('Hey', "Star Wars"), matched as text (understand/quoted.ts): `at` is the
   * offset of the character before the opening quote; `anchor` where the phrase must sit in the text.
   */
  quoted: z.array(z.object({ text: z.string(), at: z.number().int(), anchor: z.enum(["contains", "prefix", "suffix"]) })).default([]),
  /** Noun phrases the answers lack ("do not have a fax number" → "fax number"), with offsets (understand/absence.ts). */
  lacked: z.array(z.object({ text: z.string(), at: z.number().int() })).default([]),
  /** Words whose related rows the answers lack ("stadiums without any concert" → "concert"). */
  without: z.array(z.string()).default([]),
  /**
   * What the answers have some of: one or two words after "any", "some", "at least one" outside the ask
   * and not negated ("dogs that went through any treatments" → "treatments"), with offsets (understand/absence.ts).
   */
  existence: z.array(z.object({ text: z.string(), at: z.number().int() })).default([]),
  /** What the question says about the order of its rows (understand/order-words.ts). */
  order: z
    .object({
      /** The sort key's words after "ordered by" / "in … order of"; null when the question names none. */
      by: z.string().nullable(),
      /** The question asks for a sort: "ordered by age", or with the key left out, "in descending order". */
      sorted: z.boolean(),
      /** Highest first: "descending", "from the oldest". */
      descending: z.boolean(),
      /** A ranking word besides "top" / "first" ("most", "highest", "oldest"). */
      ranked: z.boolean(),
      /** A superlative over how often a value occurs ("the most common nationality"). */
      frequency: z.boolean(),
      /** "the top 5 …". */
      top: z.boolean(),
      /** "fewest" / "least": a ranking from the bottom. */
      fewest: z.boolean(),
    })
    .default({ by: null, sorted: false, descending: false, ranked: false, frequency: false, top: false, fewest: false }),
  /** The superlative's answer is plural ("which dogs are the oldest"): every row tied at the extreme, not one. */
  ties: z.boolean(),
  /** "different", "distinct", "unique" in the ask: each value once. */
  distinct: z.boolean(),
  /** "the first 3 orders", "top 5 products": how many rows the answer lists, when the question says. */
  limit: z.number().int().min(1).nullable().default(null),
  /**
   * What the answer is broken down by: "for each stadium", "per country" (kind "each"), or a closing
   * "… by region" (kind "by": a breakdown only when something is aggregated).
   */
  grouping: z
    .object({ kind: z.enum(["each", "by"]), text: z.string(), at: z.number().int() })
    .nullable()
    .default(null),
});
export type Constructs = z.infer<typeof constructsSchema>;

/**
 * What kind of answer the question wants, read from its wording once by understand
 * (understand/answer-form.ts) and read by the later stages from here.
 */
export const answerFormSchema = z.object({
  /** An explanation, a definition or a method rather than a value: "why …", "how is X determined", "what does X include". */
  prose: z.boolean(),
  /** A reason or a cause is asked for: "why", "what caused", "… mainly due to?". */
  reason: z.boolean(),
  /** The question opens with "why": the reason is read together with what it explains. */
  why: z.boolean(),
  /** A change is asked for ("by how much did X grow"): a level reached or left is not its answer. */
  change: z.boolean(),
  /** "What is the <quantity noun>" ("the hotel cap", "the operating margin"): the kinds of value that state it. */
  quantity: z.array(z.enum(ANSWER_TYPES).exclude(["list"])).nullable(),
  /** The unit expected ("how many products" → a count of products; "how long" → a duration). */
  unit: z
    .object({
      kind: z.enum(["duration", "currency", "percent", "count-noun", "measure", "money-or-quantity"]),
      noun: z.string().nullable(),
    })
    .nullable(),
  /** An identifier is asked for ("what is the order id"): only then are key columns answers. */
  id: z.boolean(),
  /** The question offers values to choose from ("… or …"): a restated question word may be the answer. */
  choice: z.boolean(),
  /** A request to name the answers ("Name the first 3 movies …", "name 3 people who …"): their names are asked. */
  nameRequest: z.boolean().default(false),
});
export type AnswerForm = z.infer<typeof answerFormSchema>;

/** Read before answer forms were kept (a turn persisted earlier): nothing is assumed about the answer. */
const NO_ANSWER_FORM: AnswerForm = {
  prose: false,
  reason: false,
  why: false,
  change: false,
  quantity: null,
  unit: null,
  id: false,
  choice: false,
  nameRequest: false,
};

/** The question's answer form, or a neutral one for an intent persisted before forms were kept. */
export function answerFormOf(intent: Intent): AnswerForm {
  return intent.answerForm ?? NO_ANSWER_FORM;
}

/** A reporting period the question names (lib/tables/periods: fiscal years, quarters, dates, ranges), with its offsets. */
export const periodSchema = z.object({
  year: z.number().int(),
  month: z.number().int().nullable(),
  day: z.number().int().nullable(),
  quarter: z.number().int().nullable(),
  to: z.number().int().nullable(),
  start: z.number().int(),
  end: z.number().int(),
  text: z.string(),
}) satisfies z.ZodType<Period>;

/** The periods the question names; read here only for an intent persisted before periods were kept. */
export function periodsOf(intent: Intent): Period[] {
  return intent.periods ?? periodsIn(intent.completed);
}

/**
 * Offsets in `text` where a sentence's first word starts: after leading spaces, and after each ".", "?" or
 * "!" with the spaces that follow. A capitalised word there is capitalised by the sentence, not as a name.
 */
export function sentenceStartsIn(text: string): number[] {
  return [...text.matchAll(/(?:^|[.?!])\s*/g)].map((m) => m.index + m[0].length);
}

/** Where the completed question's sentences start; read here only for an intent persisted before they were kept. */
export function sentenceStartsOf(intent: Intent): number[] {
  return intent.sentenceStarts ?? sentenceStartsIn(intent.completed);
}

export const intentSchema = z.object({
  /** The question as asked. */
  question: z.string(),
  /** The question completed from earlier turns ("which teams did he play for?" → "... Tom Brady ..."). */
  completed: z.string(),
  /** ISO 639-1 guess; a non-English question is processed but flagged (a recorded degradation). */
  language: z.string(),
  /** "who", "what", "how many"... or null for imperative/keyword questions. */
  wh: z.string().nullable(),
  answerTypes: z.array(z.enum(ANSWER_TYPES)),
  entities: z.array(entityMentionSchema),
  /** The relation asked about: "revenue", "played for", "capital of"... */
  relation: z.string().nullable(),
  time: z.array(timeCueSchema),
  locations: z.array(z.string()),
  /** Aggregation asked for: "how many" → count, "total" → sum, "average" → avg... */
  aggregate: z.enum(["count", "sum", "avg", "min", "max"]).nullable(),
  /** Superlative: "most expensive" → {direction: "max", attribute: "expensive"}. */
  superlative: z.object({ direction: z.enum(["max", "min"]), attribute: z.string().nullable(), limit: z.number().int().min(1) }).nullable(),
  /** Content words after stopword removal, for BM25. */
  keywords: z.array(z.string()),
  /** The question's logical constructs (ask span, connectives, negations, count conditions): understand/constructs.ts. */
  constructs: constructsSchema.optional(),
  /**
   * A statement to find evidence for ("Aspirin lowers the risk of stroke."), not a question: it asks
   * for no kind of answer, so retrieval ranks passages by the whole statement (understand/question-form.ts).
   */
  statement: z.boolean().optional(),
  /** What kind of answer the question wants (understand/answer-form.ts); absent only on turns persisted before it was kept. */
  answerForm: answerFormSchema.optional(),
  /**
   * The reporting periods the completed question names, fiscal-aware ("FY2019", "the fourth quarter of 2018",
   * "2017-2019"), in order; absent only on turns persisted before they were kept (read them with periodsOf).
   */
  periods: z.array(periodSchema).optional(),
  /** Offsets in the completed question where a sentence starts (sentenceStartsIn); absent only on turns persisted before they were kept. */
  sentenceStarts: z.array(z.number().int().min(0)).optional(),
});
export type Intent = z.infer<typeof intentSchema>;

/** Quasar's "concatenated intent": one string for BM25 over the pool. */
export function intentText(intent: Intent): string {
  return [
    intent.completed,
    intent.relation ?? "",
    ...intent.entities.map((e) => e.mention),
    ...intent.entities.flatMap((e) => e.links.slice(0, 1).map((l) => l.label)),
    ...intent.time.map((t) => t.text),
    ...intent.locations,
    ...intent.answerTypes,
  ]
    .filter(Boolean)
    .join(" ");
}

// ---------------------------------------------------------------------------------------------
// select: candidate sources (OmniRetrieval top-k) with reasons

export const selectionReasonSchema = z.object({
  type: z.enum(["terms", "entity", "guide", "description", "meaning", "requested"]),
  detail: z.string(),
  weight: z.number(),
});
export type SelectionReason = z.infer<typeof selectionReasonSchema>;

export const candidateSchema = z.object({
  kbId: z.string(),
  kbName: z.string(),
  kind: z.enum(["DOCUMENTS", "SQL", "SPARQL", "CYPHER"]),
  /** Keys of the source objects that matched (tables, classes, labels, document tables). */
  sourceObjects: z.array(z.string()),
  score: z.number(),
  reasons: z.array(selectionReasonSchema),
  /** With a sentence embedder: how close in meaning each of the KB's source objects is to the question (0..1, calibrated), by key. */
  meaning: z.record(z.string(), z.number()).optional(),
});
export type Candidate = z.infer<typeof candidateSchema>;

// ---------------------------------------------------------------------------------------------
// formulate → execute: native queries and retrieval actions

export const RETRIEVAL_STRATEGIES = ["guide", "schema-linking", "neighborhood", "sparql-pattern", "search", "action"] as const;

export interface FormulatedQuery {
  kbId: string;
  kbName: string;
  kind: KbKind;
  query: NativeQuery;
  strategy: (typeof RETRIEVAL_STRATEGIES)[number];
  sourceObject: string | null;
  /** Why this query: "linked 'Tom Hanks' to (:Person); 1-hop neighbourhood" or "adapted guide 'Who directed…'". */
  explanation: string;
  /** Guide this query was adapted from, if any. */
  guideId?: string;
  /** That guide's question, as the analyst wrote it (the answer says which guide answered). */
  guideQuestion?: string;
  /**
   * "answer": the query renders the whole question (projection, filters, grouping, order), so its result
   * is the answer itself; "context" (the default): evidence around it (the rows behind an aggregate, a
   * neighbourhood, a search) for the pool.
   */
  role?: "answer" | "context";
  /** For an answer query: how much of the question it represents (answer assembly commits on it). */
  fit?: QueryFit;
  /** For an answer query that groups: its grouping keys and aggregates, by result column index. */
  grouped?: { keys: number[]; measures: number[] } | null;
}

/** A column compared with literals ("city = Berlin", "freight > 100", "name LIKE %tent%"). */
export interface StatedCondition {
  /** The table the column belongs to when the query names it, else null. */
  table: string | null;
  column: string;
  /** =, <>, <, <=, >, >=, LIKE, NOT LIKE, IN, NOT IN. */
  op: string;
  /** The literals as written (several for IN; a LIKE pattern with its % wildcards). */
  values: string[];
}

/** What of the question an answer query represents, decided at formulation. */
export interface QueryFit {
  /** Named values of the question (linked or quoted) the query filters on. */
  valuesUsed: string[];
  /** Named values of the question the query could not use. */
  valuesMissed: string[];
  /**
   * Named values looked up by their text in a column the question does not name (the answer table's name
   * column, when the critic asked): an empty result then says the name was not found there, not that no row
   * meets the question.
   */
  valuesGuessed?: string[];
  /** Named values the query finds by a text lookup, not by a value this source's index holds. */
  valuesLookedUp?: string[];
  /**
   * The rows' table or label and the conditions the query states, when they are a plain conjunction of a
   * column compared with literals: for graph queries (Cypher, SPARQL), whose text is not read back, so that
   * an empty result can say "none" with its conditions as an SQL query's WHERE clause does.
   */
  stated?: { subject: string; conditions: StatedCondition[] };
  /** What the construct rules could not represent, in words a person can act on; non-empty = no faithful query. */
  unresolved: string[];
  /** Share of the question's content words the query accounts for (its tables, columns, values, conditions), 0..1. */
  coverage: number;
  /** Content words no part of the query accounts for. */
  uncovered: string[];
}

export interface ExecutedQuery extends FormulatedQuery {
  status: "ok" | "empty" | "refused" | "timeout" | "error" | "unavailable";
  error?: string;
  rows: number;
  truncated: boolean;
  ms: number;
  evidenceIds: string[];
}

// ---------------------------------------------------------------------------------------------
// pool → rerank → select evidence

export interface ScoredEvidence {
  piece: EvidencePiece;
  /** Current score (the last round's scorer). */
  score: number;
  /** Every scorer's score by name ("bm25", "entity-overlap", ...), for the trace and the UI. */
  scores: Record<string, number>;
  /**
   * The piece's place in its search's results (1 = first), for pieces a ranked search found; pool and
   * re-ranking fuse their own order with it (pipeline/rank-fusion.ts). Absent for structured pieces.
   */
  retrievalRank?: number;
}

/** One re-ranking round: a scorer by name and how many pieces survive it (Quasar: 1000 → 100 → 30). */
export const rerankRoundSchema = z.object({ scorer: z.string(), keep: z.number().int().min(1) });
export type RerankRound = z.infer<typeof rerankRoundSchema>;

/**
 * A scorer takes the intent and the surviving pieces and returns one score per piece (higher = better).
 * Lexical scorers now; a cross-encoder scorer later implements the same interface.
 */
export interface EvidenceScorer {
  name: string;
  /** `previous`: the scores the pieces carry from the round before (aligned with `pieces`), for scorers that build on them. */
  score(intent: Intent, pieces: EvidencePiece[], signal?: AbortSignal, previous?: number[]): Promise<number[]>;
  /** Runs in its place when it fails (a model scorer falls back to the best classical fusion). */
  fallback?: EvidenceScorer;
}

export interface EvidenceSelection {
  /** The KB whose evidence best answers the question (OmniRetrieval's cross-source selection). */
  winner: { kbId: string; kbName: string; reason: string } | null;
  /** The evidence kept for answering, best first. */
  evidence: ScoredEvidence[];
  /** The committed source's answer query and its whole result (up to the row cap), when one answers. */
  result?: QueryResult | null;
}

/** An answer query's result as the answer assembly reads it: columns, rows in result order, the rows' evidence ids. */
export interface QueryResult {
  kbId: string;
  kbName: string;
  language: "sql" | "sparql" | "cypher";
  query: string;
  /** The values bound to the query's parameters, when it has any (provenanceParams). */
  params?: Record<string, Scalar>;
  columns: string[];
  rows: Scalar[][];
  /** Evidence piece id of each row (same order), for citations. */
  pieceIds: string[];
  /** More rows existed than the cap let through. */
  truncated: boolean;
  /** The row cap the result ran under (PipelineConfig.answerRowCap). */
  cap: number;
  fit: QueryFit | null;
  /** Grouping keys and aggregates of the query, by result column index, when the query grouped. */
  grouped: { keys: number[]; measures: number[] } | null;
  /** The analyst's guide whose query this is (a matching guide wins), or absent. */
  guide?: { id: string; question: string } | null;
}

// ---------------------------------------------------------------------------------------------
// answer

export const answerCandidateSchema = z.object({
  value: z.string(),
  score: z.number(),
  /** Evidence ids supporting this value. */
  support: z.array(z.string()),
  type: z.string().nullable(),
});
export type AnswerCandidate = z.infer<typeof answerCandidateSchema>;

const cellSchema = z.union([z.string(), z.number(), z.boolean(), z.null()]);

/**
 * The shape of an answer drawn from a query result: one value, a list of values (all of them, up to the
 * row cap), or a table (several columns, grouped results); grouped numbers also as a chart.
 */
export const answerShapeSchema = z.object({
  kind: z.enum(["scalar", "list", "table"]),
  columns: z.array(z.string()),
  rows: z.array(z.array(cellSchema)),
  /** Rows shown here; equals rows.length. More existed when `truncated`. */
  total: z.number().int().min(0),
  truncated: z.boolean(),
  /** The row cap that applied (a setting: answerRowCap), or null when the result was not capped. */
  cap: z.number().int().nullable(),
  /** A grouped numeric answer also reads as a chart: category column x, numeric columns y. */
  chart: z.object({ kind: z.enum(["bar", "line"]), x: z.number().int().min(0), y: z.array(z.number().int().min(0)).min(1) }).nullable(),
  /** Where the rows came from: the native query (evidence = query + rows). */
  source: z.object({
    kbName: z.string(),
    language: z.string(),
    query: z.string(),
    /** The values bound to its parameters ($p0 …): the text alone does not show what it filtered on. */
    params: z.record(z.string(), cellSchema).optional(),
    /** The analyst's guide the query came from ("Answered with the analyst's guide '…'"). */
    guide: z.object({ id: z.string(), question: z.string() }).nullable().optional(),
  }),
  /** Per column: the currency, scale or percentage its figures are in, as the source states it (null: plain or not figures). */
  units: z.array(quantitySchema.nullable()).optional(),
  /** A grouped answer whose measures add up: its total row (the source's own where it states one), null per column without a total. */
  totalRow: z
    .object({ label: z.string(), values: z.array(z.number().nullable()), stated: z.boolean() })
    .nullable()
    .optional(),
});
export type AnswerShape = z.infer<typeof answerShapeSchema>;

/** TagOp's operators: what a computed answer did with the figures it located. */
export const DERIVATION_OPERATIONS = ["sum", "difference", "average", "multiplication", "division", "change-ratio", "count"] as const;

export const derivationOperandSchema = z.object({
  value: z.number(),
  /** The figure as the source writes it ("2,119", "$(89.7)", "21.0%"). */
  text: z.string(),
  /** The evidence piece (table row) that holds it. */
  evidenceId: z.string(),
  /** The row's label and the column's header: where in the table the figure sits. */
  row: z.string(),
  column: z.string(),
});
export type DerivationOperand = z.infer<typeof derivationOperandSchema>;

/** A computed answer's working: the operation, its located operands, the expression and the result with its scale. */
export const derivationSchema = z.object({
  operation: z.enum(DERIVATION_OPERATIONS),
  operands: z.array(derivationOperandSchema),
  /** "(2,119 − 1,800) / 1,800 = 17.73%" */
  expression: z.string(),
  result: z.number(),
  /** TAT-QA's scale vocabulary: the result is in thousands, millions, billions, percent, or as is (""). */
  scale: z.enum(["", "thousand", "million", "billion", "percent"]),
  /** A currency or unit the operands share ("$", "EUR"), when they state one. */
  unit: z.string().nullable(),
  /** Who chose the operation and operands: the classical reading of the question, or a model's proposal (always recomputed here). */
  proposedBy: z.enum(["classical", "llm"]).default("classical"),
});
export type Derivation = z.infer<typeof derivationSchema>;

export const answerSchema = z.object({
  text: z.string(),
  refrained: z.boolean(),
  /** Why Mosaic refrained, or why an answer is uncertain, in words a person can act on. */
  reason: z.string().nullable(),
  confidence: z.number().min(0).max(1),
  citations: z.array(z.string()),
  candidates: z.array(answerCandidateSchema),
  /** Set when the answer is a query result (scalar, list or table); absent for answers read from text. */
  shape: answerShapeSchema.optional(),

  /** A computed answer's derivation (the answer card's explanation panel). */
  derivation: derivationSchema.optional(),
  /**
   * "uncertain": the best candidate is supported by the evidence but not strongly enough to state as
   * fact; it is shown as the closest answer, marked, with its evidence. Absent or "certain" otherwise.
   */
  certainty: z.enum(["certain", "uncertain"]).optional(),
  /**
   * The answer is that there is none: the committed query found no rows under these conditions, in
   * words ("city Berlin", "for 2023"). The critic accepts it as an answer; no round drops the filter.
   */
  emptyResult: z.object({ kbName: z.string(), conditions: z.array(z.string()) }).optional(),
});
export type Answer = z.infer<typeof answerSchema>;

// ---------------------------------------------------------------------------------------------
// critique (HybGRAG): validator + commentor with fixed corrective feedback types

export const FEEDBACK_TYPES = [
  "wrong_entity",
  "missing_entity",
  "wrong_relation",
  "missing_relation",
  "empty_result",
  "no_intersection",
  "wrong_source",
  "wrong_module",
  "next_batch",
  "missing_negation",
  "missing_grouping",
  "missing_filter",
] as const;
export type FeedbackType = (typeof FEEDBACK_TYPES)[number];

export const feedbackSchema = z.object({
  type: z.enum(FEEDBACK_TYPES),
  /** The entity, relation, KB or module the feedback is about. */
  target: z.string().nullable(),
  detail: z.string(),
});
export type Feedback = z.infer<typeof feedbackSchema>;

export const critiqueSchema = z.object({
  accepted: z.boolean(),
  checks: z.array(z.object({ name: z.string(), passed: z.boolean(), detail: z.string() })),
  feedback: feedbackSchema.nullable(),
});
export type Critique = z.infer<typeof critiqueSchema>;

/** One round of the refinement path shown to the user. */
export interface Iteration {
  round: number;
  candidates: string[];
  queries: { kbName: string; strategy: string; text: string; status: string }[];
  answer: string;
  accepted: boolean;
  feedback: Feedback | null;
  /** What the feedback changed for the next round, in words. */
  change: string | null;
}
