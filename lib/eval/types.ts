import type { KbKind, QueryLanguage } from "../backends/types";
import type { ReliabilityBin, RiskCoveragePoint } from "./metrics/calibration";

/**
 * Evaluation data model (issue 7). A suite is a list of questions with gold answers and, where known,
 * gold sources and gold evidence, run against a catalog scope. Gold that needs an engine (the result of
 * a gold SQL or Cypher query) is described here and resolved at run time (gold/resolve.ts).
 */

export const BUILTIN_SUITES = ["spider", "tatqa", "scifact", "text2cypher", "sparql-from-spider", "mixed", "demo"] as const;
export type BuiltinSuite = (typeof BUILTIN_SUITES)[number];

/** Where a gold query runs: a dataset file (read-only), a registered KB by name, or the benchmark Neo4j. */
export type GoldTarget = { type: "sqlite-file"; file: string } | { type: "kb"; kbName: string };

export interface TatQaGold {
  /** As in the dataset: a list of spans, or a number for arithmetic/count answers. */
  answer: string[] | number | string;
  answerType: "span" | "multi-span" | "arithmetic" | "count";
  scale: "" | "thousand" | "million" | "billion" | "percent";
}

export type Gold =
  /** The answer is the result of a native query (Spider SQL, Text2Cypher Cypher, demo SQL/SPARQL). */
  | { type: "query"; language: Exclude<QueryLanguage, "search">; text: string; target: GoldTarget }
  /** Accepted answer strings (demo documents, authored suites). */
  | { type: "answers"; answers: string[]; list?: boolean }
  | { type: "tatqa"; tatqa: TatQaGold }
  /** No answer gold: retrieval only (SciFact claims). */
  | { type: "retrieval-only" }
  /**
   * The sources do not hold the answer: the right behaviour is to refrain. `nothingRecorded`: the
   * question asks about a period or filter that nothing in the data matches ("highest sales in 2023"
   * with no 2023 orders), so an answer that says so ("No sales are recorded for 2023.", judged by
   * statesNothing in metrics/answer.ts) is right as well as refraining; any value is wrong.
   */
  | { type: "unanswerable"; nothingRecorded?: string };

export interface GoldEvidence {
  /** Relevant document ids (SciFact evidence abstracts, the TAT-QA report). */
  documentIds?: string[];
  /** TAT-QA: the relevant paragraphs (their order numbers) and whether the table holds the answer. */
  paragraphs?: string[];
  table?: boolean;
}

export interface EvalQuestion {
  /** Stable across runs and seeds: "spider:concert_singer:3", "scifact:12". */
  id: string;
  /** The suite it came from (a mixed suite draws from several). */
  suite: string;
  question: string;
  /** The source kind the gold source has (per-kind breakdowns); UNKNOWN when the suite does not say. */
  kind: KbKind | "UNKNOWN";
  /** KBs that hold the answer, by name; any one counts for source selection. Empty = not scored. */
  goldKbNames: string[];
  gold: Gold;
  evidence?: GoldEvidence;
  /** Is the result order part of the answer (the gold query orders)? */
  ordered?: boolean;
  /** Free-form tags shown in reports ("db:concert_singer", "type:arithmetic"). */
  tags?: string[];
  /**
   * What kind of question a business user asks (demo suite: "aggregate-per-group", "follow-up", …);
   * results carry it as the tag "category:<value>", which the report breaks the metrics down by.
   */
  category?: string;
  /**
   * Asked as a follow-up: the id of an earlier question of the same suite, asked first, in whose
   * conversation this one is asked after it (the runner keeps that order, lib/eval/runner.ts).
   */
  followUpOf?: string;
}

export interface SuiteDefinition {
  key: string;
  label: string;
  description: string;
  questions: EvalQuestion[];
  /** Which registered KBs the pipeline may choose from (by name and origin); null = every KB the user may use. */
  scope: ((kb: { name: string; origin: string; kind: KbKind }) => boolean) | null;
  /** The run order for a seed; default: a seeded shuffle (the mixed suite interleaves its parts). */
  order?: (questions: EvalQuestion[], seed: number) => EvalQuestion[];
}

// ---------------------------------------------------------------------------------------------
// Resolved gold and per-question results

export interface ResultTable {
  columns: string[];
  rows: unknown[][];
  truncated: boolean;
}

export interface ResolvedGold {
  /** Accepted answers as text (for P@1 / EM / F1); empty when there is none. */
  answers: string[];
  /** What answer presence looks for in the evidence (every cell of a gold result). */
  presence: string[];
  /** The gold answer is a list of items (several rows of one column): compared as a set. */
  list: boolean;
  /** Gold result table when the gold is a query. */
  table: ResultTable | null;
  unanswerable: boolean;
  /** Why gold could not be computed (the question is then skipped from answer metrics). */
  error?: string;
}

