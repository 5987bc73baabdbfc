import type { CatalogDeps } from "../deps";
import type { PrismaClient } from "../db/generated/client";
import { parseLlmEnv } from "../env";
import type { LlmConfig, LlmStage } from "../llm/config";
import { LlmError } from "../llm/errors";
import { LlmSession } from "../llm/session";
import { log } from "../log";
import { loadLlmSettings, recordLlmFailure } from "../settings/llm-settings";
import { RunCancelledError, type StageContext, type StageStrategy, remainingMs } from "./stage";
import { queryOutcomeInWords } from "./strategy-words";
import { type AnswerInput, classicalAnswer } from "./stages/answer";
import { llmAnswer } from "./stages/answer/llm";
import { type CritiqueInput, classicalCritique } from "./stages/critique";
import { type GuideCorrection, llmCritique } from "./stages/critique/llm";
import { type ExecuteInput, type ExecuteOutput, classicalExecute, executeQueries } from "./stages/execute";
import { type FormulateInput, classicalFormulate } from "./stages/formulate";
import { LlmFormulate } from "./stages/formulate/llm";
import { type SelectInput, classicalSelect } from "./stages/select";
import { llmSelect } from "./stages/select/llm";
import { type SelectEvidenceInput, classicalSelectEvidence } from "./stages/select-evidence";
import { llmSelectEvidence } from "./stages/select-evidence/llm";
import { type UnderstandInput, classicalUnderstand } from "./stages/understand";
import { llmUnderstand } from "./stages/understand/llm";
import type { Answer, Candidate, Critique, EvidenceSelection, FormulatedQuery, Intent } from "./types";

/**
 * Which strategy each stage runs, decided once per run from the resolved LLM settings (environment
 * defaults, Settings overrides). With an LLM configured for a stage, its LLM strategy runs in front of
 * the classical one, and the classical one is the fallback when the model is unavailable, too slow,
 * or returns output that fails validation; the trace says which one ran and why ("llm", or
 * "classical (fallback: <reason>)"). Without an LLM every stage is exactly the classical strategy.
 */

export interface PipelineStrategies {
  understand: StageStrategy<UnderstandInput, Intent>;
  select: StageStrategy<SelectInput, Candidate[]>;
  formulate: StageStrategy<FormulateInput, FormulatedQuery[]>;
  execute: StageStrategy<ExecuteInput, ExecuteOutput>;
  selectEvidence: StageStrategy<SelectEvidenceInput, EvidenceSelection>;
  answer: StageStrategy<AnswerInput, Answer>;
  critique: StageStrategy<CritiqueInput, Critique>;
  /** The run's LLM (usage totals for the outcome); null when no stage uses one. */
  llm: LlmSession | null;
  /** Configuration problems to record on the run (an LLM configured but unusable). */
  notes: string[];
  /** The run's nearest extraction guides: the critic's few-shot corrections come from them. */
  useGuides(guideIds: string[]): void;
}

/** What the trace shows for a stage: the strategy that actually ran. */
export function strategyLabel(strategy: StageStrategy<unknown, unknown>): string {
  const describe = (strategy as { describe?: () => string }).describe;
  return typeof describe === "function" ? describe.call(strategy) : strategy.name;
}

export function classicalStrategies(notes: string[] = []): PipelineStrategies {
  return {
    understand: classicalUnderstand,
    select: classicalSelect,
    formulate: classicalFormulate,
    execute: classicalExecute,
    selectEvidence: classicalSelectEvidence,
    answer: classicalAnswer,
    critique: classicalCritique,
    llm: null,
    notes,
    useGuides: () => undefined,
  };
}

/** Below this much time left in the run, a stage does not start a model call: the classical strategy runs at once. */
export const MIN_LLM_STAGE_MS = 1_500;

/** Short, one-line reason for the trace label. */
function fallbackReason(e: unknown): string {
  const text = e instanceof LlmError ? e.message : `unexpected error: ${e instanceof Error ? e.message : String(e)}`;
  return text.replace(/\s+/g, " ").slice(0, 240);
}

/**
 * An LLM strategy in front of the classical one. Cancellation and the run's budget propagate; any
 * other failure of the LLM strategy (an LlmError, or a bug) runs the classical strategy instead, with
 * the reason traced and in the label.
 */
export class LlmFirst<I, O> implements StageStrategy<I, O> {
  readonly name = "llm";
  private ran = "llm";

