import { openBackend } from "../backends/registry";
import type { EvidencePiece } from "../backends/types";
import type { AccessSubject } from "../catalog/access";
import type { CatalogDeps } from "../deps";
import type { PrismaClient } from "../db/generated/client";
import type { PipelineConfig } from "../pipeline/config";
import type { RunOutcome } from "../pipeline/run";
import type { ExecutedQuery, ScoredEvidence } from "../pipeline/contracts";
import { runPipeline } from "../runs/run-pipeline";
import type { SuiteCatalog } from "./catalog";
import { GOLD_MAX_ROWS, type GoldResolver, rawToTable } from "./gold/resolve";
import { scoreAnswer, statesNothing } from "./metrics/answer";
import { executionMatch } from "./metrics/execution";
import { prepareAnswers, presenceRank } from "./metrics/presence";
import { cascadeRanking, documentRanking, interleaveByQuery } from "./metrics/retrieval";
import { scoreTatQa, splitScale } from "./metrics/tatqa";
import type { EvalQuestion, PresenceRanks, QuestionResult, ResolvedGold, ResultTable } from "./types";

export interface QuestionContext {
  prisma: PrismaClient;
  deps: CatalogDeps;
  user: AccessSubject;
  catalog: SuiteCatalog;
  gold: GoldResolver;
  config: Partial<PipelineConfig>;
  /** null: classical strategies only; undefined: the workspace's LLM settings, as any run. */
  llm?: null;
  signal?: AbortSignal;
}

/** One ranking the run made, reduced to what the metrics need. */
interface Observed {
  round: number;
  label: string;
  ids: string[];
  texts: string[];
  docs: (string | null)[];
  /** The search texts behind the document pieces (what a collection was searched with). */
  searches: string[];
}

/** The ranking label of the first stage (lib/pipeline/run.ts observes it before pooling). */
const FIRST_STAGE = "retrieval";

const REEXECUTE_TIMEOUT_MS = 30_000;
/** At most this many of a run's other queries are re-executed for "any query matched". */
const MAX_ALTERNATIVES = 6;

/** Documents are keyed by collection and id: two collections may use the same document ids. */
function docKey(piece: EvidencePiece): string | null {
  const doc = piece.provenance.location.document;
  return piece.provenance.language === "search" && (typeof doc === "string" || typeof doc === "number")
    ? `${piece.provenance.kbName}\u0000${doc}`
    : null;
}

function observe(round: number, label: string, given: ScoredEvidence[]): Observed {
  // The first stage arrives as each query's results in turn; several queries are merged by taking turns.
  const ranked =
    label === FIRST_STAGE ? interleaveByQuery(given, (e) => `${e.piece.provenance.kb}\u0000${e.piece.provenance.query}`) : given;
  const searches =
    label === FIRST_STAGE
      ? [...new Set(ranked.filter((e) => e.piece.provenance.language === "search").map((e) => e.piece.provenance.query))]
      : [];
  return {
    round,
    label,
    ids: ranked.map((e) => e.piece.id),
    texts: ranked.map((e) => e.piece.text),
    docs: ranked.map((e) => docKey(e.piece)),
    searches,
  };
}

/**
 * Each stage's document ranking as a cascade over the stages so far: the stage's own order, then what
 * earlier stages had and it dropped (see cascadeRanking), as distinct documents.
 */
function stageRankings(stages: Observed[]): { label: string; ranking: string[] }[] {
  return stages.map((stage, i) => {
    const cascade = cascadeRanking(
      stages.slice(0, i + 1).map((o) => o.ids.map((id, j) => ({ id, doc: o.docs[j] }))),
      (x) => x.id,
    );
    return { label: stage.label, ranking: documentRanking(cascade.map((x) => x.doc)) };
  });
}

/** The critic may run several rounds; metrics follow the round whose evidence the final answer used. */
function chosenRound(observed: Observed[], outcome: RunOutcome): Observed[] {
  if (!observed.length) return [];
  const rounds = [...new Set(observed.map((o) => o.round))].sort((a, b) => b - a);
  const first = outcome.evidence[0]?.piece.id;
  const pick =
    (first ? rounds.find((r) => observed.filter((o) => o.round === r).some((o) => o.ids.includes(first))) : undefined) ?? rounds[0];
  return observed.filter((o) => o.round === pick);
}

const STRUCTURED = new Set(["sql", "sparql", "cypher"]);

