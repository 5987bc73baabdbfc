import type { KbRecord } from "../backends/registry";
import type { KbKind, KbStructure } from "../backends/types";
import { type AccessSubject, kbAccessWhere } from "../catalog/access";
import type { CatalogDeps } from "../deps";
import type { PrismaClient } from "../db/generated/client";
import { AppError } from "../errors";
import { log } from "../log";
import { type ModelHandles, NO_MODELS, resolveModels } from "../models/runtime";
import { textEmbeddings } from "../models/text-embeddings";
import { loadCatalogSnapshot } from "../catalog/snapshot";
import { type PipelineConfig, pipelineConfigSchema } from "./config";
import { prismaEntityLookup } from "./entity-lookup";
import { mergeIdenticalEvidence } from "./merge-evidence";
import { questionVector } from "./scorers/dense";
import { languageName } from "./stages/answer/unread-question";
import { BudgetSpent } from "./run/budget";
import { withCriticVerdict } from "./run/critic-verdict";
import { runFeatures } from "./calibration/features";
import { kindOf, shippedCalibrator } from "./calibration/calibrator";
import { cautionTarget, heldKinds } from "./calibration/caution";
import { doubtsOf } from "./calibration/doubts";
import { heldBelowTarget } from "./run/caution-gate";
import { loadRunGuides } from "./run/guide-bookkeeping";
import { openRun, storeGuideHealth, storeIntent, storeOutcome, TraceStore, type Turn } from "./run/persistence";
import { firstState, nextState, type RoundResult, runRound, type RunContext } from "./run/round";
import { StageRunner } from "./run/stage-runner";
import { type GuideHit, NO_ANSWER, type RunOutcome, type RunRequest } from "./run/types";
import { type PipelineStrategies, resolveStrategies } from "./strategies";
import { intentInWords } from "./strategy-words";
import type { Intent, Iteration } from "./contracts";

export { NO_ANSWER, type RunEvent, type RunOutcome, type RunRequest } from "./run/types";

/**
 * One run of the answering pipeline (DESIGN.md): understand, then rounds of select → formulate →
 * execute → pool → rerank → select evidence → answer → critique (run/round.ts), looping back with the
 * critic's feedback at most `maxRounds` times. Access rules apply at every step (only KBs the user may
 * use are read), every stage is traced, timed and streamed (run/stage-runner.ts), and the run is stored
 * as it goes (run/persistence.ts).
 */
