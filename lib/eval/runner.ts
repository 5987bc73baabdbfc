import { createHash } from "node:crypto";
import type { AccessSubject } from "../catalog/access";
import type { CatalogDeps } from "../deps";
import type { Prisma, PrismaClient } from "../db/generated/client";
import { AppError } from "../errors";
import { log } from "../log";
import { type PipelineConfig, pipelineConfigSchema } from "../pipeline/config";
import { resolveSuiteCatalog, type SuiteCatalog } from "./catalog";
import { correctOf } from "./correct";
import { evaluateQuestion, followUpNotAsked } from "./evaluate-question";
import { GoldResolver } from "./gold/resolve";
import { aggregate } from "./metrics/aggregate";
import { seededShuffle } from "./sample";
import { loadSuite } from "./suites";
import type { EvalQuestion, GuidesFileRef, QuestionResult, QuestionsFileRef, ReportJson, SuiteDefinition, SuiteMetrics } from "./types";

export interface EvalRunParams {
  suite: string;
  seed: number;
  limit: number | null;
  /** Pipeline config overrides (validated against the pipeline's schema). */
  configInput: Record<string, unknown>;
  concurrency: number;
  origin: "cli" | "app";
  label?: string;
  /** Start a new report even when an unfinished one with the same suite, config and seed exists. */
  fresh?: boolean;
  /** "off": classical strategies only; "default" (or omitted): the workspace's LLM settings. */
  llm?: "default" | "off";
  /** The question file the suite was built from (--questions): part of the journal key and of the report. */
  questionsFile?: QuestionsFileRef;
  /** The guide file registered for the run (--guides): its checksum is part of the journal key. */
  guidesFile?: GuidesFileRef;
}

export interface EvalPlan {
  suite: SuiteDefinition;
  catalog: SuiteCatalog;
  questions: EvalQuestion[];
  config: PipelineConfig;
  configInput: Partial<PipelineConfig>;
  journalKey: string;
  params: EvalRunParams;
}

export interface EvalProgress {
  reportId: string;
  done: number;
  total: number;
}

export interface EvalRunHooks {
  signal?: AbortSignal;
  onQuestion?: (result: QuestionResult, progress: EvalProgress) => void;
  /** When the database is shared between processes (PostgreSQL), a fresh heartbeat means another process is running it. */
  sharedDatabase?: boolean;
}

/** A RUNNING report whose heartbeat is older than this was interrupted (a crash, a restart). */
export const HEARTBEAT_STALE_MS = 45_000;
const HEARTBEAT_EVERY_MS = 10_000;

export function parseConfigInput(raw: unknown): Partial<PipelineConfig> {
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== "object" || Array.isArray(raw))
    throw new AppError("VALIDATION", 'The pipeline config must be a JSON object, e.g. {"candidates": 5}.');
  const parsed = pipelineConfigSchema.partial().strict().safeParse(raw);
  if (!parsed.success) {
    throw new AppError(
      "VALIDATION",
      `The pipeline config is invalid: ${parsed.error.issues.map((i) => `${i.path.join(".") || "config"}: ${i.message}`).join("; ")}. Settings: ${Object.keys(pipelineConfigSchema.shape).join(", ")}.`,
    );
  }
  // Only what was given: defaults belong to the resolved config, not to the overrides.
  const given = new Set(Object.keys(raw));
  return Object.fromEntries(Object.entries(parsed.data).filter(([k]) => given.has(k))) as Partial<PipelineConfig>;
}

/** The journal key: a rerun of the same suite, full config and seed (by the same user) continues the same report. */
export function journalKeyOf(
  suite: string,
  config: PipelineConfig,
  seed: number,
  llm: "default" | "off" = "default",
  questions?: QuestionsFileRef,
  guides?: Pick<GuidesFileRef, "sha256">,
): string {
  // Keys of runs without a question or guide file are unchanged, so their unfinished reports still resume;
  // a run with guides never resumes one without (nor one with another version of the file).
  const extra = {
    ...(llm === "off" ? { llm } : {}),
    ...(questions ? { questions: questions.sha256 } : {}),
    ...(guides ? { guides: guides.sha256 } : {}),
  };
  return createHash("sha256")
    .update(JSON.stringify({ suite, config, seed, ...extra }))
    .digest("hex")
    .slice(0, 32);
}

/** What a report stores as its config: the resolved pipeline config, the LLM setting and the question file, if any. */
function storedConfig(plan: EvalPlan): Record<string, unknown> {
  return {
    ...plan.config,
    llm: plan.params.llm ?? "default",
    ...(plan.params.questionsFile ? { questions: plan.params.questionsFile } : {}),
    ...(plan.params.guidesFile ? { guides: plan.params.guidesFile } : {}),
  };
}

/**
 * Each follow-up moves to just after the question it follows up (chains in order), so a limit can cut a
 * follow-up but never keep one without its earlier question; a follow-up whose earlier question is not
 * in the list (not in the catalog the user may use) is left out: it cannot be asked as a follow-up.
 */