/**
 * One ranking stage of a run, for document retrieval: "retrieval" (the first stage: what the executed
 * searches returned, in the engine's order), "pool", "rerank:<i>:<scorer>", "evidence" (what the answer
 * used). Each is read as a cascade: the stage's own order, then what earlier stages had and it dropped,
 * so every stage is as deep as the first and a stage that hurts shows as a lower figure than the one before.
 */
export interface RankingStage {
  label: string;
  /** 1-based rank of each relevant document (null = not in the ranking). */
  ranks: (number | null)[];
  /** Distinct documents in the ranking. */
  depth: number;
}

/** Per ranking: the 1-based rank of the first piece holding a gold answer (null = absent) and how deep the ranking was. */
export type PresenceRanks = Record<string, { rank: number | null; depth: number }>;

export interface QuestionResult {
  id: string;
  suite: string;
  position: number;
  question: string;
  kind: KbKind | "UNKNOWN";
  tags: string[];
  runId: string | null;
  /** The conversation the question was asked in (follow-ups are asked in their earlier question's). */
  conversationId?: string | null;
  /** The earlier question this one followed up (EvalQuestion.followUpOf). */
  followUpOf?: string;
  status: "ANSWERED" | "REFRAINED" | "FAILED" | "CANCELLED" | "ERROR";
  answer: string | null;
  /** What the pipeline would have said when it refrained (its best candidate), for refrain accuracy. */
  withheld: string | null;
  gold: { answers: string[]; unanswerable: boolean; kbNames: string[]; error?: string };
  source: {
    candidates: string[];
    winner: string | null;
    /** Null when the question has no gold source. */
    inCandidates: boolean | null;
    rankedFirst: boolean | null;
    winnerCorrect: boolean | null;
  };
  /**
   * Documents: 1-based ranks of each relevant document in the run's final document ranking (null = not
   * retrieved), and the same per ranking stage (`stages`, see RankingStage).
   */
  retrieval: {
    relevant: number;
    ranks: (number | null)[];
    retrievedDepth: number;
    top: string[];
    /** Absent in results recorded before stage metrics existed. */
    stages?: RankingStage[];
    /** The first-stage search texts of the scored round: what the collection was searched with. */
    queries?: string[];
  } | null;
  /** TAT-QA: share of the gold evidence units (table, rel paragraphs) in the evidence the answer used. */
  evidenceRecall: number | null;
  execution: {
    language: string;
    kbName: string;
    query: string;
    /** Strict: the answering query ran on a gold knowledge base and gives the gold result. */
    match: boolean;
    /** Lenient: on a gold knowledge base, the gold columns are among the answering query's columns (extra context columns allowed). */
    matchColumns: boolean;
    /** Does any query the run executed on a gold knowledge base give the gold result? */
    anyMatch: boolean;
    /** The answering query ran on a gold knowledge base (absent in results recorded before strict matching). */
    onGoldKb?: boolean;
    /** The answering query gives the gold result, on whichever knowledge base it ran (diagnostic: the pre-strict figure). */
    resultMatch?: boolean;
    goldRows: number;
    predictedRows: number | null;
    error?: string;
  } | null;
  /** Answer presence: rank of the first answer-bearing piece per ranking ("pool", "rerank:1:bm25-entity", "evidence"). */
  presence: PresenceRanks | null;
  scores: {
    /** Top answer judged correct (lenient: normalized, numbers to their shown precision, lists as sets). */
    p1: boolean | null;
    em: number | null;
    f1: number | null;
    /** TAT-QA only: exact match when the scale is ignored (diagnostic). */
    emNoScale?: number | null;
  };
  refrain: { refrained: boolean; correctDecision: boolean | null };
  /**
   * The confidence the run gave its answer (0–1, what the answer card shows; for a refusal, the run's
   * belief in the value it held back). Absent in results recorded before calibration was measured.
   */
  confidence?: number | null;
  /**
   * Is the answer the confidence is about right: the answer shown, or the value held back when the run
   * refrained (no value, or a question that has no answer: wrong). Null when it cannot be judged.
   */
  correct?: boolean | null;
  /** The run's calibration features (lib/pipeline/calibration/features.ts): what training/calibration fits on. */
  features?: Record<string, number> | null;
  /**
   * Shown as an answer (issue 32, part 3): answered, not refrained and not "not certain" (the critic's
   * doubt, or a calibrated confidence below the caution target). Absent in older results.
   */
  shown?: boolean;
  /** The caution target the run applied (0–1) and whether it held this answer back. */
  caution?: { target: number; applies: boolean; held: boolean } | null;
  timings: Record<string, number>;
  totalMs: number;
  usage: { tokens: number | null; costUsd: number | null; calls: number | null; model: string | null } | null;
  degradations: string[];
  /** The analyst's guide whose query answered (strategy "guide"), or null; absent in results recorded before it was kept. */
  guide?: { id: string; question: string } | null;
  error?: string;
}

export type MetricValue = number | null;

export interface Breakdown {
  n: number;
  values: Record<string, MetricValue>;
}

