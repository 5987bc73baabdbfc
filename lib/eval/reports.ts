import type { AccessSubject } from "../catalog/access";
import { kbAccessWhere } from "../catalog/access";
import type { CatalogDeps } from "../deps";
import { existsSync } from "node:fs";
import type { PrismaClient } from "../db/generated/client";
import { AppError } from "../errors";
import { listAuthoredSuites } from "./authoring";
import { cancelEvalRun, isEvalRunActive, startEvalInBackground } from "./background";
import { type Comparison, compareReports } from "./compare";
import { correctOf } from "./correct";
import type { QuestionsQuery, StartRunInput } from "./eval.validation";
import { startRunSchema } from "./eval.validation";
import { aggregate, flattenMetrics } from "./metrics/aggregate";
import { HEADLINE_METRICS } from "./metric-labels";
import { HEARTBEAT_STALE_MS, parseConfigInput } from "./runner";
import { type SuiteUnavailable, suiteAvailability } from "./suite-availability";
import { builtinSuite } from "./suites";
import {
  BUILTIN_SUITES,
  type MetricValue,
  type QuestionResult,
  type GuidesFileRef,
  type QuestionsFileRef,
  type ReportJson,
  type SuiteMetrics,
} from "./types";

/**
 * The dashboard's view of evaluation reports. Who sees a report: its author, admins, and anyone who may
 * use every knowledge base it ran against (its questions, answers and evidence come from them). Runs of
 * a report (drill-down links) open for their author and admins, as runs do everywhere.
 */

export type ReportStatus = "QUEUED" | "RUNNING" | "DONE" | "FAILED" | "CANCELLED" | "INTERRUPTED";

export interface ReportSummary {
  id: string;
  suite: string;
  suiteLabel: string;
  label: string;
  status: ReportStatus;
  done: number;
  total: number;
  seed: number;
  limit: number | null;
  concurrency: number;
  origin: string;
  createdAt: string;
  finishedAt: string | null;
  createdBy: string | null;
  error: string | null;
  headline: Record<string, MetricValue>;
  /** The viewer may cancel, resume or delete it (author or admin). */
  canManage: boolean;
}

export interface ReportDetail extends ReportSummary {
  configInput: Record<string, unknown>;
  config: Record<string, unknown>;
  metrics: SuiteMetrics | null;
  /** Drill-down links to runs work for the author and admins. */
  canOpenRuns: boolean;
  kbCount: number;
}

const REPORT_SELECT = {
  id: true,
  suite: true,
  suiteLabel: true,
  label: true,
  status: true,
  done: true,
  total: true,
  seed: true,
  limit: true,
  concurrency: true,
  origin: true,
  createdAt: true,
  startedAt: true,
  finishedAt: true,
  heartbeatAt: true,
  createdById: true,
  error: true,
  kbIds: true,
  metrics: true,
} as const;

type ReportRow = {
  id: string;
  suite: string;
  suiteLabel: string;
  label: string;
  status: Exclude<ReportStatus, "INTERRUPTED">;
  done: number;
  total: number;
  seed: number;
  limit: number | null;
  concurrency: number;
  origin: string;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
  heartbeatAt: Date | null;
  createdById: string | null;
  error: string | null;
  kbIds: string[];
  metrics: unknown;
};

async function accessibleKbIds(prisma: PrismaClient, viewer: AccessSubject): Promise<Set<string> | null> {
  if (viewer.role === "ADMIN") return null;
  return new Set((await prisma.knowledgeBase.findMany({ where: kbAccessWhere(viewer), select: { id: true } })).map((k) => k.id));
}

function visible(row: Pick<ReportRow, "createdById" | "kbIds">, viewer: AccessSubject, kbs: Set<string> | null): boolean {
  return viewer.role === "ADMIN" || row.createdById === viewer.id || (kbs !== null && row.kbIds.every((id) => kbs.has(id)));
}

function statusOf(row: ReportRow): ReportStatus {
  if (row.status !== "RUNNING" || isEvalRunActive(row.id)) return row.status;
  const beat = row.heartbeatAt?.getTime() ?? 0;
  return Date.now() - beat > HEARTBEAT_STALE_MS ? "INTERRUPTED" : "RUNNING";
}

function summarize(row: ReportRow, viewer: AccessSubject, names: Map<string, string>): ReportSummary {
  const metrics = row.metrics as SuiteMetrics | null;
  const flat = metrics ? flattenMetrics(metrics) : {};
  return {
    id: row.id,
    suite: row.suite,
    suiteLabel: row.suiteLabel,
    label: row.label,
    status: statusOf(row),
    done: row.done,
    total: row.total,
    seed: row.seed,
    limit: row.limit,
    concurrency: row.concurrency,
    origin: row.origin,
    createdAt: row.createdAt.toISOString(),
    finishedAt: row.finishedAt?.toISOString() ?? null,
    createdBy: row.createdById ? (names.get(row.createdById) ?? null) : null,
    error: row.error,
    headline: Object.fromEntries(HEADLINE_METRICS.filter((k) => flat[k] !== undefined).map((k) => [k, flat[k]])),
    canManage: viewer.role === "ADMIN" || row.createdById === viewer.id,
  };
}