export async function runPipeline(prisma: PrismaClient, deps: CatalogDeps, req: RunRequest): Promise<RunOutcome> {
  const config = pipelineConfigSchema.parse(req.config ?? {});
  const startedAt = Date.now();
  const degradations: string[] = [];
  const question = boundedQuestion(req.question, config, degradations);
  const requested = req.kbIds?.length ? [...new Set(req.kbIds)] : null;
  const kbs = await usableKbs(prisma, req.user, requested);
  const strategies = await resolveStrategies(prisma, deps, req.llm);
  degradations.push(...strategies.notes);
  // Models: semantic signals join where an embedder runs; without one every ranking is classical.
  const models = req.models === undefined ? await resolveModels(prisma) : (req.models ?? NO_MODELS);
  const texts = models.embedder ? textEmbeddings(prisma, models.embedder) : null;
  // Model calls take seconds, not milliseconds: an LLM run gets the longer budget unless the caller set one.
  const budgetMs = strategies.llm && req.config?.timeBudgetMs === undefined ? config.llmTimeBudgetMs : config.timeBudgetMs;
  const opened = await openRun(prisma, req.user, question, req.conversationId ?? null, requested);
  const runner = new StageRunner(opened.runId, new TraceStore(prisma, opened.runId), req, budgetMs, startedAt);

  let intent: Intent | null = null;
  let guides: GuideHit[] = [];
  let best: RoundResult | null = null;
  const iterations: Iteration[] = [];
  let status: RunOutcome["status"];
  let answer = NO_ANSWER("No knowledge base answered.");
  try {
    for (const d of degradations) runner.emit({ stage: "run", type: "INFO", summary: d });
    runner.emit({
      stage: "run",
      type: "INFO",
      summary: describeModels(models),
      payload: { embedder: models.embedder?.info.id ?? null, crossEncoder: models.crossEncoder?.info.id ?? null },
    });
    if (!kbs.size) {
      answer = NO_ANSWER("No knowledge base is shared with you yet. Ask an admin to give your group access to one.");
    } else {
      intent = await understand(prisma, runner, strategies, question, opened.history, [...kbs.keys()], degradations);
      await storeIntent(prisma, opened.runId, intent);
      const loaded = await loadRunGuides(
        prisma,
        req.guides,
        req.user,
        opened.runId,
        intent.completed,
        [...kbs.keys()],
        models.embedder && texts ? { embedder: models.embedder, texts, question: questionVector(models.embedder, intent) } : null,
        models.guideMatcher ?? null,
      );
      guides = loaded.hits;
      strategies.useGuides(guides.map((g) => g.guideId));
      for (const note of loaded.notes) {
        degradations.push(note);
        runner.emit({ stage: "select", type: "INFO", summary: note });
      }
      const run: RunContext = {
        deps,
        config,
        strategies,
        runner,
        kbs,
        requested,
        intent,
        catalog: await loadCatalogSnapshot(prisma, [...kbs.keys()]),
        guides,
        // A failing read leaves the linker without the guides' vocabulary, as it was before guides taught any.
        guideExamples: req.guideExamples ? await req.guideExamples({ user: req.user, kbIds: [...kbs.keys()] }).catch(() => []) : [],
        structures: new Map<string, KbStructure>(),
        degradations,
        models,
        texts,
      };
      let state = firstState();
      for (let round = 1; round <= config.maxRounds; round++) {
        const result = await runRound(run, round, state);
        iterations.push(result.iteration);
        best = keepBest(best, result);
        const feedback = result.critique.feedback;
        if (result.critique.accepted || !feedback || round === config.maxRounds) break;
        state = nextState(state, feedback, result.candidates);
      }
    }
    best = heldToVerdict(best, runner);
    if (best) answer = best.answer;
    status = answer.refrained ? "REFRAINED" : "ANSWERED";
  } catch (e) {
    best = heldToVerdict(best, runner);
    ({ status, answer } = stoppedEarly(e, runner, best, budgetMs, degradations, opened.runId));
  } finally {
    runner.close();
  }
  // The same row or passage returned by two queries is cited once, listing both queries.
  let evidence = best?.evidence ?? [];
  if (best && answer === best.answer) ({ evidence, answer } = mergeIdenticalEvidence(best.evidence, best.answer));

  const features = runFeatures({
    intent,
    answer,
    iterations,
    candidates: best?.candidates ?? [],
    queries: best?.queries ?? [],
    winner: best?.winner ?? null,
    evidence,
  });
  // The confidence shown is the calibrated probability of being right; a run with no value to judge keeps 0.
  const raw = answer.confidence;
  const calibrator = config.calibrateConfidence ? shippedCalibrator() : null;
  const judged = (status === "ANSWERED" || status === "REFRAINED") && (!answer.refrained || answer.candidates.length > 0);
  const calibrated = calibrator && judged ? calibrator.probability(features) : null;
  if (calibrated !== null) answer = { ...answer, confidence: Number(calibrated.toFixed(3)) };
  // Below the workspace's caution target an answer is not shown as one: it is "not certain", with what
  // it found and why (the features that cost it most). Only a calibrated confidence is compared.
  const target = config.answerTarget ?? (await cautionTarget(prisma));
  const gateable =
    calibrator !== null && calibrated !== null && status === "ANSWERED" && !answer.refrained && heldKinds(calibrator).has(kindOf(features));
  const held = gateable && calibrated < target;
  if (held) {
    answer = heldBelowTarget(answer, target, doubtsOf(features, calibrator.weightsFor(features)!));
    runner.emit({ stage: "run", type: "INFO", summary: answer.reason ?? "" });
  }
  const outcome: RunOutcome = {
    runId: opened.runId,
    conversationId: opened.conversationId,
    status,
    question,
    intent,
    answer,
    candidates: best?.candidates ?? [],
    queries: best?.queries ?? [],
    evidence,
    winner: best?.winner ?? null,
    iterations,
    guides: guides.map((g) => ({ guideId: g.guideId, question: g.question, score: g.score })),
    timings: runner.timings,
    trace: runner.trace,
    degradations,
    totalMs: Date.now() - startedAt,
    llm: strategies.llm ? strategies.llm.totals() : null,
    calibration: {
      features,
      raw,
      calibrator: calibrator && calibrated !== null ? { version: calibrator.version, sha256: calibrator.sha256 } : null,
    },
    caution: { target, applies: gateable, held },
  };
  runner.emit({
    stage: "run",
    type: "END",
    durationMs: outcome.totalMs,
    summary: status === "ANSWERED" ? `answered: ${answer.text}` : `${status.toLowerCase()}: ${answer.reason ?? ""}`,
  });
  await runner.flush();
  await storeOutcome(prisma, outcome);
  await storeGuideHealth(prisma, outcome.queries);
  return outcome;
}

