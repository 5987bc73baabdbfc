import { openBackend, type KbRecord } from "../backends/registry";
import type { EvidencePiece, KbKind, KbStructure } from "../backends/types";
import { type AccessSubject, kbAccessWhere } from "../catalog/access";
import type { CatalogDeps } from "../catalog/deps";
import type { Prisma, PrismaClient } from "../db/generated/client";
import { AppError } from "../errors";
import { count } from "../format/count";
import type { LlmConfig } from "../llm/config";
import type { LlmUsageTotals } from "../llm/usage";
import { log } from "../log";
import { loadCatalogSnapshot } from "./catalog-snapshot";
import { type PipelineConfig, pipelineConfigSchema } from "./config";
import { prismaEntityLookup } from "./entity-lookup";
import { executeGuideAction } from "./execute-action";
import { findNearestGuides, type GuideHit } from "./guides";
import { mergeIdenticalEvidence } from "./merge-evidence";
import { strategyInWords } from "./strategy-words";
import { RunCancelledError, type StageContext, type StageStrategy, type TraceEventInput } from "./stage";
import { describeChange } from "./stages/critique";
import { explainUnreadQuestion, languageName } from "./stages/answer/unread-question";
import type { ExecuteOutput } from "./stages/execute";
import { classicalPool } from "./stages/pool";
import { classicalRerank } from "./stages/rerank";
import { resolveStrategies, strategyLabel } from "./strategies";
import type { Answer, Candidate, Critique, EvidenceSelection, ExecutedQuery, Feedback, FormulatedQuery, Intent, Iteration, ScoredEvidence } from "./types";

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
}

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
}

const NO_ANSWER = (reason: string): Answer => ({ text: "Not found in the sources.", refrained: true, reason, confidence: 0, citations: [], candidates: [] });

/**
 * One run of the answering pipeline (DESIGN.md): understand → select → formulate → execute → verbalize →
 * pool → rerank → select evidence → answer → critique, looping back to select/formulate with the
 * critic's feedback at most `maxRounds` times. Access rules apply at every step (only KBs the user may
 * use are read), every stage is traced and timed, and the run is stored as it goes.
 */