export function placeFollowUps(questions: EvalQuestion[]): EvalQuestion[] {
  const children = new Map<string, EvalQuestion[]>();
  for (const q of questions) if (q.followUpOf) children.set(q.followUpOf, [...(children.get(q.followUpOf) ?? []), q]);
  const out: EvalQuestion[] = [];
  const place = (q: EvalQuestion) => {
    out.push(q);
    for (const c of children.get(q.id) ?? []) place(c);
  };
  for (const q of questions) if (!q.followUpOf) place(q);
  return out;
}

/**
 * Loads the suite (or takes the one given: tests and tools build their own), resolves its catalog for
 * the user and draws the questions (seeded order, then the limit).
 */
export async function planEvalRun(
  prisma: PrismaClient,
  deps: CatalogDeps,
  user: AccessSubject,
  params: EvalRunParams,
  given?: SuiteDefinition,
): Promise<EvalPlan> {
  if (!Number.isInteger(params.seed)) throw new AppError("VALIDATION", "The seed must be a whole number.");
  if (params.limit !== null && (!Number.isInteger(params.limit) || params.limit < 1))
    throw new AppError("VALIDATION", "The limit must be a whole number of at least 1.");
  const configInput = parseConfigInput(params.configInput);
  const config = pipelineConfigSchema.parse(configInput);
  const suite = given ?? (await loadSuite(prisma, params.suite, deps.datasetsDir));
  const catalog = await resolveSuiteCatalog(prisma, user, suite);
  const ordered = placeFollowUps(suite.order ? suite.order(catalog.questions, params.seed) : seededShuffle(catalog.questions, params.seed));
  const questions = params.limit ? ordered.slice(0, params.limit) : ordered;
  return {
    suite,
    catalog,
    questions,
    config,
    configInput,
    journalKey: journalKeyOf(suite.key, config, params.seed, params.llm, params.questionsFile, params.guidesFile),
    params,
  };
}

const UNFINISHED = ["QUEUED", "RUNNING", "FAILED", "CANCELLED"] as const;

/**
 * The report a run writes to: the latest unfinished report with the same journal key (resumed: its
 * finished questions are skipped), or a new one.
 */
export async function openReport(
  prisma: PrismaClient,
  user: AccessSubject,
  plan: EvalPlan,
  opts: { sharedDatabase?: boolean; isActive?: (reportId: string) => boolean } = {},
): Promise<{ reportId: string; resumedFrom: number }> {
  const { params } = plan;
  const data = {
    total: plan.questions.length,
    limit: params.limit,
    concurrency: params.concurrency,
    kbIds: plan.catalog.kbIds ?? [...plan.catalog.byId.keys()],
    status: "RUNNING" as const,
    startedAt: new Date(),
    heartbeatAt: new Date(),
    finishedAt: null,
    error: null,
  };
  if (!params.fresh) {
    const previous = await prisma.evalReport.findFirst({
      where: { journalKey: plan.journalKey, createdById: user.id, status: { in: [...UNFINISHED] } },
      orderBy: { createdAt: "desc" },
      select: { id: true, status: true, heartbeatAt: true },
    });
    if (previous) {
      const fresh = previous.heartbeatAt && Date.now() - previous.heartbeatAt.getTime() < HEARTBEAT_STALE_MS;
      if (previous.status === "RUNNING" && (opts.isActive?.(previous.id) || (opts.sharedDatabase && fresh))) {
        throw new AppError(
          "CONFLICT",
          `This suite is already running with the same settings (report ${previous.id}). Wait for it, cancel it, or start a fresh run.`,
        );
      }
      const done = await prisma.evalResult.count({ where: { reportId: previous.id, questionId: { in: plan.questions.map((q) => q.id) } } });
      await prisma.evalReport.update({ where: { id: previous.id }, data });
      return { reportId: previous.id, resumedFrom: done };
    }
  }
  const report = await prisma.evalReport.create({
    data: {
      ...data,
      suite: plan.suite.key,
      suiteLabel: plan.suite.label,
      journalKey: plan.journalKey,
      configInput: plan.configInput as Prisma.InputJsonValue,
      config: storedConfig(plan) as Prisma.InputJsonValue,
      seed: params.seed,
      origin: params.origin,
      label: params.label ?? "",
      createdById: user.id,
    },
    select: { id: true },
  });
  return { reportId: report.id, resumedFrom: 0 };
}

async function storedResults(prisma: PrismaClient, reportId: string, ids: string[]): Promise<Map<string, QuestionResult>> {
  const rows = await prisma.evalResult.findMany({
    where: { reportId, questionId: { in: ids } },
    select: { questionId: true, result: true },
  });
  return new Map(rows.map((r) => [r.questionId, r.result as unknown as QuestionResult]));
}

/**
 * Runs the questions of a plan that the report has not finished, up to `concurrency` at a time (async
 * concurrency in this process: the pipeline waits on SQLite query processes, RDF workers, Neo4j and the
 * database, so several runs overlap), records each result as it finishes (the journal), and stores the
 * suite metrics at the end. Cancelling stops new questions and cancels the running ones; their results
 * are not recorded, so a resumed run asks them again.
 */
