import { openBackend, type KbRecord } from "../../backends/registry";
import type { GuideExample } from "../stages/formulate/vocabulary";
import type { EvidencePiece, KbStructure } from "../../backends/types";
import type { CatalogDeps } from "../../deps";
import type { CatalogEntry } from "../../catalog/snapshot";
import type { PipelineConfig } from "../config";
import type { ModelHandles } from "../../models/runtime";
import type { textEmbeddings } from "../../models/text-embeddings";
import { scorersFor } from "../scorers";
import { count } from "../../format/count";
import { queryOutcomeInWords, strategyInWords } from "../strategy-words";
import { describeChange } from "../stages/critique/classical";
import { explainUnreadQuestion, withSourcesSearched } from "../stages/answer/unread-question";
import type { ExecuteOutput } from "../stages/execute";
import { classicalPool } from "../stages/pool/classical";
import { classicalRerank } from "../stages/rerank/classical";
import type { PipelineStrategies } from "../strategies";
import type {
  Answer,
  Candidate,
  Critique,
  EvidenceSelection,
  ExecutedQuery,
  Feedback,
  FormulatedQuery,
  Intent,
  Iteration,
  ScoredEvidence,
} from "../contracts";
import { withEveryQuery } from "../merge-evidence";
import { withTimeout } from "./budget";
import { annotateStructure } from "../../catalog/table-notes";
import { offTopic, offTopicRefusal } from "./topic-check";
import { formulationGuides, guideActionPieces, selectionGuides } from "./guide-bookkeeping";
import type { StageRunner } from "./stage-runner";
import type { GuideHit } from "./types";

/**
 * One round of the pipeline (DESIGN.md): select → formulate → execute → pool → rerank → select evidence
 * → answer → critique. Each step is one stage call; what a round learns from the critic's feedback for
 * the next one is in `nextState`.
 */

export interface RunContext {
  deps: CatalogDeps;
  config: PipelineConfig;
  strategies: PipelineStrategies;
  runner: StageRunner;
  kbs: Map<string, KbRecord>;
  requested: string[] | null;
  intent: Intent;
  catalog: CatalogEntry[];
  guides: GuideHit[];
  /** Every guide query on the run's sources (the vocabulary they teach). */
  guideExamples: GuideExample[];
  /** KB structures read so far (a KB is read once per run). */
  structures: Map<string, KbStructure>;
  /** Things that went wrong without stopping the run. */
  degradations: string[];
  /** Semantic models where they run (embedder, cross-encoder); NO_MODELS = classical ranking only. */
  models: ModelHandles;
  /** Cached embeddings of catalog texts, where an embedder runs. */
  texts: ReturnType<typeof textEmbeddings> | null;
}

/** What the critic's feedback so far changes: the feedback itself, KBs ruled out, retrieval modules left out. */
export interface RoundState {
  feedback: Feedback | null;
  previous: Feedback[];
  excluded: Set<string>;
  droppedModules: Set<string>;
}

export interface RoundResult {
  answer: Answer;
  candidates: Candidate[];
  queries: ExecutedQuery[];
  evidence: ScoredEvidence[];
  winner: EvidenceSelection["winner"];
  critique: Critique;
  iteration: Iteration;
}

export function firstState(): RoundState {
  return { feedback: null, previous: [], excluded: new Set(), droppedModules: new Set() };
}

export async function runRound(run: RunContext, round: number, state: RoundState): Promise<RoundResult> {
  const candidates = await selectSources(run, state);
  await readStructures(run, candidates);
  const formulated = await formulate(run, candidates, state);
  const executed = await execute(run, formulated, state);
  const actions = round === 1 ? await guideActions(run) : [];
  const reranked = await poolAndRerank(run, round, executed, actions);
  const selection = await selectEvidence(run, reranked, candidates, executed);
  const evidence = withEveryQuery(selection.evidence.slice(0, run.config.evidenceForAnswer), [...executed.pieces, ...actions]);
  const answer = await onTopic(run, await answerFrom(run, evidence, selection, candidates), evidence, candidates);
  const critique = await critiqueRound(run, round, answer, evidence, executed, candidates, state);
  return {
    answer,
    candidates,
    queries: executed.executed,
    evidence,
    winner: selection.winner,
    critique,
    iteration: iterationOf(run, round, candidates, executed, answer, critique),
  };
}