/** The query the answer rests on: the one behind the first cited piece, else the winning KB's, else the first that ran. */
export function answeringQuery(outcome: Pick<RunOutcome, "queries" | "answer" | "evidence" | "winner">): {
  primary: ExecutedQuery | null;
  structured: ExecutedQuery[];
} {
  const structured = outcome.queries.filter((q) => STRUCTURED.has(q.query.language) && (q.status === "ok" || q.status === "empty"));
  for (const id of outcome.answer.citations) {
    const piece = outcome.evidence.find((e) => e.piece.id === id)?.piece;
    if (!piece || !STRUCTURED.has(piece.provenance.language)) continue;
    const q = structured.find((s) => s.kbId === piece.provenance.kb && s.query.text === piece.provenance.query);
    if (q) return { primary: q, structured };
  }
  const primary = structured.find((q) => q.kbId === outcome.winner?.kbId) ?? structured[0] ?? null;
  return { primary, structured };
}

/** LLM usage when the run reports it (RunOutcome.llm: calls, tokens, cost); null for classical runs. */
export function usageOf(outcome: RunOutcome, eventCost: number): QuestionResult["usage"] {
  const u = (outcome as { llm?: { calls?: unknown; totalTokens?: unknown; costUsd?: unknown; model?: unknown } | null }).llm;
  if (u && typeof u === "object" && typeof u.calls === "number" && u.calls > 0) {
    return {
      tokens: typeof u.totalTokens === "number" ? u.totalTokens : null,
      costUsd: typeof u.costUsd === "number" ? u.costUsd : eventCost,
      calls: u.calls,
      model: typeof u.model === "string" ? u.model : null,
    };
  }
  return eventCost > 0 ? { tokens: null, costUsd: eventCost, calls: null, model: null } : null;
}

function judge(q: EvalQuestion, gold: ResolvedGold, text: string | null): QuestionResult["scores"] {
  if (q.gold.type === "tatqa") {
    const s = scoreTatQa(text, q.gold.tatqa);
    const bare = text === null ? null : splitScale(text).text.replace(/%/g, "");
    const noScale = scoreTatQa(bare, { ...q.gold.tatqa, scale: "" }, "");
    return { p1: s.em === 1, em: s.em, f1: s.f1, emNoScale: noScale.em };
  }
  if (gold.unanswerable || gold.error || !gold.answers.length) return { p1: null, em: null, f1: null };
  const s = scoreAnswer(text, { answers: gold.answers, list: gold.list, question: q.question });
  return { p1: s.p1, em: s.em, f1: s.f1 };
}

/** TAT-QA: share of the gold evidence units (the table, each rel paragraph) among the evidence the answer used. */
function evidenceRecall(q: EvalQuestion, outcome: RunOutcome): number | null {
  const ev = q.evidence;
  if (!ev?.documentIds?.length || (!ev.table && !ev.paragraphs?.length)) return null;
  const units = new Set([...(ev.table ? ["table"] : []), ...(ev.paragraphs ?? []).map((p) => `p:${p}`)]);
  const docs = new Set(ev.documentIds.map(String));
  const found = new Set<string>();
  for (const e of outcome.evidence) {
    const loc = e.piece.provenance.location;
    if (!docs.has(String(loc.document))) continue;
    if (e.piece.kind === "row") found.add("table");
    else if (loc.paragraph !== undefined && loc.paragraph !== null) found.add(`p:${loc.paragraph}`);
  }
  return [...units].filter((u) => found.has(u)).length / units.size;
}

async function reexecute(ctx: QuestionContext, q: ExecutedQuery): Promise<ResultTable> {
  const kb = ctx.catalog.byId.get(q.kbId);
  if (!kb) throw new Error(`the knowledge base ${q.kbName} is no longer available`);
  const raw = await openBackend(kb, ctx.deps).execute(q.query, { maxRows: GOLD_MAX_ROWS, timeoutMs: REEXECUTE_TIMEOUT_MS });
  return rawToTable(raw);
}

/**
 * Execution match, strict as the headline: the answering query must have run on a gold knowledge base
 * (a query on another database that happens to return the same rows, an empty result or one shared
 * row, does not count) and give the gold result. The same result from any database is kept as a
 * diagnostic (resultMatch), so the strictness can be seen.
 */