async function userNames(prisma: PrismaClient, ids: (string | null)[]): Promise<Map<string, string>> {
  const wanted = [...new Set(ids.filter((x): x is string => !!x))];
  if (!wanted.length) return new Map();
  return new Map(
    (await prisma.user.findMany({ where: { id: { in: wanted } }, select: { id: true, name: true } })).map((u) => [u.id, u.name]),
  );
}

export async function listReports(prisma: PrismaClient, viewer: AccessSubject, opts: { take?: number } = {}): Promise<ReportSummary[]> {
  const rows = (await prisma.evalReport.findMany({
    orderBy: { createdAt: "desc" },
    take: Math.min(opts.take ?? 50, 500),
    select: REPORT_SELECT,
  })) as ReportRow[];
  const kbs = await accessibleKbIds(prisma, viewer);
  const shown = rows.filter((r) => visible(r, viewer, kbs));
  const names = await userNames(
    prisma,
    shown.map((r) => r.createdById),
  );
  return shown.map((r) => summarize(r, viewer, names));
}

async function loadVisible(
  prisma: PrismaClient,
  viewer: AccessSubject,
  id: string,
): Promise<ReportRow & { config: unknown; configInput: unknown }> {
  const row = await prisma.evalReport.findUnique({ where: { id }, select: { ...REPORT_SELECT, config: true, configInput: true } });
  if (!row || !visible(row as ReportRow, viewer, await accessibleKbIds(prisma, viewer))) {
    throw new AppError("NOT_FOUND", "That evaluation report does not exist or uses knowledge bases you cannot use.");
  }
  return row as ReportRow & { config: unknown; configInput: unknown };
}

/** Metrics of a running report, recomputed only when another question has finished (the dashboard polls). */
const g = globalThis as unknown as { __mosaicLiveMetrics?: Map<string, { done: number; metrics: SuiteMetrics }> };
const liveMetrics = (g.__mosaicLiveMetrics ??= new Map());

async function metricsSoFar(prisma: PrismaClient, row: ReportRow): Promise<SuiteMetrics | null> {
  if (row.status !== "RUNNING" && row.status !== "QUEUED") {
    liveMetrics.delete(row.id);
    return (row.metrics as SuiteMetrics | null) ?? null;
  }
  if (!row.done) return null;
  const cached = liveMetrics.get(row.id);
  if (cached?.done === row.done) return cached.metrics;
  const results = await prisma.evalResult.findMany({ where: { reportId: row.id }, select: { result: true } });
  const metrics = aggregate(results.map((r) => r.result as unknown as QuestionResult));
  liveMetrics.set(row.id, { done: row.done, metrics });
  return metrics;
}

export async function getReport(prisma: PrismaClient, viewer: AccessSubject, id: string): Promise<ReportDetail> {
  const row = await loadVisible(prisma, viewer, id);
  const names = await userNames(prisma, [row.createdById]);
  const canManage = viewer.role === "ADMIN" || row.createdById === viewer.id;
  return {
    ...summarize(row, viewer, names),
    configInput: (row.configInput ?? {}) as Record<string, unknown>,
    config: (row.config ?? {}) as Record<string, unknown>,
    metrics: await metricsSoFar(prisma, row),
    canOpenRuns: canManage,
    kbCount: row.kbIds.length,
  };
}

function matchesFilter(r: QuestionResult, filter: QuestionsQuery["filter"]): boolean {
  switch (filter) {
    case "all":
      return true;
    case "right":
      return correctOf(r) === true;
    case "wrong":
      return correctOf(r) === false;
    case "refrained":
      return r.refrain.refrained;
    case "errors":
      return r.status === "ERROR" || r.status === "FAILED" || !!r.gold.error || !!r.execution?.error;
  }
}

/** One page of a report's per-question results, filtered (the wrong ones are what people drill into). */
export async function listReportQuestions(
  prisma: PrismaClient,
  viewer: AccessSubject,
  id: string,
  query: QuestionsQuery,
): Promise<{ total: number; rows: QuestionResult[] }> {
  await loadVisible(prisma, viewer, id);
  const rows = await prisma.evalResult.findMany({ where: { reportId: id }, orderBy: { position: "asc" }, select: { result: true } });
  const needle = query.q.toLowerCase();
  const matching = rows
    .map((r) => r.result as unknown as QuestionResult)
    .filter(
      (r) =>
        matchesFilter(r, query.filter) && (!needle || r.question.toLowerCase().includes(needle) || r.id.toLowerCase().includes(needle)),
    );
  return { total: matching.length, rows: matching.slice(query.offset, query.offset + query.limit) };
}

