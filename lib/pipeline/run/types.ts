import type { NativeQuery } from "../../backends/types";
import type { AccessSubject } from "../../catalog/access";
import type { LlmConfig } from "../../llm/config";
import type { LlmUsageTotals } from "../../llm/usage";
import type { ModelHandles } from "../../models/runtime";
import type { GuideMatch } from "../../models/guide-matcher";
import type { TextEmbeddings } from "../../models/text-embeddings";
import type { Embedder } from "../../models/types";
import type { PipelineConfig } from "../config";
import type { GuideActionInput } from "../guide-actions";
import type { GuideExample } from "../stages/formulate/vocabulary";
import type { TraceEventInput } from "../stage";
import type { Answer, Candidate, ExecutedQuery, Intent, Iteration, ScoredEvidence } from "../contracts";
import type { Features } from "../calibration/features";

/** What a caller asks of a run, and what a run gives back (run.ts). */

export interface RunRequest {
  question: string;
  user: AccessSubject;
  /** Continue a conversation (follow-ups); omitted = a new conversation. */
  conversationId?: string | null;
  /** Restrict the run to these KBs (each must be one the user may use). */
  kbIds?: string[];
  config?: Partial<PipelineConfig>;
  signal?: AbortSignal;
  /** Called for every trace event as it happens (streaming to the browser or the terminal). */
  onEvent?: (event: RunEvent) => void;
  /**
   * Sees every ranking of the evidence as the run makes it: "retrieval" (what the executed queries
   * returned, each in its engine's order, before pooling), "pool" (critic round `round`), then
   * "rerank:<i>:<scorer>" for each re-ranking round. Evaluation uses it for answer presence (AP@k) and
   * for retrieval metrics per stage.
   */
  observeRanking?: (ranking: { round: number; label: string; ranked: ScoredEvidence[] }) => void;
  /**
   * The LLM for this run: a configuration (tests, evaluation), or null for classical strategies only.
   * Omitted: the environment's LLM_* defaults with the admin's Settings over them (lib/settings).
   */
  llm?: LlmConfig | null;
  /**
   * The models for semantic ranking (sentence embedder, cross-encoder): given (tests, evaluation,
   * benchmarks), or null for classical ranking only. Omitted: the environment's and the admin's model
   * settings (lib/models/runtime.ts).
   */
  models?: ModelHandles | null;
  /** Where the run finds extraction guides; the pipeline reads none itself. */
  guides: GuideSource;
  /** Every guide query on the run's sources, whatever its question: the vocabulary the guides teach (formulate/vocabulary.ts). */
  guideExamples?: GuideExamplesSource;
}

/** The questions and native queries of every guide the user may use on these KBs. */
export type GuideExamplesSource = (q: { user: AccessSubject; kbIds: string[] }) => Promise<GuideExample[]>;

/** An extraction guide close to the run's question, with what the run may take from it. */
export interface GuideHit {
  guideId: string;
  question: string;
  /** 0..1: BM25 of the new question against the guide's question, relative to the guide's own self-match. */
  score: number;
  /** The BM25 part of `score` alone (score may be the questions' closeness in meaning); absent: score. */
  lexicalScore?: number;
  /**
   * The guide matcher's reading (lib/models/guide-matcher.ts): the log-odds that one query template
   * answers both questions, and whether it reaches the threshold for a relational or a graph guide. Absent: no matcher ran.
   */
  matcher?: GuideMatch;
  kbIds: string[];
  /** The guide's native queries, as demonstrations and for adaptation. */
  examples: { kbId: string; sourceObject: string | null; query: NativeQuery }[];
  /** Every valid action with its KB (and the source object the analyst tied it to), executable directly. */
  actions: { kbId: string; sourceObjectId: string | null; sourceObjectKey: string | null; action: GuideActionInput }[];
  /** Actions that failed validation (a malformed guide): reported in the trace, skipped. */
  invalidActions: number;
}

/** A sentence embedder, for comparing questions by meaning as well as by words. */
export interface GuideSemantics {
  embedder: Embedder;
  texts: TextEmbeddings;
  /** The question's vector when the run already embeds it (scorers/dense.ts questionVector): not embedded twice. */
  question?: Promise<Float32Array>;
}

/** What a run asks for: at most `limit` guides the user may use on these KBs, each scoring at least `minScore`. */
export interface GuideQuery {
  user: AccessSubject;
  question: string;
  kbIds: string[];
  limit: number;
  minScore: number;
  semantic: GuideSemantics | null;
}

/**
 * The guides nearest to a question, best first (AU-RAG's Think Tank). Guides are a product domain
 * above the pipeline, so the caller that starts a run passes this in (lib/runs/run-pipeline.ts).
 */
export type GuideSource = (query: GuideQuery) => Promise<GuideHit[]>;

export interface RunEvent extends TraceEventInput {
  runId: string;
  seq: number;
  at: string;
}

export interface RunOutcome {
  runId: string;
  conversationId: string;
  status: "ANSWERED" | "REFRAINED" | "FAILED" | "CANCELLED";
  question: string;
  intent: Intent | null;
  answer: Answer;
  candidates: Candidate[];
  queries: ExecutedQuery[];
  /** The evidence the answer was drawn from, best first. */
  evidence: ScoredEvidence[];
  winner: { kbId: string; kbName: string; reason: string } | null;
  iterations: Iteration[];
  guides: { guideId: string; question: string; score: number }[];
  timings: Record<string, number>;
  trace: { stage: string; strategy: string; ms: number }[];
  /** Things that went wrong without stopping the run: a KB down, a question cut, a malformed guide. */
  degradations: string[];
  totalMs: number;
  /** What the run spent on the LLM (calls, tokens, estimated cost); null when no stage used one. */
  llm?: LlmUsageTotals | null;
  /**
   * How far to trust the answer (issue 32): the run's features, the answer stage's own confidence, and
   * the calibrator that turned them into the answer's confidence (null: none was applied).
   */
  calibration?: { features: Features; raw: number; calibrator: { version: string; sha256: string } | null };
  /**
   * The workspace's caution target (issue 32, part 3): show an answer only when its calibrated
   * confidence is at least `target`. `held`: this run's answer fell below it and is shown as "not
   * certain". `applies`: a calibrated confidence existed to compare (otherwise the target does not apply).
   */
  caution?: { target: number; applies: boolean; held: boolean };
}

export const NO_ANSWER = (reason: string): Answer => ({
  text: "Not found in the sources.",
  refrained: true,
  reason,
  confidence: 0,
  citations: [],
  candidates: [],
});
