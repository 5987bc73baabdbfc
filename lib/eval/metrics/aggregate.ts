import { compareMetricKeys, rankingRank, stageRank } from "../metric-labels";
import type { Breakdown, MetricGroup, MetricValue, QuestionResult, StageMetrics, SuiteMetrics } from "../types";
import { calibrationSummary, type CalibrationPair } from "./calibration";
import { PRESENCE_KS } from "./presence";
import { hitAtK, mrrAtK, ndcgAtK, recallAtK } from "./retrieval";

/** Nearest-rank percentile (the value below which p% of the sample lies), as the bench scripts report. */
export function percentile(values: number[], p: number): number {
  if (!values.length) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

function mean(values: number[]): MetricValue {
  return values.length ? values.reduce((a, b) => a + b, 0) / values.length : null;
}

const rate = (flags: boolean[]): MetricValue => mean(flags.map((f) => (f ? 1 : 0)));

function group(n: number, values: Record<string, MetricValue>): MetricGroup {
  return { n, values: n ? values : Object.fromEntries(Object.keys(values).map((k) => [k, null])) };
}

export const RETRIEVAL_KS = { hit: [1, 5, 10], recall: [10, 100] } as const;

/**
 * Suite metrics from per-question results. Each group is averaged over the questions it applies to
 * (its own n): source selection over questions with a gold source, retrieval over questions with gold
 * documents, execution over questions whose gold is a query result, answer accuracy over answerable
 * questions with answer gold, refrain accuracy over questions where the decision can be judged.
 * Questions whose run failed count as wrong; questions whose gold could not be computed are left out.
 */
export function aggregateCore(results: QuestionResult[]): Omit<SuiteMetrics, "byKind" | "bySuite"> {
  // A question the pipeline could not even start (status ERROR: the evaluation's own problem, shown with
  // its message) is left out of the metric groups; a run that failed inside counts as a wrong answer.
  const ran = results.filter((r) => r.status !== "ERROR");
  const counts = {
    answered: results.filter((r) => r.status === "ANSWERED").length,
    refrained: results.filter((r) => r.status === "REFRAINED").length,
    failed: results.filter((r) => r.status === "FAILED" || r.status === "ERROR").length,
  };

  const src = ran.filter((r) => r.gold.kbNames.length > 0);
  const source = group(src.length, {
    inCandidates: rate(src.map((r) => r.source.inCandidates === true)),
    rankedFirst: rate(src.map((r) => r.source.rankedFirst === true)),
    winner: rate(src.map((r) => r.source.winnerCorrect === true)),
  });

  const ret = ran.filter((r) => r.retrieval !== null && r.retrieval.relevant > 0);
  const ranksOf = (r: QuestionResult) => r.retrieval!.ranks;
  const retrievalValues: Record<string, MetricValue> = {};
  for (const k of RETRIEVAL_KS.hit) retrievalValues[`hit@${k}`] = mean(ret.map((r) => hitAtK(ranksOf(r), k)));
  retrievalValues["mrr@10"] = mean(ret.map((r) => mrrAtK(ranksOf(r), 10)));
  retrievalValues["ndcg@10"] = mean(ret.map((r) => ndcgAtK(ranksOf(r), 10, relevantOf(r))));
  for (const k of RETRIEVAL_KS.recall) retrievalValues[`recall@${k}`] = mean(ret.map((r) => recallAtK(ranksOf(r), k, relevantOf(r))));
  const retrieval = group(ret.length, retrievalValues);

  const retrievalStages = stageMetrics(ret);

  const ev = ran.filter((r) => r.evidenceRecall !== null);
  const evidence = group(ev.length, { recall: mean(ev.map((r) => r.evidenceRecall!)) });

  const ex = ran.filter((r) => r.execution !== null);
  const execution = group(ex.length, {
    match: rate(ex.map((r) => r.execution!.match)),
    matchColumns: rate(ex.map((r) => r.execution!.matchColumns)),
    anyMatch: rate(ex.map((r) => r.execution!.anyMatch)),
    // Results recorded before strict matching have no resultMatch: their match was already "any database".
    matchAnyKb: rate(ex.map((r) => r.execution!.resultMatch ?? r.execution!.match)),
  });

  const labels = [...new Set(ran.flatMap((r) => Object.keys(r.presence ?? {})))];
  const presence: Record<string, MetricGroup> = {};
  for (const label of labels) {
    const withGold = ran.filter((r) => r.presence !== null);
    const depth = Math.max(0, ...withGold.map((r) => r.presence![label]?.depth ?? 0));
    const values: Record<string, MetricValue> = {};
    for (const k of PRESENCE_KS) {
      if (k > Math.max(1, depth) && k !== PRESENCE_KS[0]) continue;
      values[`ap@${k}`] = rate(withGold.map((r) => (r.presence![label]?.rank ?? Infinity) <= k));
    }
    presence[label] = group(withGold.length, values);
  }

  const ans = ran.filter((r) => r.scores.p1 !== null);
  const answerValues: Record<string, MetricValue> = {
    "p@1": rate(ans.map((r) => r.scores.p1 === true)),
    em: mean(ans.map((r) => r.scores.em ?? 0)),
    f1: mean(ans.map((r) => r.scores.f1 ?? 0)),
  };
  const noScale = ans.filter((r) => typeof r.scores.emNoScale === "number");
  if (noScale.length) answerValues.emNoScale = mean(noScale.map((r) => r.scores.emNoScale!));
  const answer = group(ans.length, answerValues);

  const decided = ran.filter((r) => r.refrain.correctDecision !== null);
  const unanswerable = ran.filter((r) => r.gold.unanswerable);
  const refrainValues: Record<string, MetricValue> = {
    rate: rate(ran.map((r) => r.refrain.refrained)),
    accuracy: rate(decided.map((r) => r.refrain.correctDecision === true)),
  };
  // The decision as the user sees it: an answer held back as "not certain" (the caution target, the critic's
  // doubt) is not shown as one either; holding it back is right exactly when it is wrong.
  const seen = decided.filter((r) => typeof r.shown === "boolean");
  if (seen.length) refrainValues.shownAccuracy = rate(seen.map((r) => (r.shown ? r.correct === true : r.correct !== true)));
  if (unanswerable.length) refrainValues.unanswerableRefrained = rate(unanswerable.map((r) => r.refrain.refrained));
  const refrain = group(ran.length, refrainValues);

  // Calibration over the questions whose run gave a confidence and whose answer could be judged.
  const pairs: CalibrationPair[] = ran
    .filter((r) => typeof r.confidence === "number" && typeof r.correct === "boolean")
    .map((r) => ({ confidence: r.confidence!, correct: r.correct! }));
  const cal = calibrationSummary(pairs);
  // The caution target (issue 32, part 3): of the judged questions, the share shown as answers and the share of those that are right.
  const judged = ran.filter((r) => typeof r.correct === "boolean" && typeof r.shown === "boolean");
  const shown = judged.filter((r) => r.shown);
  const targets = ran.map((r) => r.caution?.target).filter((t): t is number => typeof t === "number");
  const calibration = group(pairs.length, {
    cautionTarget: targets.length ? Math.min(...targets) : null,
    shownCoverage: judged.length ? shown.length / judged.length : null,
    shownPrecision: shown.length ? shown.filter((r) => r.correct).length / shown.length : null,
    heldByTarget: judged.length ? judged.filter((r) => r.caution?.held).length / judged.length : null,
    ece: cal.ece,
    brier: cal.brier,
    aurc: cal.aurc,
    precisionHigh: cal.precisionHigh,
    coverageHigh: cal.coverageHigh,
    coverageAt90: cal.coverageAtTarget,
  });

  const latency: SuiteMetrics["latency"] = {};
  const stages = [...new Set(ran.flatMap((r) => Object.keys(r.timings)))].sort((a, b) => stageRank(a) - stageRank(b) || a.localeCompare(b));
  for (const stage of stages) {
    const ms = ran.map((r) => r.timings[stage]).filter((v): v is number => typeof v === "number");
    latency[stage] = { p50: percentile(ms, 50), p95: percentile(ms, 95), n: ms.length };
  }

  const used = ran.filter((r) => r.usage !== null);
  const usage = used.length
    ? {
        runsWithLlm: used.length,
        tokens: used.reduce((s, r) => s + (r.usage!.tokens ?? 0), 0),
        costUsd: used.reduce((s, r) => s + (r.usage!.costUsd ?? 0), 0),
      }
    : null;

  return {
    n: results.length,
    counts,
    source,
    retrieval,
    ...(retrievalStages.length ? { retrievalStages } : {}),
    evidence,
    execution,
    presence,
    answer,
    refrain,
    ...(pairs.length ? { calibration, calibrationCurves: { reliability: cal.reliability, riskCoverage: cal.riskCoverage } } : {}),
    latency,
    usage,
  };
}

/** What each ranking stage is measured by (BEIR's SciFact figures). */
export const STAGE_METRICS = ["ndcg@10", "recall@100", "mrr@10"] as const;

/**
 * Document retrieval per ranking stage (first-stage retrieval, pool, each re-rank round, the answer's
 * evidence), over the same questions for every stage, with each stage's change from the one before: a
 * stage that loses relevant documents shows a negative delta. A question that has no ranking for a
 * stage (its run skipped it) keeps the ranking of the stage before.
 */
export function stageMetrics(results: QuestionResult[]): StageMetrics[] {
  const withStages = results.filter((r) => r.retrieval?.stages?.length);
  if (!withStages.length) return [];
  const labels = [...new Set(withStages.flatMap((r) => r.retrieval!.stages!.map((s) => s.label)))].sort(
    (a, b) => rankingRank(a) - rankingRank(b) || a.localeCompare(b),
  );
  const out: StageMetrics[] = [];
  for (const label of labels) {
    const ranks = withStages.map((r) => {
      const own = r.retrieval!.stages!.find((s) => s.label === label);
      if (own) return own.ranks;
      const before = r
        .retrieval!.stages!.filter((s) => rankingRank(s.label) < rankingRank(label))
        .sort((a, b) => rankingRank(b.label) - rankingRank(a.label))[0];
      return before?.ranks ?? r.retrieval!.ranks.map(() => null);
    });
    const relevant = withStages.map((r) => r.retrieval!.relevant);
    const values: Record<string, MetricValue> = {
      "ndcg@10": mean(ranks.map((x, i) => ndcgAtK(x, 10, relevant[i]))),
      "recall@100": mean(ranks.map((x, i) => recallAtK(x, 100, relevant[i]))),
      "mrr@10": mean(ranks.map((x) => mrrAtK(x, 10))),
    };
    const prev = out[out.length - 1];
    const delta = Object.fromEntries(
      STAGE_METRICS.map((k) => [k, prev && values[k] !== null && prev.values[k] !== null ? values[k]! - prev.values[k]! : null]),
    );
    out.push({ label, n: withStages.length, values, delta });
  }
  return out;
}

function relevantOf(r: QuestionResult): number {
  return r.retrieval!.relevant;
}

/** Every metric as one flat map "group.name" → value (what tables, charts and comparisons read). */
export function flattenMetrics(m: Omit<SuiteMetrics, "byKind" | "bySuite">): Record<string, MetricValue> {
  const out: Record<string, MetricValue> = {};
  const put = (prefix: string, g: MetricGroup) => {
    if (!g.n) return;
    for (const [k, v] of Object.entries(g.values)) out[`${prefix}.${k}`] = v;
  };
  put("source", m.source);
  put("retrieval", m.retrieval);
  put("evidence", m.evidence);
  put("execution", m.execution);
  for (const st of m.retrievalStages ?? []) for (const [k, v] of Object.entries(st.values)) out[`stage.${st.label}.${k}`] = v;
  for (const [label, g] of Object.entries(m.presence)) put(`presence.${label}`, g);
  put("answer", m.answer);
  put("refrain", m.refrain);
  if (m.calibration) put("calibration", m.calibration);
  for (const [stage, l] of Object.entries(m.latency)) {
    out[`latency.${stage}.p50`] = l.p50;
    out[`latency.${stage}.p95`] = l.p95;
  }
  if (m.usage) {
    out["usage.tokens"] = m.usage.tokens;
    out["usage.costUsd"] = m.usage.costUsd;
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => compareMetricKeys(a, b)));
}