/** The next round's state after the critic's feedback: wrong_source rules a KB out, wrong_module a retrieval module. */
export function nextState(state: RoundState, feedback: Feedback, candidates: Candidate[]): RoundState {
  const excluded = new Set(state.excluded);
  const droppedModules = new Set(state.droppedModules);
  if (feedback.type === "wrong_module" && feedback.target) droppedModules.add(feedback.target);
  if (feedback.type === "wrong_source" && feedback.target) {
    const target = candidates.find((c) => c.kbId === feedback.target || c.kbName === feedback.target);
    if (target) excluded.add(target.kbId);
  }
  return { feedback, previous: [...state.previous, feedback], excluded, droppedModules };
}

// ---------------------------------------------------------------------------------------------

function selectSources(run: RunContext, state: RoundState): Promise<Candidate[]> {
  return run.runner.stage(
    "select",
    run.strategies.select,
    {
      intent: run.intent,
      catalog: run.catalog,
      guides: selectionGuides(run.guides),
      k: run.config.candidates,
      requestedKbIds: run.requested ?? undefined,
      exclude: [...state.excluded],
      embedder: run.models.embedder,
      textEmbeddings: run.texts,
    },
    // Names only: the scores are the pipeline's own scale, kept with the candidates in the trace.
    (c) => c.map((x) => x.kbName).join(", ") || "No source matched the question",
    (c) => c,
  );
}

/** The structure of each new candidate; a KB that hangs (accepts and never answers) costs at most one query timeout. */
async function readStructures(run: RunContext, candidates: Candidate[]): Promise<void> {
  for (const c of candidates) {
    if (run.structures.has(c.kbId)) continue;
    try {
      const limit = Math.min(run.config.queryTimeoutMs, Math.max(250, run.runner.ctx.deadline - Date.now()));
      const read = await withTimeout(
        openBackend(run.kbs.get(c.kbId)!, run.deps).structure(),
        limit,
        `did not answer within ${(limit / 1000).toFixed(1)} s`,
        run.runner.signal,
      );
      // The analysts' notes on its tables (synonyms, descriptions, measures) are part of what linking reads.
      const objects = run.catalog.find((e) => e.kbId === c.kbId)?.sourceObjects ?? [];
      const { structure, skipped } = annotateStructure(read, (table) => objects.find((o) => o.key === table)?.notes);
      run.structures.set(c.kbId, structure);
      for (const s of skipped) {
        const note = `${c.kbName}: ${s} is left out`;
        run.degradations.push(note);
        run.runner.emit({ stage: "formulate", type: "INFO", summary: note });
      }
    } catch (e) {
      const note = `${c.kbName} could not be read: ${(e as Error).message}`;
      run.degradations.push(note);
      run.runner.emit({ stage: "formulate", type: "INFO", summary: note });
    }
  }
}

function formulate(run: RunContext, candidates: Candidate[], state: RoundState): Promise<FormulatedQuery[]> {
  return run.runner.stage(
    "formulate",
    run.strategies.formulate,
    {
      intent: run.intent,
      candidates: candidates.filter((c) => run.structures.has(c.kbId)),
      structures: run.structures,
      guides: formulationGuides(run.guides),
      guideExamples: run.guideExamples,
      feedback: state.feedback,
      embedder: run.models.embedder,
      textEmbeddings: run.texts,
      schemaLinker: run.models.schemaLinker ?? null,
    },
    (qs) =>
      `${count(qs.length, "query", "queries")}: ${qs.map((q) => `${q.kbName} (${strategyInWords(q.strategy)}${q.role === "answer" ? ", answer" : ""})`).join(", ")}`,
    (qs) =>
      qs.map((q) => ({
        kb: q.kbName,
        strategy: q.strategy,
        role: q.role ?? "context",
        language: q.query.language,
        text: q.query.text,
        explanation: q.explanation,
        fit: q.fit ?? null,
      })),
  );
}