  constructor(
    private readonly stage: LlmStage,
    private readonly llm: StageStrategy<I, O>,
    private readonly classical: StageStrategy<I, O>,
    private readonly session: LlmSession,
  ) {}

  describe(): string {
    return this.ran;
  }

  async run(input: I, ctx: StageContext): Promise<O> {
    const skip = this.session.unavailableReason
      ? `the endpoint failed earlier in this run: ${this.session.unavailableReason}`
      : remainingMs(ctx, 0) < MIN_LLM_STAGE_MS
        ? "not enough time left in the run for a model call"
        : null;
    if (skip) return this.fallBack(input, ctx, skip.slice(0, 240));
    try {
      const out = await this.llm.run(input, ctx);
      this.ran = strategyLabel(this.llm as StageStrategy<unknown, unknown>);
      return out;
    } catch (e) {
      if (ctx.signal.aborted || e instanceof RunCancelledError) throw e;
      if (!(e instanceof LlmError))
        log.error({ err: e, stage: this.stage }, "LLM strategy failed unexpectedly; falling back to the classical strategy");
      return this.fallBack(input, ctx, fallbackReason(e));
    }
  }

  private async fallBack(input: I, ctx: StageContext, reason: string): Promise<O> {
    this.ran = `classical (fallback: ${reason})`;
    ctx.trace({
      stage: this.stage,
      type: "INFO",
      strategy: "llm",
      summary: `Falling back to the classical strategy: ${reason}`,
      payload: { fallback: reason },
    });
    return this.classical.run(input, ctx);
  }
}

/**
 * Execution with one repair per generated query: a model-written query that fails to parse or run is
 * rewritten once with the engine's error message, checked again, and run in place of the failed one.
 */
class ExecuteWithRepair implements StageStrategy<ExecuteInput, ExecuteOutput> {
  readonly name = "classical";
  private repaired = 0;

  constructor(private readonly formulate: LlmFormulate) {}

  describe(): string {
    return this.repaired ? `classical + llm repair (${this.repaired} ${this.repaired === 1 ? "query" : "queries"})` : "classical";
  }

  async run(input: ExecuteInput, ctx: StageContext): Promise<ExecuteOutput> {
    this.repaired = 0;
    const first = await executeQueries(input, ctx);
    const failed = first.executed.map((q, i) => ({ q, i })).filter(({ q }) => this.formulate.repairable(q));
    if (!failed.length) return first;
    const rewrites = await Promise.all(
      failed.map(async ({ q, i }) => {
        try {
          return { i, query: await this.formulate.repair(q, ctx) };
        } catch (e) {
          if (ctx.signal.aborted || !(e instanceof LlmError)) throw e;
          ctx.trace({
            stage: "execute",
            type: "INFO",
            strategy: "llm",
            summary: `${q.kbName}: the failed query could not be rewritten (${e.message})`,
          });
          return { i, query: null };
        }
      }),
    );
    const todo = rewrites.filter((r): r is { i: number; query: FormulatedQuery } => r.query !== null);
    if (!todo.length) return first;
    const second = await executeQueries({ ...input, queries: todo.map((r) => r.query) }, ctx);
    const executed = [...first.executed];
    todo.forEach((r, j) => {
      const before = first.executed[r.i];
      const after = second.executed[j];
      executed[r.i] = after;
      ctx.trace({
        stage: "execute",
        type: "INFO",
        strategy: "llm",
        summary: `${after.kbName}: the rewritten query ${queryOutcomeInWords(after)}${after.status !== "ok" && after.error ? ` (${after.error})` : ""}`,
        payload: {
          failed: { query: before.query.text, error: before.error },
          retried: { query: after.query.text, status: after.status, rows: after.rows },
        },
      });
    });
    this.repaired = todo.length;
    return { executed, pieces: [...first.pieces, ...second.pieces] };
  }
}

const MAX_CORRECTIONS = 6;

function correctionsOf(question: string, raw: unknown): GuideCorrection[] {
  if (!Array.isArray(raw)) return [];
  return raw.flatMap((c) => {
    const r = c as { runAnswer?: unknown; correctAnswer?: unknown };
    return typeof r?.correctAnswer === "string" && r.correctAnswer.trim()
      ? [{ question, runAnswer: typeof r.runAnswer === "string" ? r.runAnswer : null, correctAnswer: r.correctAnswer.trim() }]
      : [];
  });
}