async function execution(
  ctx: QuestionContext,
  q: EvalQuestion,
  gold: ResolvedGold,
  outcome: RunOutcome,
): Promise<QuestionResult["execution"]> {
  if (!gold.table) return null;
  const { primary, structured } = answeringQuery(outcome);
  const ordered = !!q.ordered;
  const goldKbs = new Set(q.goldKbNames);
  const onGold = (kbName: string) => goldKbs.size === 0 || goldKbs.has(kbName);
  if (!primary) {
    return {
      language: "",
      kbName: "",
      query: "",
      match: false,
      matchColumns: false,
      anyMatch: false,
      onGoldKb: false,
      resultMatch: false,
      goldRows: gold.table.rows.length,
      predictedRows: null,
      error: "The run executed no SQL, SPARQL or Cypher query.",
    };
  }
  const onGoldKb = onGold(primary.kbName);
  let resultMatch = false;
  let columnsMatch = false;
  let predictedRows: number | null = null;
  let error: string | undefined;
  try {
    const table = await reexecute(ctx, primary);
    predictedRows = table.rows.length;
    resultMatch = executionMatch(gold.table, table, ordered);
    columnsMatch = resultMatch || executionMatch(gold.table, table, ordered, { extraColumns: true });
  } catch (e) {
    error = (e as Error).message;
  }
  const match = onGoldKb && resultMatch;
  let anyMatch = match;
  if (!anyMatch) {
    const seen = new Set([`${primary.kbId}\u0000${primary.query.text}`]);
    for (const alt of structured) {
      const key = `${alt.kbId}\u0000${alt.query.text}`;
      if (seen.has(key) || seen.size > MAX_ALTERNATIVES || !onGold(alt.kbName)) continue;
      seen.add(key);
      try {
        if (executionMatch(gold.table, await reexecute(ctx, alt), ordered)) {
          anyMatch = true;
          break;
        }
      } catch {
        // an alternative that fails to run simply does not match
      }
    }
  }
  return {
    language: primary.query.language,
    kbName: primary.kbName,
    query: primary.query.text,
    match,
    matchColumns: onGoldKb && columnsMatch,
    anyMatch,
    onGoldKb,
    resultMatch,
    goldRows: gold.table.rows.length,
    predictedRows,
    ...(error ? { error } : {}),
  };
}

type ResultBase = Pick<QuestionResult, "id" | "suite" | "position" | "question" | "kind" | "tags" | "followUpOf" | "gold">;

/** A question the pipeline could not start (status ERROR: left out of the metric groups, shown with its message). */
function errorResult(base: ResultBase, conversationId: string | null, message: string): QuestionResult {
  return {
    ...base,
    runId: null,
    conversationId,
    status: "ERROR",
    answer: null,
    withheld: null,
    source: { candidates: [], winner: null, inCandidates: null, rankedFirst: null, winnerCorrect: null },
    retrieval: null,
    evidenceRecall: null,
    execution: null,
    presence: null,
    scores: { p1: null, em: null, f1: null },
    refrain: { refrained: false, correctDecision: null },
    confidence: null,
    correct: null,
    timings: {},
    totalMs: 0,
    usage: null,
    degradations: [],
    error: message,
  };
}

/** What every result of a question carries, whatever became of it. */
function resultBase(q: EvalQuestion, position: number, gold: ResultBase["gold"]): ResultBase {
  return {
    id: q.id,
    suite: q.suite,
    position,
    question: q.question,
    kind: q.kind,
    tags: tagsOf(q),
    ...(q.followUpOf ? { followUpOf: q.followUpOf } : {}),
    gold,
  };
}

/** A follow-up whose earlier question has no conversation to continue (it failed to start, or its result predates conversations). */
export function followUpNotAsked(q: EvalQuestion, position: number): QuestionResult {
  const base = resultBase(q, position, { answers: [], unanswerable: q.gold.type === "unanswerable", kbNames: q.goldKbNames });
  return errorResult(
    base,
    null,
    `Not asked: it follows up ${q.followUpOf}, which has no conversation to continue (run the suite with --fresh to ask both again).`,
  );
}

/** The question's tags, with its category as the tag "category:<value>" (what the report breaks down by). */
function tagsOf(q: EvalQuestion): string[] {
  const tags = q.tags ?? [];
  return q.category && !tags.some((t) => t.startsWith("category:")) ? [...tags, `category:${q.category}`] : tags;
}

/**
 * Runs one question through the pipeline as the user and scores every metric that applies to it. A
 * follow-up (`conversationId` given) is asked in that conversation, after the turns already in it.
 */