function breakdown(results: QuestionResult[], key: (r: QuestionResult) => string, keys?: readonly string[]): Record<string, Breakdown> {
  const groups = new Map<string, QuestionResult[]>();
  for (const r of results) groups.set(key(r), [...(groups.get(key(r)) ?? []), r]);
  return Object.fromEntries(
    [...groups.entries()].sort().map(([k, rs]) => {
      const flat = flattenMetrics(aggregateCore(rs));
      return [
        k,
        { n: rs.length, values: keys ? Object.fromEntries(keys.filter((m) => flat[m] !== undefined).map((m) => [m, flat[m]])) : flat },
      ];
    }),
  );
}

/** Question tags that break the metrics down: database, Spider hardness class, answer or question type, robustness rewrite class, question category (demo). */
export const BREAKDOWN_TAGS = ["db", "hardness", "type", "class", "category"] as const;
/** What each breakdown row shows (those that apply to the suite). */
export const BREAKDOWN_KEYS = [
  "execution.match",
  "execution.matchColumns",
  "retrieval.ndcg@10",
  "answer.p@1",
  "answer.em",
  "answer.f1",
  "refrain.rate",
  "refrain.accuracy",
  "calibration.ece",
  "calibration.precisionHigh",
  "calibration.coverageAt90",
] as const;

export function tagValue(r: Pick<QuestionResult, "tags">, tag: string): string | null {
  const found = r.tags.find((t) => t.startsWith(`${tag}:`));
  return found ? found.slice(tag.length + 1) : null;
}

/** Per tag with at least two values among the results: the breakdown metrics per value. */
export function tagBreakdowns(results: QuestionResult[]): NonNullable<SuiteMetrics["breakdowns"]> {
  const out: NonNullable<SuiteMetrics["breakdowns"]> = {};
  for (const tag of BREAKDOWN_TAGS) {
    const tagged = results.filter((r) => tagValue(r, tag) !== null);
    if (new Set(tagged.map((r) => tagValue(r, tag))).size < 2) continue;
    out[tag] = breakdown(tagged, (r) => tagValue(r, tag)!, BREAKDOWN_KEYS);
  }
  return out;
}

export function aggregate(results: QuestionResult[]): SuiteMetrics {
  return {
    ...aggregateCore(results),
    byKind: breakdown(results, (r) => r.kind),
    bySuite: breakdown(results, (r) => r.suite),
    breakdowns: tagBreakdowns(results),
  };
}