export async function runPipeline(prisma: PrismaClient, deps: CatalogDeps, req: RunRequest): Promise<RunOutcome> {
  const config = pipelineConfigSchema.parse(req.config ?? {});
  const startedAt = Date.now();
  const degradations: string[] = [];
  let question = req.question.replace(/\s+/g, " ").trim();
  if (!question) throw new AppError("VALIDATION", "Type a question first.", { question: "Required." });
  if (question.length > config.maxQuestionChars) {
    question = question.slice(0, config.maxQuestionChars);
    degradations.push(`The question was ${req.question.length.toLocaleString("en")} characters long; only the first ${config.maxQuestionChars} were used.`);
  }

  // Access: the KBs this run may read, decided once, from the data.
  const requested = req.kbIds?.length ? [...new Set(req.kbIds)] : null;
  const kbRows = await prisma.knowledgeBase.findMany({
    where: { AND: [kbAccessWhere(req.user), requested ? { id: { in: requested } } : {}] },
    select: { id: true, name: true, kind: true, config: true, secretsCiphertext: true, updatedAt: true, status: true },
  });
  if (requested && kbRows.length !== requested.length) throw new AppError("NOT_FOUND", "One of the chosen knowledge bases does not exist or is not shared with you.");
  const kbs = new Map<string, KbRecord>(kbRows.map((k) => [k.id, { ...k, kind: k.kind as KbKind }]));

  // Strategies: the LLM in front of the classical ones where configured (lib/pipeline/strategies.ts).
  const strategies = await resolveStrategies(prisma, deps, req.llm);
  degradations.push(...strategies.notes);
  // Model calls take seconds, not milliseconds: an LLM run gets the longer budget unless the caller set one.
  const budgetMs = strategies.llm && req.config?.timeBudgetMs === undefined ? config.llmTimeBudgetMs : config.timeBudgetMs;

  // Conversation and history (follow-ups are completed from earlier turns' intents).
  let conversationId = req.conversationId ?? null;
  let history: { question: string; intent: Intent }[] = [];
  if (conversationId) {
    const conv = await prisma.conversation.findFirst({ where: { id: conversationId, userId: req.user.id }, select: { id: true } });
    if (!conv) throw new AppError("NOT_FOUND", "That conversation does not exist or is not yours.");
    const prior = await prisma.run.findMany({ where: { conversationId }, orderBy: { createdAt: "asc" }, select: { question: true, intent: true }, take: 20 });
    history = prior.filter((p) => p.intent).map((p) => ({ question: p.question, intent: p.intent as unknown as Intent }));
  } else {
    conversationId = (await prisma.conversation.create({ data: { userId: req.user.id, title: question.slice(0, 120) } })).id;
  }
  await prisma.conversation.update({ where: { id: conversationId }, data: { updatedAt: new Date() } });

  const run = await prisma.run.create({
    data: { userId: req.user.id, conversationId, question, requestedKbIds: requested ?? [], status: "RUNNING", startedAt: new Date() },
    select: { id: true },
  });

  // Trace: events are streamed as they happen and stored after each stage.
  let seq = 0;
  const pending: Prisma.TraceEventCreateManyInput[] = [];
  const trace: RunOutcome["trace"] = [];
  const timings: Record<string, number> = {};
  const emit = (e: TraceEventInput) => {
    const event: RunEvent = { ...e, runId: run.id, seq: seq++, at: new Date().toISOString() };
    pending.push({
      runId: run.id,
      seq: event.seq,
      stage: e.stage,
      type: e.type,
      strategy: e.strategy ?? null,
      durationMs: e.durationMs === undefined ? null : Math.round(e.durationMs),
      summary: e.summary.slice(0, 2000),
      payload: (e.payload ?? {}) as Prisma.InputJsonValue,
      costUsd: e.costUsd ?? null,
    });
    try {
      req.onEvent?.(event);
    } catch (err) {
      log.warn({ err }, "run event listener failed");
    }
  };
  const flush = async () => {
    if (!pending.length) return;
    const batch = pending.splice(0, pending.length);
    await prisma.traceEvent.createMany({ data: batch });
  };

  const controller = new AbortController();
  const deadline = startedAt + budgetMs;
  const budgetTimer = setTimeout(() => controller.abort(new Error("time budget spent")), budgetMs);
  const onCancel = () => controller.abort(new RunCancelledError());
  if (req.signal?.aborted) onCancel();
  else req.signal?.addEventListener("abort", onCancel, { once: true });
  const ctx: StageContext = { signal: controller.signal, deadline, trace: emit };

  const observe = (round: number, label: string, ranked: ScoredEvidence[]) => {
    try {
      req.observeRanking?.({ round, label, ranked });
    } catch (err) {
      log.warn({ err }, "ranking observer failed");
    }
  };
  const budgetSpent = () => controller.signal.aborted && !(controller.signal.reason instanceof RunCancelledError);
  async function stage<I, O>(name: string, strategy: StageStrategy<I, O>, input: I, summarize: (o: O) => string, payload?: (o: O) => unknown): Promise<O> {
    if (controller.signal.aborted) throw controller.signal.reason instanceof RunCancelledError ? controller.signal.reason : new BudgetSpent(name);
    emit({ stage: name, type: "START", strategy: strategy.name, summary: `${name} started` });
    // Let the stream flush: a stage that never waits on I/O would otherwise reach the browser in one burst with the next.
    await new Promise((resolve) => setImmediate(resolve));
    const t = performance.now();
    try {
      // The stage's own work honours ctx.signal; racing it with the signal bounds a stage that does not.
      const out = await raceAbort(strategy.run(input, ctx), controller.signal, () =>
        controller.signal.reason instanceof RunCancelledError ? controller.signal.reason : new BudgetSpent(name),
      );
      const ms = performance.now() - t;
      // The strategy that actually ran: "llm", or "classical (fallback: <reason>)" (strategies.ts).
      const ran = strategyLabel(strategy as StageStrategy<unknown, unknown>);
      timings[name] = Math.round((timings[name] ?? 0) + ms);
      trace.push({ stage: name, strategy: ran, ms: Math.round(ms) });
      emit({ stage: name, type: "END", strategy: ran, durationMs: ms, summary: summarize(out), payload: payload?.(out) });
      return out;
    } catch (e) {
      const ms = performance.now() - t;
      const ran = strategyLabel(strategy as StageStrategy<unknown, unknown>);
      timings[name] = Math.round((timings[name] ?? 0) + ms);
      trace.push({ stage: name, strategy: ran, ms: Math.round(ms) });
      emit({ stage: name, type: "ERROR", strategy: ran, durationMs: ms, summary: `${name} failed: ${(e as Error).message}` });
      throw e;
    } finally {
      await flush().catch((err) => log.warn({ err }, "could not store trace events"));
    }
  }

  let intent: Intent | null = null;
  let finalAnswer: Answer = NO_ANSWER("No knowledge base answered.");
  let finalCandidates: Candidate[] = [];
  let finalQueries: ExecutedQuery[] = [];
  let finalEvidence: ScoredEvidence[] = [];
  let winner: RunOutcome["winner"] = null;
  const iterations: Iteration[] = [];
  let guides: GuideHit[] = [];
  let status: RunOutcome["status"] = "REFRAINED";

  try {
    for (const d of degradations) emit({ stage: "run", type: "INFO", summary: d });
    if (!kbs.size) {
      finalAnswer = NO_ANSWER("No knowledge base is shared with you yet. Ask an admin to give your group access to one.");
    } else {
      const kbIds = [...kbs.keys()];
      intent = await stage(
        "understand",
        strategies.understand,
        { question, history, kbIds, lookup: prismaEntityLookup(prisma) },
        (i) => `${i.answerTypes.join("/") || "?"}; entities: ${i.entities.map((e) => `${e.mention}${e.links.length ? ` → ${e.links[0].label}` : " (unlinked)"}`).join(", ") || "none"}${i.relation ? `; relation: ${i.relation}` : ""}`,
        (i) => i,
      );
      if (intent.language !== "en") {
        // The understand stage traces the details; the outcome keeps one line for the caller.
        degradations.push(`The question looks like it is in ${languageName(intent.language)}, not English; understanding and search are tuned for English, so results may be weaker.`);
      }
      await prisma.run.update({ where: { id: run.id }, data: { intent: intent as unknown as Prisma.InputJsonValue } });

      guides = await findNearestGuides(prisma, req.user, intent.completed, kbIds);
      strategies.useGuides(guides.map((g) => g.guideId));
      for (const g of guides.filter((g) => g.invalidActions > 0)) {
        const note = `Guide "${g.question.slice(0, 80)}" has ${g.invalidActions} malformed action(s); they were skipped.`;
        degradations.push(note);
        emit({ stage: "select", type: "INFO", summary: note });
      }
      if (guides.length) {
        await prisma.runGuideUse.createMany({ data: guides.map((g) => ({ runId: run.id, guideId: g.guideId, score: g.score })), skipDuplicates: true });
      }
      const catalog = await loadCatalogSnapshot(prisma, kbIds);
      const structures = new Map<string, KbStructure>();
      const feedbackSoFar: Feedback[] = [];
      const excluded = new Set<string>();
      const droppedModules = new Set<string>();
      let feedback: Feedback | null = null;
      let best: { answer: Answer; candidates: Candidate[]; queries: ExecutedQuery[]; evidence: ScoredEvidence[]; winner: RunOutcome["winner"] } | null = null;

      for (let round = 1; round <= config.maxRounds; round++) {
        const candidates = await stage(
          "select",
          strategies.select,
          { intent, catalog, guides: guides.map((g) => ({ guideId: g.guideId, question: g.question, score: g.score, kbIds: g.kbIds })), k: config.candidates, requestedKbIds: requested ?? undefined, exclude: [...excluded] },
          (c) => c.map((x) => `${x.kbName} (${x.score.toFixed(2)})`).join(", ") || "no candidate",
          (c) => c,
        );
        for (const c of candidates) {
          if (structures.has(c.kbId)) continue;
          try {
            // A KB that hangs (an endpoint that accepts and never answers) costs at most one query timeout.
            const limit = Math.min(config.queryTimeoutMs, Math.max(250, deadline - Date.now()));
            structures.set(c.kbId, await withTimeout(openBackend(kbs.get(c.kbId)!, deps).structure(), limit, `did not answer within ${(limit / 1000).toFixed(1)} s`, controller.signal));
          } catch (e) {
            const note = `${c.kbName} could not be read: ${(e as Error).message}`;
            degradations.push(note);
            emit({ stage: "formulate", type: "INFO", summary: note });
          }
        }
        const formulated: FormulatedQuery[] = await stage(
          "formulate",
          strategies.formulate,
          {
            intent,
            candidates: candidates.filter((c) => structures.has(c.kbId)),
            structures,
            guides: guides.flatMap((g) => g.examples.map((ex) => ({ guideId: g.guideId, question: g.question, score: g.score, kbId: ex.kbId, query: ex.query }))),
            feedback,
          },
          (qs) => `${count(qs.length, "query", "queries")}: ${qs.map((q) => `${q.kbName} (${strategyInWords(q.strategy)})`).join(", ")}`,
          (qs) => qs.map((q) => ({ kb: q.kbName, strategy: q.strategy, language: q.query.language, text: q.query.text, explanation: q.explanation })),
        );
        // wrong_module (HybGRAG): the critic named a retrieval module that misled the last round; leave it out
        // of this round when another module still has queries to run.
        const modules = formulated.filter((q) => !droppedModules.has(q.strategy));
        const toRun = modules.length ? modules : formulated;
        const executed: ExecuteOutput = await stage(
          "execute",
          strategies.execute,
          { queries: toRun, kbs, deps, queryTimeoutMs: config.queryTimeoutMs, maxRows: config.maxRowsPerQuery },
          (o) => o.executed.map((q) => `${q.kbName}: ${q.status}${q.rows ? ` (${q.rows} rows)` : ""}`).join("; ") || "nothing to run",
          (o) => o.executed.map((q) => ({ kb: q.kbName, status: q.status, rows: q.rows, ms: q.ms, error: q.error })),
        );
        for (const q of executed.executed.filter((x) => x.status === "unavailable" || x.status === "timeout")) {
          degradations.push(`${q.kbName}: ${q.error ?? q.status}`);
        }
        // Guide actions that are not native queries (SelectCoordinates, SelectSentenceIdxs, Neighborhood) run directly.
        const actionPieces: EvidencePiece[] = [];
        if (round === 1) {
          for (const g of guides.filter((x) => x.score >= 0.5)) {
            for (const a of g.actions.filter((x) => x.action.kind !== "NATIVE_QUERY" && kbs.has(x.kbId))) {
              try {
                const r = await executeGuideAction(kbs.get(a.kbId)!, a.action, deps, { timeoutMs: config.queryTimeoutMs, maxRows: config.maxRowsPerQuery, signal: ctx.signal });
                actionPieces.push(...r.pieces);
              } catch (e) {
                degradations.push(`A retrieval action of guide "${g.question.slice(0, 60)}" failed: ${(e as Error).message}`);
              }
            }
          }
        }
        if (req.observeRanking) observe(round, "retrieval", executed.pieces.map((piece) => ({ piece, score: 0, scores: {} })));
        const pooled: ScoredEvidence[] = await stage("pool", classicalPool, { intent, pieces: [...executed.pieces, ...actionPieces], limit: config.poolLimit }, (p) => `${p.length} pieces pooled`);
        observe(round, "pool", pooled);
        const reranked: ScoredEvidence[] = await stage(
          "rerank",
          classicalRerank,
          { intent, pool: pooled, rounds: config.rerankRounds, observe: (r) => observe(round, `rerank:${r.index + 1}:${r.scorer}`, r.ranked) },
          (r) => `${r.length} pieces kept`,
        );
        const selection: EvidenceSelection = await stage(
          "select-evidence",
          strategies.selectEvidence,
          { intent, ranked: reranked, candidates, executed: executed.executed },
          (s) => (s.winner ? `${s.winner.kbName}: ${s.winner.reason}` : "no source answered"),
        );
        const evidence: ScoredEvidence[] = selection.evidence.slice(0, config.evidenceForAnswer);
        // A refusal caused before any evidence was weighed (another language, words no source knows) says so.
        const answer: Answer = explainUnreadQuestion(
          await stage(
            "answer",
            strategies.answer,
            { intent, evidence, threshold: config.answerThreshold },
            (a) => (a.refrained ? `refrained: ${a.reason}` : `${a.text} (confidence ${a.confidence.toFixed(2)})`),
            (a) => a,
          ),
          intent,
          candidates,
        );
        const critique: Critique = await stage(
          "critique",
          strategies.critique,
          { intent, answer, evidence, executed: executed.executed, candidates, round, maxRounds: config.maxRounds, previousFeedback: feedbackSoFar },
          (c) =>
            c.accepted ? "accepted" : c.feedback ? `feedback: ${c.feedback.type}${c.feedback.target ? ` (${c.feedback.target})` : ""}` : "not accepted; no correction left to try",
          (c) => c,
        );
        const change = critique.feedback && round < config.maxRounds ? describeChange(critique.feedback) : null;
        iterations.push({
          round,
          candidates: candidates.map((c) => c.kbName),
          queries: executed.executed.map((q) => ({ kbName: q.kbName, strategy: q.strategy, text: q.query.text, status: q.status })),
          answer: answer.refrained ? `refrained: ${answer.reason}` : answer.text,
          accepted: critique.accepted,
          feedback: critique.feedback,
          change,
        });
        const thisRound = { answer, candidates, queries: executed.executed, evidence, winner: selection.winner };
        if (!best || critique.accepted || (!answer.refrained && (best.answer.refrained || answer.confidence > best.answer.confidence))) best = thisRound;
        const fb = critique.feedback;
        if (critique.accepted || !fb || round === config.maxRounds) {
          if (critique.accepted) best = thisRound;
          break;
        }
        feedback = fb;
        feedbackSoFar.push(fb);
        if (fb.type === "wrong_module" && fb.target) droppedModules.add(fb.target);
        if (fb.type === "wrong_source" && fb.target) {
          const target = candidates.find((c) => c.kbId === fb.target || c.kbName === fb.target);
          if (target) excluded.add(target.kbId);
        }
      }
      if (best) {
        finalAnswer = best.answer;
        finalCandidates = best.candidates;
        finalQueries = best.queries;
        finalEvidence = best.evidence;
        winner = best.winner;
      }
      ({ evidence: finalEvidence, answer: finalAnswer } = mergeIdenticalEvidence(finalEvidence, finalAnswer));
    }
    status = finalAnswer.refrained ? "REFRAINED" : "ANSWERED";
  } catch (e) {
    if (e instanceof RunCancelledError || (controller.signal.aborted && controller.signal.reason instanceof RunCancelledError)) {
      status = "CANCELLED";
      finalAnswer = NO_ANSWER("The run was cancelled.");
    } else if (e instanceof BudgetSpent || budgetSpent()) {
      status = finalAnswer.refrained ? "REFRAINED" : "ANSWERED";
      const note = `The run used its ${budgetMs / 1000} s budget; it stopped at ${e instanceof BudgetSpent ? e.stage : "a stage"} with what it had.`;
      degradations.push(note);
      emit({ stage: "run", type: "INFO", summary: note });
      if (!finalAnswer.reason && finalAnswer.refrained) finalAnswer = NO_ANSWER(note);
    } else {
      status = "FAILED";
      log.error({ err: e, runId: run.id }, "run failed");
      finalAnswer = NO_ANSWER(e instanceof AppError ? e.message : "The run failed on our side; the error was logged.");
    }
  } finally {
    clearTimeout(budgetTimer);
    req.signal?.removeEventListener("abort", onCancel);
  }

  const totalMs = Date.now() - startedAt;
  const outcome: RunOutcome = {
    runId: run.id,
    conversationId,
    status,
    question,
    intent,
    answer: finalAnswer,
    candidates: finalCandidates,
    queries: finalQueries,
    evidence: finalEvidence,
    winner,
    iterations,
    guides: guides.map((g) => ({ guideId: g.guideId, question: g.question, score: g.score })),
    timings,
    trace,
    degradations,
    totalMs,
    llm: strategies.llm ? strategies.llm.totals() : null,
  };
  emit({ stage: "run", type: "END", durationMs: totalMs, summary: status === "ANSWERED" ? `answered: ${finalAnswer.text}` : `${status.toLowerCase()}: ${finalAnswer.reason ?? ""}` });
  await flush().catch((err) => log.warn({ err }, "could not store trace events"));
  await prisma.run.update({
    where: { id: run.id },
    data: {
      status,
      answer: finalAnswer.refrained ? null : finalAnswer.text,
      refrained: finalAnswer.refrained,
      refrainReason: finalAnswer.reason,
      confidence: finalAnswer.confidence,
      timings: { ...timings, total: totalMs } as Prisma.InputJsonValue,
      result: JSON.parse(JSON.stringify({ ...outcome, evidence: outcome.evidence.slice(0, 50) })) as Prisma.InputJsonValue,
      error: status === "FAILED" ? finalAnswer.reason : null,
      finishedAt: new Date(),
    },
  });
  return outcome;
}