export interface StageMetrics {
  label: string;
  n: number;
  values: Record<string, MetricValue>;
  /** This stage's value minus the previous stage's (null for the first stage). */
  delta: Record<string, MetricValue>;
}

export interface MetricGroup {
  n: number;
  values: Record<string, MetricValue>;
}

export interface SuiteMetrics {
  n: number;
  counts: { answered: number; refrained: number; failed: number };
  source: MetricGroup;
  retrieval: MetricGroup;
  evidence: MetricGroup;
  execution: MetricGroup;
  presence: Record<string, MetricGroup>;
  answer: MetricGroup;
  refrain: MetricGroup;
  /**
   * Whether the confidence is a probability of being right (issue 32): expected calibration error,
   * Brier score, area under the risk–coverage curve, precision and coverage at confidence ≥ 0.8, the
   * coverage at 90 % precision. Absent in reports made before it was measured.
   */
  calibration?: MetricGroup;
  /** The reliability diagram's bins and the risk–coverage curve behind the calibration figures. */
  calibrationCurves?: { reliability: ReliabilityBin[]; riskCoverage: RiskCoveragePoint[] };
  latency: Record<string, { p50: number; p95: number; n: number }>;
  usage: { runsWithLlm: number; tokens: number; costUsd: number } | null;
  /** Document retrieval per ranking stage, in run order, with the change from the stage before. */
  retrievalStages?: StageMetrics[];
  byKind: Record<string, Breakdown>;
  bySuite: Record<string, Breakdown>;
  /**
   * Headline metrics per value of a question tag: "db" (Spider and Text2Cypher database), "hardness"
   * (Spider's classes), "type" (TAT-QA answer type, Text2Cypher question type). Only tags with two or more values.
   */
  breakdowns?: Record<string, Record<string, Breakdown>>;
  /** How the run went: wall time of the last session, questions it ran, concurrency, questions left out. */
  run?: { wallMs: number; ran: number; concurrency: number; skipped: number };
}

/** The `--json` report: {suite, config, n, metrics, perQuestion}, plus what makes it reproducible. */
export interface ReportJson {
  suite: string;
  suiteLabel: string;
  config: Record<string, unknown>;
  configInput: Record<string, unknown>;
  seed: number;
  limit: number | null;
  n: number;
  metrics: SuiteMetrics;
  perQuestion: QuestionResult[];
  reportId: string;
  startedAt: string | null;
  finishedAt: string | null;
  concurrency: number;
  wallMs: number | null;
  status: "QUEUED" | "RUNNING" | "DONE" | "FAILED" | "CANCELLED";
  error: string | null;
  /** The question file the run read instead of the suite's own split (--questions), or null. */
  questionsFile?: QuestionsFileRef | null;
  /** The guide file registered for the run (--guides, the few-shot protocol), or null. */
  guidesFile?: GuidesFileRef | null;
  /** A robustness run (--robustness): the rewritten questions' report carries the comparison with their dev items. */
  robustness?: RobustnessSummary;
}

/** Right in both wordings, only as worded in dev, only rewritten, in neither: each rewrite with its dev item. */
export interface PairedCounts {
  n: number;
  both: number;
  devOnly: number;
  rewrittenOnly: number;
  neither: number;
}

export interface RobustnessRow {
  /** A rewrite class, or "all". */
  label: string;
  /** Pairs whose dev item and rewrite were both scored. */
  n: number;
  /** The headline (and TAT-QA's F1) over those pairs' dev items, as worded in dev (an item counts once per rewrite). */
  dev: Record<string, MetricValue>;
  rewritten: Record<string, MetricValue>;
  paired: PairedCounts;
}

/**
 * The robustness comparison (issue 27): the suite's headline on the sampled dev items as worded in dev
 * and on their rewrites, overall and per rewrite class, and the paired counts.
 */
export interface RobustnessSummary {
  suite: string;
  overlay: QuestionsFileRef;
  /** The headline metrics compared ("execution.match"; TAT-QA: "answer.em" and "answer.f1"). */
  metrics: string[];
  /** Over the distinct dev items (as the dev items' own report gives them) and over all rewrites (as this report gives them). */
  devItems: { n: number; values: Record<string, MetricValue> };
  rewrites: { n: number; values: Record<string, MetricValue> };
  rows: RobustnessRow[];
  /** Rewrites left out of the pairs: not run, or their gold (or their dev item's) could not be computed. */
  unpaired: number;
}

/** A question file by name and content: the checksum tells which version of the file a report measured. */
export interface QuestionsFileRef {
  name: string;
  sha256: string;
}

/** A guide file registered for a run (--guides): which file, which version, and what became of its items. */
export interface GuidesFileRef {
  name: string;
  sha256: string;
  /** The account that owned the run's guides. */
  owner: string;
  items: number;
  imported: number;
  /** Items that were already guides on their source (used, not created, not removed). */
  existing: number;
  /** Items that failed their check (named with the reason in the run's log) and were not imported. */
  skipped: number;
}