export async function executeEvalRun(
  prisma: PrismaClient,
  deps: CatalogDeps,
  user: AccessSubject,
  plan: EvalPlan,
  reportId: string,
  hooks: EvalRunHooks = {},
): Promise<ReportJson> {
  const ids = plan.questions.map((q) => q.id);
  const finished = await storedResults(prisma, reportId, ids);
  const pending = plan.questions.map((q, i) => ({ q, position: i })).filter((x) => !finished.has(x.q.id));
  const gold = new GoldResolver(deps, plan.catalog.byName);
  // Cancelled (or deleted) from another instance on the same database: the report row stops being
  // RUNNING, which the heartbeat and each recorded question notice; this run then stops like a local cancel.
  const elsewhere = new AbortController();
  const signal = hooks.signal ? AbortSignal.any([hooks.signal, elsewhere.signal]) : elsewhere.signal;
  const stillRunning = async (data: { done?: number }) => {
    const { count } = await prisma.evalReport.updateMany({
      where: { id: reportId, status: "RUNNING" },
      data: { ...data, heartbeatAt: new Date() },
    });
    if (count === 0) elsewhere.abort();
  };
  const ctx = {
    prisma,
    deps,
    user,
    catalog: plan.catalog,
    gold,
    config: plan.configInput,
    llm: plan.params.llm === "off" ? null : undefined,
    signal,
  };
  const started = Date.now();
  let done = finished.size;
  const resumedWith = done;
  let failure: Error | null = null;
  const heartbeat = setInterval(() => {
    void stillRunning({}).catch(() => undefined);
  }, HEARTBEAT_EVERY_MS);
  heartbeat.unref();

  // The conversation each question was asked in, for its follow-ups: those finished before from their
  // results, the others once asked (a follow-up comes after its question, so that one has started).
  const conversations = new Map<string, Promise<string | null>>();
  for (const [id, r] of finished) conversations.set(id, Promise.resolve(r.conversationId ?? null));
  const asked = new Map<string, (conversationId: string | null) => void>();
  for (const { q } of pending) conversations.set(q.id, new Promise((resolve) => asked.set(q.id, resolve)));

  let next = 0;
  const worker = async () => {
    while (next < pending.length && !signal.aborted && !failure) {
      const { q, position } = pending[next++];
      let conversationId: string | null = null;
      try {
        const parent = q.followUpOf ? await (conversations.get(q.followUpOf) ?? null) : null;
        const result =
          q.followUpOf && !parent
            ? followUpNotAsked(q, position)
            : await evaluateQuestion(ctx, q, position, parent ? { conversationId: parent } : {});
        conversationId = result.conversationId ?? null;
        if (result.status === "CANCELLED" || signal.aborted) continue;
        await prisma.evalResult.upsert({
          where: { reportId_questionId: { reportId, questionId: q.id } },
          create: { reportId, questionId: q.id, position, correct: correctOf(result), result: result as unknown as Prisma.InputJsonValue },
          update: { position, correct: correctOf(result), result: result as unknown as Prisma.InputJsonValue },
        });
        finished.set(q.id, result);
        done++;
        await stillRunning({ done });
        hooks.onQuestion?.(result, { reportId, done, total: plan.questions.length });
      } catch (e) {
        failure = e as Error;
      } finally {
        asked.get(q.id)?.(conversationId);
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, Math.min(plan.params.concurrency, pending.length || 1)) }, worker));
  } finally {
    clearInterval(heartbeat);
    gold.close();
  }

  const results = plan.questions.map((q) => finished.get(q.id)).filter((r): r is QuestionResult => !!r);
  const wallMs = Date.now() - started;
  const metrics = withRunInfo(aggregate(results), {
    wallMs,
    ran: done - resumedWith,
    concurrency: plan.params.concurrency,
    skipped: plan.catalog.skipped.length,
  });
  const status = failure ? "FAILED" : signal.aborted ? "CANCELLED" : "DONE";
  const failureMessage = failure ? (failure as Error).message : null;
  if (failure) log.error({ err: failure, reportId }, "evaluation run failed");
  const report = await prisma.evalReport.update({
    where: { id: reportId },
    data: {
      status,
      done: results.length,
      metrics: metrics as unknown as Prisma.InputJsonValue,
      error: failureMessage,
      finishedAt: new Date(),
      heartbeatAt: new Date(),
    },
  });
  return {
    suite: plan.suite.key,
    suiteLabel: plan.suite.label,
    config: storedConfig(plan),
    configInput: plan.configInput as Record<string, unknown>,
    seed: plan.params.seed,
    limit: plan.params.limit,
    n: results.length,
    metrics,
    perQuestion: results,
    reportId,
    startedAt: report.startedAt?.toISOString() ?? null,
    finishedAt: report.finishedAt?.toISOString() ?? null,
    concurrency: plan.params.concurrency,
    wallMs,
    status,
    error: failureMessage,
    questionsFile: plan.params.questionsFile ?? null,
    guidesFile: plan.params.guidesFile ?? null,
  };
}

export type RunInfo = { wallMs: number; ran: number; concurrency: number; skipped: number };

function withRunInfo(m: SuiteMetrics, run: RunInfo): SuiteMetrics {
  return { ...m, run };
}