/** Rejects with `error()` as soon as `signal` aborts; otherwise settles as `work` does. */
function raceAbort<T>(work: Promise<T>, signal: AbortSignal, error: () => Error): Promise<T> {
  if (signal.aborted) return Promise.reject(error());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(error());
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
}

/** `work`, or an Error(message) after `ms` (or when `signal` aborts), whichever comes first. */
function withTimeout<T>(work: Promise<T>, ms: number, message: string, signal: AbortSignal): Promise<T> {
  const timer = new AbortController();
  const t = setTimeout(() => timer.abort(), ms);
  const both = AbortSignal.any([timer.signal, signal]);
  return raceAbort(work, both, () => new Error(message)).finally(() => clearTimeout(t));
}

class BudgetSpent extends Error {
  constructor(public readonly stage: string) {
    super(`time budget spent before ${stage}`);
  }
}

/** The `npm run ask -- --json` shape (issue 4). */
export function outcomeToJson(o: RunOutcome) {
  return {
    question: o.question,
    answer: o.answer.refrained ? null : o.answer.text,
    refrained: o.answer.refrained,
    reason: o.answer.reason,
    confidence: Number(o.answer.confidence.toFixed(3)),
    citations: o.answer.citations,
    evidence: o.evidence.map((e) => ({
      id: e.piece.id,
      kind: e.piece.kind,
      text: e.piece.text,
      kb: e.piece.provenance.kbName,
      sourceObject: e.piece.provenance.sourceObject,
      query: e.piece.provenance.query,
      score: Number(e.score.toFixed(4)),
    })),
    candidates: o.candidates.map((c) => ({ kb: c.kbName, score: Number(c.score.toFixed(4)), reasons: c.reasons.map((r) => `${r.type}: ${r.detail}`) })),
    winner: o.winner,
    trace: o.trace,
    iterations: o.iterations.map((i) => ({ round: i.round, feedback: i.feedback, accepted: i.accepted, change: i.change })),
    degradations: o.degradations,
    runId: o.runId,
    conversationId: o.conversationId,
    totalMs: o.totalMs,
    llm: o.llm ?? null,
  };
}