/** The whole report in the command line's --json shape. */
export async function exportReport(prisma: PrismaClient, viewer: AccessSubject, id: string): Promise<ReportJson> {
  const row = await loadVisible(prisma, viewer, id);
  const results = await prisma.evalResult.findMany({ where: { reportId: id }, orderBy: { position: "asc" }, select: { result: true } });
  const metrics = row.metrics as SuiteMetrics | null;
  const status = statusOf(row);
  return {
    suite: row.suite,
    suiteLabel: row.suiteLabel,
    config: (row.config ?? {}) as Record<string, unknown>,
    configInput: (row.configInput ?? {}) as Record<string, unknown>,
    seed: row.seed,
    limit: row.limit,
    n: results.length,
    metrics: metrics ?? ({} as SuiteMetrics),
    perQuestion: results.map((r) => r.result as unknown as QuestionResult),
    reportId: row.id,
    startedAt: row.startedAt?.toISOString() ?? null,
    finishedAt: row.finishedAt?.toISOString() ?? null,
    concurrency: row.concurrency,
    wallMs: metrics?.run?.wallMs ?? null,
    status: status === "INTERRUPTED" ? "RUNNING" : status,
    error: row.error,
    questionsFile: questionsFileOf(row.config),
    guidesFile: guidesFileOf(row.config),
  };
}

/** The question file a report's run read (--questions), as its stored config records it. */
export function questionsFileOf(config: unknown): QuestionsFileRef | null {
  const q = (config as { questions?: { name?: unknown; sha256?: unknown } } | null)?.questions;
  return q && typeof q.name === "string" && typeof q.sha256 === "string" ? { name: q.name, sha256: q.sha256 } : null;
}

/** The guide file a report's run registered (--guides), as its stored config records it. */
export function guidesFileOf(config: unknown): GuidesFileRef | null {
  const g = (config as { guides?: Partial<GuidesFileRef> } | null)?.guides;
  return g && typeof g.name === "string" && typeof g.sha256 === "string" ? (g as GuidesFileRef) : null;
}

export async function compareStoredReports(prisma: PrismaClient, viewer: AccessSubject, a: string, b: string): Promise<Comparison> {
  if (a === b) throw new AppError("VALIDATION", "Choose two different reports.", { b: "Same as A." });
  const [ra, rb] = await Promise.all([exportReport(prisma, viewer, a), exportReport(prisma, viewer, b)]);
  for (const r of [ra, rb]) {
    if (!r.metrics || !("source" in r.metrics))
      throw new AppError("VALIDATION", `Report ${r.reportId} has no metrics yet: wait for it to finish (or resume it).`);
  }
  return compareReports(ra, rb);
}

export async function startReport(
  prisma: PrismaClient,
  deps: CatalogDeps,
  viewer: AccessSubject,
  raw: StartRunInput,
  opts: { sharedDatabase?: boolean } = {},
) {
  const input = startRunSchema.parse(raw);
  let configInput: Record<string, unknown> = {};
  if (input.config.trim()) {
    try {
      configInput = JSON.parse(input.config) as Record<string, unknown>;
    } catch (e) {
      throw new AppError("VALIDATION", "The pipeline config is not valid JSON.", { config: (e as Error).message });
    }
    try {
      parseConfigInput(configInput);
    } catch (e) {
      throw new AppError("VALIDATION", (e as Error).message, { config: (e as Error).message });
    }
  }
  return startEvalInBackground(
    prisma,
    deps,
    viewer,
    {
      suite: input.suite,
      seed: input.seed,
      limit: input.limit,
      configInput,
      concurrency: input.concurrency,
      origin: "app",
      label: input.label,
      fresh: input.fresh,
      llm: input.llm,
    },
    opts,
  );
}

async function loadManaged(prisma: PrismaClient, viewer: AccessSubject, id: string) {
  const row = await loadVisible(prisma, viewer, id);
  if (viewer.role !== "ADMIN" && row.createdById !== viewer.id)
    throw new AppError("FORBIDDEN", "Only the person who started this run (or an admin) may change it.");
  return row;
}

export async function cancelReport(prisma: PrismaClient, viewer: AccessSubject, id: string): Promise<void> {
  const row = await loadManaged(prisma, viewer, id);
  if (cancelEvalRun(id)) return;
  // Not running in this server (interrupted, queued, or running on another instance, which stops when it
  // sees the mark): mark it so it can be resumed later.
  if (row.status === "RUNNING" || row.status === "QUEUED")
    await prisma.evalReport.update({ where: { id }, data: { status: "CANCELLED", finishedAt: new Date() } });
}