/**
 * Every stage with its LLM strategy in front (where the settings enable it) and the classical one
 * behind. `fromSettings`: the configuration is the workspace's, so a configuration failure met in the
 * run (wrong key, unknown model) is recorded for the Settings page.
 */
export function llmStrategies(
  prisma: PrismaClient,
  config: LlmConfig,
  options: { notes?: string[]; fromSettings?: boolean } = {},
): PipelineStrategies {
  const notes = options.notes ?? [];
  const session = new LlmSession(
    config,
    options.fromSettings
      ? (e) => void recordLlmFailure(prisma, e).catch((err: unknown) => log.warn({ err }, "could not record the LLM failure for Settings"))
      : undefined,
  );
  const base = classicalStrategies(notes);
  const wrap = <I, O>(stage: LlmStage, llm: StageStrategy<I, O>, classical: StageStrategy<I, O>): StageStrategy<I, O> =>
    session.enabled(stage) ? new LlmFirst(stage, llm, classical, session) : classical;

  const descriptors = new Map<string, Promise<string | null>>();
  const descriptorOf = (kbId: string) => {
    let p = descriptors.get(kbId);
    if (!p) {
      p = prisma.knowledgeBase
        .findUnique({ where: { id: kbId }, select: { descriptor: true, descriptorCompact: true } })
        .then((kb) => kb?.descriptor || kb?.descriptorCompact || null)
        .catch(() => null);
      descriptors.set(kbId, p);
    }
    return p;
  };
  let guideIds: string[] = [];
  let corrections: Promise<GuideCorrection[]> | null = null;
  const loadCorrections = () => {
    corrections ??= guideIds.length
      ? prisma.extractionGuide
          .findMany({ where: { id: { in: guideIds } }, select: { id: true, question: true, corrections: true } })
          .then((rows) =>
            rows
              .sort((a, b) => guideIds.indexOf(a.id) - guideIds.indexOf(b.id))
              .flatMap((g) => correctionsOf(g.question, g.corrections))
              .slice(0, MAX_CORRECTIONS),
          )
          .catch(() => [])
      : Promise.resolve([]);
    return corrections;
  };

  const formulate = new LlmFormulate(session, { descriptorOf });
  return {
    understand: wrap("understand", llmUnderstand(session), base.understand),
    select: wrap("select", llmSelect(session), base.select),
    formulate: wrap("formulate", formulate, base.formulate),
    execute: session.enabled("formulate") ? new ExecuteWithRepair(formulate) : base.execute,
    selectEvidence: wrap("select-evidence", llmSelectEvidence(session), base.selectEvidence),
    answer: wrap("answer", llmAnswer(session), base.answer),
    critique: wrap("critique", llmCritique(session, { corrections: loadCorrections }), base.critique),
    llm: session,
    notes,
    useGuides(ids: string[]) {
      guideIds = ids;
      corrections = null;
    },
  };
}

/**
 * The strategies of one run. `override`: a configuration given by the caller (tests, evaluation), or
 * null for classical only; undefined reads the environment and the Settings. A misconfigured LLM (no
 * key for a hosted endpoint, an undecryptable key) runs classically with the problem noted; it never
 * fails the run.
 */
export async function resolveStrategies(
  prisma: PrismaClient,
  deps: Pick<CatalogDeps, "encryptionKey">,
  override?: LlmConfig | null,
): Promise<PipelineStrategies> {
  if (override === null) return classicalStrategies();
  if (override) return llmStrategies(prisma, override);
  try {
    const resolved = await loadLlmSettings(prisma, deps.encryptionKey, parseLlmEnv(process.env));
    const notes =
      resolved.status === "misconfigured"
        ? [
            `The LLM is configured but cannot be used (${resolved.problems.join(" ")}); every stage ran its classical strategy. An admin can fix this in Settings.`,
          ]
        : [];
    return resolved.config ? llmStrategies(prisma, resolved.config, { fromSettings: true }) : classicalStrategies(notes);
  } catch (e) {
    log.warn({ err: e }, "could not read the LLM settings; running classically");
    return classicalStrategies([
      `The LLM settings could not be read (${e instanceof Error ? e.message.split("\n")[0] : String(e)}); every stage ran its classical strategy.`,
    ]);
  }
}
