import type { Comparison } from "./compare";
import {
  BREAKDOWN_TITLES,
  breakdownValueRank,
  formatDelta,
  formatMetric,
  metricInfo,
  rankingLabel,
  rankingRank,
  sortedEntries,
  stageRank,
} from "./metric-labels";
import type { MetricGroup, ReportJson, StageMetrics, SuiteMetrics } from "./types";
import { count } from "../format/count";

/** Plain-text tables for the command line (fixed-width columns, no colour codes: logs stay readable). */

function pad(s: string, n: number): string {
  return s.length >= n ? s : s + " ".repeat(n - s.length);
}

function padLeft(s: string, n: number): string {
  return s.length >= n ? s : " ".repeat(n - s.length) + s;
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  return m < 60 ? `${m} min ${s % 60} s` : `${Math.floor(m / 60)} h ${m % 60} min`;
}

function groupRows(prefix: string, g: MetricGroup, rows: string[][]) {
  if (!g.n) return;
  let first = true;
  for (const [k, v] of Object.entries(g.values)) {
    const info = metricInfo(`${prefix}.${k}`);
    rows.push([first ? info.group : "", info.label, formatMetric(v, info.format), first ? String(g.n) : ""]);
    first = false;
  }
}

function table(rows: string[][], align: ("l" | "r")[]): string {
  const widths = align.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length)));
  return rows
    .map((r) =>
      r
        .map((c, i) => (align[i] === "r" ? padLeft(c ?? "", widths[i]) : pad(c ?? "", widths[i])))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

export function formatMetricsTable(m: SuiteMetrics): string {
  const rows: string[][] = [["metric", "", "value", "n"]];
  groupRows("source", m.source, rows);
  groupRows("retrieval", m.retrieval, rows);
  groupRows("evidence", m.evidence, rows);
  groupRows("execution", m.execution, rows);
  for (const [label, g] of sortedEntries(m.presence, rankingRank)) groupRows(`presence.${label}`, g, rows);
  groupRows("answer", m.answer, rows);
  groupRows("refrain", m.refrain, rows);
  if (m.calibration) groupRows("calibration", m.calibration, rows);
  if (m.usage) {
    rows.push(["LLM usage", "tokens", formatMetric(m.usage.tokens, "count"), String(m.usage.runsWithLlm)]);
    rows.push(["", "cost", formatMetric(m.usage.costUsd, "usd"), ""]);
  }
  const out = [table(rows, ["l", "l", "r", "r"])];
  const stages = sortedEntries(m.latency, stageRank);
  if (stages.length) {
    const lat: string[][] = [["stage", "p50", "p95"]];
    for (const [stage, l] of stages) lat.push([stage, formatMetric(l.p50, "ms"), formatMetric(l.p95, "ms")]);
    out.push(`\nLatency per stage\n${table(lat, ["l", "r", "r"])}`);
  }
  return out.join("\n");
}

const BREAKDOWN_COLUMNS = [
  "source.rankedFirst",
  "execution.match",
  "execution.matchColumns",
  "retrieval.ndcg@10",
  "answer.p@1",
  "answer.em",
  "answer.f1",
  "refrain.rate",
  "refrain.accuracy",
  "refrain.shownAccuracy",
  "calibration.ece",
  "calibration.precisionHigh",
  "calibration.coverageAt90",
  "latency.total.p50",
];

/**
 * Document retrieval per ranking stage with each stage's change from the one before (percentage
 * points): where relevant documents are lost shows as a negative delta.
 */
export function formatStages(stages: StageMetrics[] | undefined): string {
  if (!stages?.length) return "";
  const keys = ["ndcg@10", "recall@100", "mrr@10"];
  const head = ["stage", ...keys.flatMap((k) => [metricInfo(`retrieval.${k}`).label, "Δ"])];
  const rows = [
    head,
    ...stages.map((st) => [
      rankingLabel(st.label),
      ...keys.flatMap((k) => [formatMetric(st.values[k], "rate"), st.delta[k] === null ? "" : formatDelta(st.delta[k], "rate")]),
    ]),
  ];
  return `Document retrieval by ranking stage (n ${stages[0].n}; each stage read as a cascade over the stages before it)\n${table(rows, ["l", ...keys.flatMap(() => ["r", "r"] as ("l" | "r")[])])}`;
}

/** A few headline metrics per source kind, per suite, or per value of a tag (database, hardness, type). */
export function formatBreakdown(title: string, by: SuiteMetrics["byKind"], rank: (key: string) => number = () => 0): string {
  const entries = sortedEntries(by, rank);
  if (entries.length < 2) return "";
  const keys = BREAKDOWN_COLUMNS.filter((k) => entries.some(([, v]) => v.values[k] !== undefined && v.values[k] !== null));
  const rows: string[][] = [[title, "n", ...keys.map((k) => metricInfo(k).label.replace(/ \(.*\)$/, ""))]];
  for (const [name, v] of entries) rows.push([name, String(v.n), ...keys.map((k) => formatMetric(v.values[k], metricInfo(k).format))]);
  return table(rows, ["l", "r", ...keys.map(() => "r" as const)]);
}

export function formatReport(r: ReportJson): string {
  const run = r.metrics.run;
  const head = [
    `${r.suiteLabel} · ${count(r.n, "question")} · seed ${r.seed}${r.limit ? ` · limit ${r.limit}` : ""}`,
    run
      ? `ran ${run.ran} in ${formatDuration(run.wallMs)} with concurrency ${run.concurrency}${run.ran ? ` (${((run.ran / run.wallMs) * 60_000).toFixed(1)} questions/min)` : ""}`
      : "",
    `answered ${r.metrics.counts.answered}, refrained ${r.metrics.counts.refrained}, failed ${r.metrics.counts.failed}`,
    Object.keys(r.configInput).length ? `config: ${JSON.stringify(r.configInput)}` : "config: pipeline defaults",
    r.questionsFile ? `questions: ${r.questionsFile.name} (sha256 ${r.questionsFile.sha256})` : "",
    r.guidesFile
      ? `guides: ${r.guidesFile.name} (sha256 ${r.guidesFile.sha256}): ${r.guidesFile.imported} imported, ${r.guidesFile.skipped} skipped${r.guidesFile.existing ? `, ${r.guidesFile.existing} already guides` : ""} of ${r.guidesFile.items}, owned by ${r.guidesFile.owner} and removed after the run; ${count(r.perQuestion.filter((q) => q.guide).length, "question")} answered with a guide`
      : "",
  ].filter(Boolean);
  const parts = [head.join("\n"), formatMetricsTable(r.metrics)];
  const stages = formatStages(r.metrics.retrievalStages);
  if (stages) parts.push(stages);
  const kinds = formatBreakdown("source kind", r.metrics.byKind);
  if (kinds) parts.push(`By source kind\n${kinds}`);
  const suites = formatBreakdown("suite", r.metrics.bySuite);
  if (suites) parts.push(`By suite\n${suites}`);
  for (const [tag, by] of sortedEntries(r.metrics.breakdowns ?? {}, (t) => Object.keys(BREAKDOWN_TITLES).indexOf(t))) {
    const title = BREAKDOWN_TITLES[tag] ?? tag;
    const text = formatBreakdown(title, by, breakdownValueRank(tag));
    if (text) parts.push(`By ${title}\n${text}`);
  }
  return parts.join("\n\n");
}

export function formatComparison(c: Comparison, opts: { maxQuestions?: number } = {}): string {
  const rows: string[][] = [["metric", "", "A", "B", "Δ (B − A)"]];
  let lastGroup = "";
  for (const m of c.metrics) {
    if (m.a === null && m.b === null) continue;
    rows.push([
      m.group === lastGroup ? "" : m.group,
      m.label,
      formatMetric(m.a, m.format),
      formatMetric(m.b, m.format),
      formatDelta(m.delta, m.format),
    ]);
    lastGroup = m.group;
  }
  const out = [
    `A: ${c.a.label} (${c.a.n} questions)   B: ${c.b.label} (${c.b.n} questions)`,
    ...c.warnings.map((w) => `note: ${w}`),
    "",
    table(rows, ["l", "l", "r", "r", "r"]),
  ];
  out.push(
    "",
    `Questions in both: ${c.counts.common}; fixed ${c.counts.fixed}, broken ${c.counts.broken}, answered differently ${c.counts.changed}.`,
  );
  const max = opts.maxQuestions ?? 40;
  for (const kind of ["broken", "fixed", "changed"] as const) {
    const list = c.changes.filter((x) => x.change === kind);
    if (!list.length) continue;
    out.push(
      "",
      `${kind === "broken" ? "Broken (right in A, wrong in B)" : kind === "fixed" ? "Fixed (wrong in A, right in B)" : "Answered differently"}:`,
    );
    for (const x of list.slice(0, max)) {
      out.push(`  ${x.id}  ${x.question.slice(0, 90)}`);
      out.push(`      A: ${(x.a.answer ?? "–").slice(0, 70)}   B: ${(x.b.answer ?? "–").slice(0, 70)}`);
    }
    if (list.length > max) out.push(`  … and ${list.length - max} more (--all lists every one)`);
  }
  return out.join("\n");
}

export interface SummaryRow {
  suite: string;
  report?: ReportJson;
  skipped?: string;
  wallMs: number;
}

const SUMMARY_KEYS = [
  "source.rankedFirst",
  "execution.match",
  "retrieval.ndcg@10",
  "retrieval.recall@100",
  "answer.p@1",
  "answer.f1",
  "refrain.accuracy",
  "refrain.shownAccuracy",
  "calibration.ece",
  "calibration.coverageAt90",
  "latency.total.p50",
  "latency.total.p95",
];

/** One line per suite: the headline metrics side by side (the baseline table). */
export function formatSummary(rows: SummaryRow[]): string {
  const head = ["suite", "n", ...SUMMARY_KEYS.map((k) => metricInfo(k).label.replace(/ \(.*\)$/, "")), "wall"];
  const out: string[][] = [head];
  for (const r of rows) {
    if (!r.report) {
      out.push([r.suite, "skipped", ...SUMMARY_KEYS.map(() => ""), formatDuration(r.wallMs)]);
      continue;
    }
    const m = r.report.metrics;
    const flat: Record<string, number | null> = {};
    const put = (prefix: string, g: MetricGroup) => {
      if (g.n) for (const [k, v] of Object.entries(g.values)) flat[`${prefix}.${k}`] = v;
    };
    put("source", m.source);
    put("execution", m.execution);
    put("retrieval", m.retrieval);
    put("answer", m.answer);
    put("refrain", m.refrain);
    if (m.calibration) put("calibration", m.calibration);
    if (m.latency.total) {
      flat["latency.total.p50"] = m.latency.total.p50;
      flat["latency.total.p95"] = m.latency.total.p95;
    }
    out.push([
      r.suite,
      String(r.report.n),
      ...SUMMARY_KEYS.map((k) => formatMetric(flat[k], metricInfo(k).format)),
      formatDuration(r.wallMs),
    ]);
  }
  return table(out, ["l", "r", ...SUMMARY_KEYS.map(() => "r" as const), "r"]);
}