async function execute(run: RunContext, formulated: FormulatedQuery[], state: RoundState): Promise<ExecuteOutput> {
  // wrong_module (HybGRAG): the critic named a retrieval module that misled the last round; leave it out
  // of this round when another module still has queries to run.
  const kept = formulated.filter((q) => !state.droppedModules.has(q.strategy));
  const { config } = run;
  const executed = await run.runner.stage(
    "execute",
    run.strategies.execute,
    {
      queries: kept.length ? kept : formulated,
      kbs: run.kbs,
      deps: run.deps,
      queryTimeoutMs: config.queryTimeoutMs,
      maxRows: config.maxRowsPerQuery,
      answerRowCap: config.answerRowCap,
      embedder: run.models.embedder,
    },
    (o) =>
      o.executed
        .map(
          (q) =>
            `${q.kbName}: ${queryOutcomeInWords(q)}${q.truncated && q.role === "answer" ? ` (the first ${config.answerRowCap.toLocaleString("en")} kept)` : ""}`,
        )
        .join("; ") || "No query to run",
    (o) => o.executed.map((q) => ({ kb: q.kbName, status: q.status, rows: q.rows, truncated: q.truncated, ms: q.ms, error: q.error })),
  );
  for (const q of executed.executed.filter((x) => x.status === "unavailable" || x.status === "timeout"))
    run.degradations.push(`${q.kbName}: ${q.error ?? q.status}`);
  return executed;
}

async function guideActions(run: RunContext): Promise<EvidencePiece[]> {
  const { pieces, degradations } = await guideActionPieces(run.guides, run.kbs, run.deps, run.config, run.runner.signal);
  run.degradations.push(...degradations);
  return pieces;
}

/** The pieces the pool ranks: an answer query's long result (up to the answer row cap) contributes its first `maxRows` rows, as any query. */
export function poolable(executed: ExecuteOutput, maxRows: number): EvidencePiece[] {
  const capped = new Set<string>();
  for (const q of executed.executed)
    if (q.role === "answer" && q.evidenceIds.length > maxRows) for (const id of q.evidenceIds.slice(maxRows)) capped.add(id);
  if (capped.size === 0) return executed.pieces;
  const kept = new Set(executed.executed.flatMap((q) => q.evidenceIds.slice(0, maxRows)));
  return executed.pieces.filter((p) => !capped.has(p.id) || kept.has(p.id));
}

async function poolAndRerank(run: RunContext, round: number, executed: ExecuteOutput, actions: EvidencePiece[]): Promise<ScoredEvidence[]> {
  const { runner, intent, config } = run;
  if (runner.observing)
    runner.observe(
      round,
      "retrieval",
      executed.pieces.map((piece) => ({ piece, score: 0, scores: {} })),
    );
  const pooled = await runner.stage(
    "pool",
    classicalPool,
    { intent, pieces: [...poolable(executed, config.maxRowsPerQuery), ...actions], limit: config.poolLimit },
    (p) => `${count(p.length, "result")} gathered from every source`,
  );
  runner.observe(round, "pool", pooled);
  return runner.stage(
    "rerank",
    classicalRerank,
    {
      intent,
      pool: pooled,
      rounds: config.rerankRounds,
      scorers: scorersFor(run.models),
      observe: (r) => runner.observe(round, `rerank:${r.index + 1}:${r.scorer}`, r.ranked),
    },
    (r) => `${count(r.length, "result")} ranked by how well they fit the question`,
  );
}

function selectEvidence(
  run: RunContext,
  ranked: ScoredEvidence[],
  candidates: Candidate[],
  executed: ExecuteOutput,
): Promise<EvidenceSelection> {
  return run.runner.stage(
    "select-evidence",
    run.strategies.selectEvidence,
    { intent: run.intent, ranked, candidates, executed: executed.executed, pieces: executed.pieces, answerRowCap: run.config.answerRowCap },
    (s) => (s.winner ? `${s.winner.kbName}: ${s.winner.reason}` : "no source answered"),
  );
}