/** The question as the run reads it: whitespace collapsed, cut (and said so) beyond the configured length. */
function boundedQuestion(raw: string, config: PipelineConfig, degradations: string[]): string {
  const question = raw.replace(/\s+/g, " ").trim();
  if (!question) throw new AppError("VALIDATION", "Type a question first.", { question: "Required." });
  if (question.length <= config.maxQuestionChars) return question;
  degradations.push(
    `The question was ${raw.length.toLocaleString("en")} characters long; only the first ${config.maxQuestionChars} were used.`,
  );
  return question.slice(0, config.maxQuestionChars);
}

/** Access: the KBs this run may read, decided once, from the data. */
async function usableKbs(prisma: PrismaClient, user: AccessSubject, requested: string[] | null): Promise<Map<string, KbRecord>> {
  const rows = await prisma.knowledgeBase.findMany({
    where: { AND: [kbAccessWhere(user), requested ? { id: { in: requested } } : {}] },
    select: {
      id: true,
      name: true,
      kind: true,
      config: true,
      secretsCiphertext: true,
      updatedAt: true,
      riskAcceptedAt: true,
      status: true,
    },
  });
  if (requested && rows.length !== requested.length)
    throw new AppError("NOT_FOUND", "One of the chosen knowledge bases does not exist or is not shared with you.");
  return new Map(rows.map((k) => [k.id, { ...k, kind: k.kind as KbKind }]));
}

async function understand(
  prisma: PrismaClient,
  runner: StageRunner,
  strategies: PipelineStrategies,
  question: string,
  history: Turn[],
  kbIds: string[],
  degradations: string[],
): Promise<Intent> {
  const intent = await runner.stage(
    "understand",
    strategies.understand,
    { question, history, kbIds, lookup: prismaEntityLookup(prisma) },
    // In words for the stage panel; the links and the relation are in the intent the trace keeps.
    (i) => intentInWords(i),
    (i) => i,
  );
  // The understand stage traces the details; the outcome keeps one line for the caller.
  if (intent.language !== "en")
    degradations.push(
      `The question looks like it is in ${languageName(intent.language)}, not English; understanding and search are tuned for English, so results may be weaker.`,
    );
  return intent;
}