export async function resumeReport(
  prisma: PrismaClient,
  deps: CatalogDeps,
  viewer: AccessSubject,
  id: string,
  opts: { sharedDatabase?: boolean } = {},
) {
  const row = await loadManaged(prisma, viewer, id);
  if (row.status === "DONE") throw new AppError("CONFLICT", "This run is finished: start a new one to measure again.");
  if (isEvalRunActive(id)) throw new AppError("CONFLICT", "This run is already going.");
  if (row.createdById !== viewer.id)
    throw new AppError("FORBIDDEN", "Only the person who started this run can resume it (it runs with their access).");
  const guides = guidesFileOf(row.config);
  if (guides) {
    throw new AppError(
      "CONFLICT",
      `This run registered the guide file ${guides.name} on the command line; resume it there by running the same npm run eval command again.`,
    );
  }
  const file = questionsFileOf(row.config);
  if (file) {
    throw new AppError(
      "CONFLICT",
      `This run read the question file ${file.name} on the command line; resume it there by running the same npm run eval command again.`,
    );
  }
  return startEvalInBackground(
    prisma,
    deps,
    viewer,
    {
      suite: row.suite,
      seed: row.seed,
      limit: row.limit,
      configInput: (row.configInput ?? {}) as Record<string, unknown>,
      concurrency: row.concurrency,
      origin: "app",
      label: row.label,
      llm: (row.config as { llm?: string } | null)?.llm === "off" ? "off" : "default",
    },
    opts,
  );
}

export async function deleteReport(prisma: PrismaClient, viewer: AccessSubject, id: string): Promise<void> {
  await loadManaged(prisma, viewer, id);
  if (isEvalRunActive(id)) throw new AppError("CONFLICT", "Cancel the run before deleting it.");
  await prisma.evalReport.delete({ where: { id } });
}

export interface SuiteOption {
  key: string;
  label: string;
  description: string;
  questions: number;
  authored: boolean;
  /** Why it cannot run for this viewer right now (datasets, knowledge bases or a server missing) and the fix, or null. */
  unavailable: SuiteUnavailable | null;
  /** Authored suites: the viewer wrote it or is an admin. */
  canDelete?: boolean;
}

/**
 * The suites a viewer can pick: built-in ones (with what is missing when one cannot run, and the fix)
 * and authored ones.
 */
export async function listSuiteOptions(
  prisma: PrismaClient,
  viewer: AccessSubject,
  where: { datasetsDir: string; neo4jConfigured: boolean },
): Promise<SuiteOption[]> {
  const [visible, registered] = await Promise.all([
    prisma.knowledgeBase.findMany({ where: kbAccessWhere(viewer), select: { name: true } }),
    prisma.knowledgeBase.findMany({ select: { name: true } }),
  ]);
  const facts = {
    datasetsDir: where.datasetsDir,
    datasetsFound: existsSync(where.datasetsDir),
    visibleKbNames: new Set(visible.map((k) => k.name)),
    registeredKbNames: new Set(registered.map((k) => k.name)),
    neo4jConfigured: where.neo4jConfigured,
    viewerIsAdmin: viewer.role === "ADMIN",
  };
  const out: SuiteOption[] = [];
  for (const key of BUILTIN_SUITES) {
    try {
      const s = builtinSuite(key, where.datasetsDir);
      const goldKbNames = [...new Set(s.questions.flatMap((q) => q.goldKbNames))];
      const unavailable = suiteAvailability({ ...facts, key, label: s.label, readError: null, goldKbNames });
      out.push({ key, label: s.label, description: s.description, questions: s.questions.length, authored: false, unavailable });
    } catch (e) {
      const unavailable = suiteAvailability({ ...facts, key, label: key, readError: (e as Error).message, goldKbNames: [] });
      out.push({ key, label: key, description: "", questions: 0, authored: false, unavailable });
    }
  }
  for (const s of await listAuthoredSuites(prisma, viewer)) {
    out.push({
      key: `custom:${s.id}`,
      label: s.name,
      description: s.description,
      questions: s.questions,
      authored: true,
      unavailable: null,
      canDelete: s.canDelete,
    });
  }
  return out;
}

/** What decides whether the built-in suites can run here: the datasets folder and whether a Neo4j server is configured. */
export function suiteSettings(env: { NEO4J_URI?: string }, deps: Pick<CatalogDeps, "datasetsDir">) {
  return { datasetsDir: deps.datasetsDir, neo4jConfigured: !!env.NEO4J_URI };
}