export async function evaluateQuestion(
  ctx: QuestionContext,
  q: EvalQuestion,
  position: number,
  opts: { conversationId?: string } = {},
): Promise<QuestionResult> {
  const gold = await ctx.gold.resolve(q);
  const nothingRecorded = q.gold.type === "unanswerable" ? q.gold.nothingRecorded : undefined;
  const base = resultBase(q, position, {
    answers: nothingRecorded ? [nothingRecorded] : gold.answers.slice(0, 20),
    unanswerable: gold.unanswerable,
    kbNames: q.goldKbNames,
    ...(gold.error ? { error: gold.error } : {}),
  });
  const observed: Observed[] = [];
  let eventCost = 0;
  let outcome: RunOutcome;
  try {
    outcome = await runPipeline(ctx.prisma, ctx.deps, {
      question: q.question,
      user: ctx.user,
      ...(opts.conversationId ? { conversationId: opts.conversationId } : {}),
      kbIds: ctx.catalog.kbIds ?? undefined,
      config: ctx.config,
      ...(ctx.llm === null ? { llm: null } : {}),
      signal: ctx.signal,
      observeRanking: ({ round, label, ranked }) => observed.push(observe(round, label, ranked)),
      onEvent: (e) => {
        if (typeof e.costUsd === "number") eventCost += e.costUsd;
      },
    });
  } catch (e) {
    return errorResult(base, opts.conversationId ?? null, (e as Error).message);
  }

  const answer = outcome.answer.refrained ? null : outcome.answer.text;
  const withheld = outcome.answer.refrained ? (outcome.answer.candidates[0]?.value ?? null) : null;
  const goldKbs = new Set(q.goldKbNames);
  const candidates = outcome.candidates.map((c) => c.kbName);
  const hasSourceGold = goldKbs.size > 0;

  const round = chosenRound(observed, outcome);
  let presence: PresenceRanks | null = null;
  const prepared = prepareAnswers(gold.presence);
  if (prepared.length) {
    presence = {};
    for (const o of round) presence[o.label] = { rank: presenceRank(o.texts, prepared), depth: o.texts.length };
    presence.evidence = {
      rank: presenceRank(
        outcome.evidence.map((e) => e.piece.text),
        prepared,
      ),
      depth: outcome.evidence.length,
    };
  }

  let retrieval: QuestionResult["retrieval"] = null;
  const relevantDocs = q.evidence?.documentIds ?? [];
  if (relevantDocs.length) {
    // A relevant document counts in whichever gold collection it was found (the best rank).
    const ranksIn = (ranking: string[]) => {
      const pos = new Map(ranking.map((d, i) => [d, i + 1]));
      return relevantDocs.map((d) => {
        const r = q.goldKbNames.map((kb) => pos.get(`${kb}\u0000${d}`)).filter((x): x is number => x !== undefined);
        return r.length ? Math.min(...r) : null;
      });
    };
    const stages = stageRankings([...round, observe(0, "evidence", outcome.evidence)]);
    // The final ranking: what the last re-rank round kept, then what each earlier stage had (deep enough for Recall@100).
    const ranking = stages.length > 1 ? stages[stages.length - 2].ranking : [];
    const first = round.find((o) => o.label === FIRST_STAGE);
    retrieval = {
      relevant: relevantDocs.length,
      ranks: ranksIn(ranking),
      retrievedDepth: ranking.length,
      top: ranking.slice(0, 10).map((k) => k.split("\u0000")[1] ?? k),
      stages: stages.map((st) => ({ label: st.label, ranks: ranksIn(st.ranking), depth: st.ranking.length })),
      queries: first?.searches ?? [],
    };
  }

  const scores = judge(q, gold, answer);
  let correctDecision: boolean | null = null;
  // Calibration judges the value the confidence is about: the answer shown, or the one held back.
  let correct: boolean | null = null;
  if (gold.unanswerable) {
    // Nothing recorded for what was asked: saying so is as right as refraining; a value is wrong.
    const saysNothing = !!nothingRecorded && !outcome.answer.refrained && statesNothing(answer);
    correctDecision = outcome.answer.refrained || saysNothing;
    correct = saysNothing;
  } else if (scores.p1 !== null) {
    correct = outcome.answer.refrained ? withheld !== null && judge(q, gold, withheld).p1 === true : scores.p1;
    correctDecision = outcome.answer.refrained ? !correct : scores.p1;
  }

  return {
    ...base,
    runId: outcome.runId,
    conversationId: outcome.conversationId,
    status: outcome.status,
    answer,
    withheld,
    source: {
      candidates,
      winner: outcome.winner?.kbName ?? null,
      inCandidates: hasSourceGold ? candidates.some((c) => goldKbs.has(c)) : null,
      rankedFirst: hasSourceGold ? candidates.length > 0 && goldKbs.has(candidates[0]) : null,
      winnerCorrect: hasSourceGold ? !!outcome.winner && goldKbs.has(outcome.winner.kbName) : null,
    },
    retrieval,
    evidenceRecall: evidenceRecall(q, outcome),
    execution: gold.error ? null : await execution(ctx, q, gold, outcome),
    presence,
    scores,
    refrain: { refrained: outcome.answer.refrained, correctDecision },
    confidence: Number(outcome.answer.confidence.toFixed(4)),
    correct,
    shown: outcome.status === "ANSWERED" && !outcome.answer.refrained && outcome.answer.certainty !== "uncertain",
    caution: outcome.caution ?? null,
    features: outcome.calibration
      ? Object.fromEntries(Object.entries(outcome.calibration.features).map(([k, v]) => [k, Number(v.toFixed(4))]))
      : null,
    timings: { ...outcome.timings, total: outcome.totalMs },
    totalMs: outcome.totalMs,
    usage: usageOf(outcome, eventCost),
    degradations: outcome.degradations.slice(0, 5),
    guide: outcome.answer.shape?.source.guide ?? null,
  };
}