/** The run's first trace line about models: which ran, or why ranking is classical. */
function describeModels(models: ModelHandles): string {
  if (!models.embedder && !models.crossEncoder) {
    return models.notes.length ? `Ranking is classical: ${models.notes.join(" ")}` : "Ranking is classical (models are switched off).";
  }
  const parts = [
    models.embedder ? `semantic ranking with ${models.embedder.info.name} (${models.embedder.info.precision})` : null,
    models.crossEncoder
      ? `re-ranking with ${models.crossEncoder.info.name} (${models.crossEncoder.info.precision})`
      : "no cross-encoder installed",
  ].filter(Boolean);
  return `Models: ${parts.join("; ")}.${models.notes.length ? ` ${models.notes.join(" ")}` : ""}`;
}

/** The round the run keeps: one the critic accepted, else the first answer, else the more confident one. */
function keepBest(best: RoundResult | null, round: RoundResult): RoundResult {
  if (!best || round.critique.accepted) return round;
  if (!round.answer.refrained && (best.answer.refrained || round.answer.confidence > best.answer.confidence)) return round;
  return best;
}

/**
 * The kept round's answer as the critic's verdict allows it (run/critic-verdict.ts): one the critic
 * did not accept is shown at most as "not certain", or withheld when it answers another question.
 */
function heldToVerdict(best: RoundResult | null, runner: StageRunner): RoundResult | null {
  if (!best) return best;
  const answer = withCriticVerdict(best.answer, best.critique);
  if (answer === best.answer) return best;
  runner.emit({
    stage: "run",
    type: "INFO",
    summary: answer.refrained ? `The critic rejected the answer; it is withheld. ${answer.reason}` : `${answer.reason}`,
  });
  return { ...best, answer };
}

/** A run that stopped before its last round: cancelled, out of budget (keeping what it had), or failed. */
function stoppedEarly(
  e: unknown,
  runner: StageRunner,
  best: RoundResult | null,
  budgetMs: number,
  degradations: string[],
  runId: string,
): { status: RunOutcome["status"]; answer: RunOutcome["answer"] } {
  if (runner.cancelled(e)) return { status: "CANCELLED", answer: NO_ANSWER("The run was cancelled.") };
  if (e instanceof BudgetSpent || runner.budgetSpent()) {
    const note = `The run used its ${budgetMs / 1000} s budget; it stopped at ${e instanceof BudgetSpent ? e.stage : "a stage"} with what it had.`;
    degradations.push(note);
    runner.emit({ stage: "run", type: "INFO", summary: note });
    const answer = best?.answer ?? NO_ANSWER(note);
    return { status: answer.refrained ? "REFRAINED" : "ANSWERED", answer: answer.refrained && !answer.reason ? NO_ANSWER(note) : answer };
  }
  log.error({ err: e, runId }, "run failed");
  return { status: "FAILED", answer: NO_ANSWER(e instanceof AppError ? e.message : "The run failed on our side; the error was logged.") };
}

/** The `npm run ask -- --json` shape (issue 4). */
export function outcomeToJson(o: RunOutcome) {
  return {
    question: o.question,
    answer: o.answer.refrained ? null : o.answer.text,
    refrained: o.answer.refrained,
    reason: o.answer.reason,
    confidence: Number(o.answer.confidence.toFixed(3)),
    certainty: o.answer.refrained ? null : (o.answer.certainty ?? "certain"),
    calibration: o.calibration ? { raw: Number(o.calibration.raw.toFixed(3)), calibrator: o.calibration.calibrator } : null,
    caution: o.caution ?? null,
    emptyResult: o.answer.emptyResult ?? null,
    citations: o.answer.citations,
    shape: o.answer.shape ?? null,
    evidence: o.evidence.map((e) => ({
      id: e.piece.id,
      kind: e.piece.kind,
      text: e.piece.text,
      kb: e.piece.provenance.kbName,
      sourceObject: e.piece.provenance.sourceObject,
      query: e.piece.provenance.query,
      score: Number(e.score.toFixed(4)),
    })),
    candidates: o.candidates.map((c) => ({
      kb: c.kbName,
      score: Number(c.score.toFixed(4)),
      reasons: c.reasons.map((r) => `${r.type}: ${r.detail}`),
    })),
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