async function answerFrom(
  run: RunContext,
  evidence: ScoredEvidence[],
  selection: EvidenceSelection,
  candidates: Candidate[],
): Promise<Answer> {
  const answer = await run.runner.stage(
    "answer",
    run.strategies.answer,
    {
      intent: run.intent,
      evidence,
      threshold: run.config.answerThreshold,
      result: selection.result ?? null,
      sourceTexts: sourceTextsOf(run.catalog, selection.result),
    },
    (a) => (a.refrained ? `No answer: ${a.reason}` : a.certainty === "uncertain" ? `Not certain: ${a.text}` : a.text),
    (a) => a,
  );
  // A refusal caused before any evidence was weighed (another language, words no source knows) says so.
  // Other refusals name the sources they searched (a question that was not read searched none of them).
  const explained = explainUnreadQuestion(answer, run.intent, candidates);
  return explained === answer ? withSourcesSearched(answer, candidates) : explained;
}

/** An answer whose cited tables are about something else than the question is withheld (run/topic-check.ts). */
async function onTopic(run: RunContext, answer: Answer, evidence: ScoredEvidence[], candidates: Candidate[]): Promise<Answer> {
  let verdict;
  try {
    verdict = await offTopic(run.intent.completed, answer, evidence, run.models, run.texts, run.runner.signal);
  } catch (e) {
    if (run.runner.signal.aborted) throw e;
    // A model call that fails leaves the answer as the answer stage gave it.
    return answer;
  }
  if (!verdict) return answer;
  const withheld = offTopicRefusal(answer, verdict, candidates);
  run.runner.emit({
    stage: "answer",
    type: "INFO",
    summary: `Withheld: the cited tables (${verdict.captions.join("; ")}) are not about the question (similarity ${verdict.similarity.toFixed(2)}).`,
  });
  return withheld;
}

/**
 * What the committed result's source says about what its query read: the descriptions of the source
 * objects the query names, then the knowledge base's own. The answer reads the unit of its figures there
 * ("Amounts are in euros.") when the column names do not state one.
 */
function sourceTextsOf(catalog: CatalogEntry[], result: EvidenceSelection["result"]): string[] {
  if (!result) return [];
  const entry = catalog.find((c) => c.kbId === result.kbId);
  if (!entry) return [];
  const query = result.query.toLowerCase();
  const read = entry.sourceObjects.filter((o) => query.includes(o.key.toLowerCase()) || query.includes(o.name.toLowerCase()));
  return [...read.map((o) => o.description), entry.description].filter(Boolean);
}

function critiqueRound(
  run: RunContext,
  round: number,
  answer: Answer,
  evidence: ScoredEvidence[],
  executed: ExecuteOutput,
  candidates: Candidate[],
  state: RoundState,
): Promise<Critique> {
  return run.runner.stage(
    "critique",
    run.strategies.critique,
    {
      intent: run.intent,
      answer,
      evidence,
      executed: executed.executed,
      candidates,
      round,
      maxRounds: run.config.maxRounds,
      previousFeedback: state.previous,
    },
    (c) =>
      c.accepted
        ? "The evidence backs the answer"
        : c.feedback
          ? `Another round: ${c.feedback.detail}`
          : "Not backed by the evidence; nothing left to try",
    (c) => c,
  );
}

/** The round as the refinement path shows it. */
function iterationOf(
  run: RunContext,
  round: number,
  candidates: Candidate[],
  executed: ExecuteOutput,
  answer: Answer,
  critique: Critique,
): Iteration {
  return {
    round,
    candidates: candidates.map((c) => c.kbName),
    queries: executed.executed.map((q) => ({ kbName: q.kbName, strategy: q.strategy, text: q.query.text, status: q.status })),
    answer: answer.refrained ? `refrained: ${answer.reason}` : answer.text,
    accepted: critique.accepted,
    feedback: critique.feedback,
    change: critique.feedback && round < run.config.maxRounds ? describeChange(critique.feedback) : null,
  };
}
