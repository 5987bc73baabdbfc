"use client";

import type { ReactNode } from "react";
import {
  Bar,
  BarChart,
  CartesianGrid,
  ComposedChart,
  Legend,
  Line,
  LineChart,
  ReferenceLine,
  ResponsiveContainer,
  Scatter,
  Tooltip,
  XAxis,
  YAxis,
} from "recharts";
import { count } from "@/lib/format/count";
import { formatMetric, metricInfo, rankingLabel, rankingRank, sortedEntries, stageRank } from "@/lib/eval/metric-labels";
import type { MetricValue, SuiteMetrics } from "@/lib/eval/types";

export const SERIES_COLORS = ["#2f6fde", "#f59e0b", "#10b981", "#e11d48", "#8b5cf6", "#64748b", "#0891b2"];

/** One colour per headline metric, the same in every chart. */
const METRIC_COLORS: Record<string, string> = {
  "source.rankedFirst": "#2f6fde",
  "retrieval.ndcg@10": "#0891b2",
  "execution.match": "#f59e0b",
  "execution.matchColumns": "#fcd34d",
  "answer.em": "#34d399",
  "answer.p@1": "#10b981",
  "answer.f1": "#8b5cf6",
  "refrain.accuracy": "#64748b",
};
const colorOf = (key: string, i: number) => METRIC_COLORS[key] ?? SERIES_COLORS[i % SERIES_COLORS.length];

const pct = (v: number) => `${Math.round(v * 100)}%`;
const tooltipPct = (v: unknown) => (typeof v === "number" ? `${(v * 100).toFixed(1)}%` : "–");
const tooltipMs = (v: unknown) => (typeof v === "number" ? formatMetric(v, "ms") : "–");

/** A chart with a title and a fixed height, so nothing below moves while it draws or updates. */
export function ChartCard({
  title,
  description,
  height = 240,
  wide = false,
  children,
}: {
  title: string;
  description?: string;
  height?: number;
  wide?: boolean;
  children: ReactNode;
}) {
  return (
    <figure className={`min-w-0 rounded-lg border border-slate-200 bg-white p-4 ${wide ? "xl:col-span-2" : ""}`}>
      <figcaption className="mb-2">
        <span className="block text-sm font-semibold">{title}</span>
        {description && <span className="block text-xs text-slate-500">{description}</span>}
      </figcaption>
      <div
        style={{ height }}
        role="img"
        aria-label={`${title}${description ? `: ${description}` : ""}. The same values are listed in the metrics table.`}
      >
        {children}
      </div>
    </figure>
  );
}

/** Rate metrics of the suite as horizontal bars (0–100 %). */
export function RateBars({ metrics }: { metrics: SuiteMetrics }) {
  const rows: { name: string; value: number }[] = [];
  const add = (key: string, v: MetricValue | undefined, n: number) => {
    if (n && typeof v === "number") rows.push({ name: metricInfo(key).label, value: v });
  };
  for (const k of ["inCandidates", "rankedFirst", "winner"]) add(`source.${k}`, metrics.source.values[k], metrics.source.n);
  for (const k of ["hit@1", "ndcg@10", "recall@100"]) add(`retrieval.${k}`, metrics.retrieval.values[k], metrics.retrieval.n);
  add("evidence.recall", metrics.evidence.values.recall, metrics.evidence.n);
  for (const k of ["match", "matchColumns"]) add(`execution.${k}`, metrics.execution.values[k], metrics.execution.n);
  for (const k of ["p@1", "em", "f1"]) add(`answer.${k}`, metrics.answer.values[k], metrics.answer.n);
  for (const k of ["rate", "accuracy"]) add(`refrain.${k}`, metrics.refrain.values[k], metrics.refrain.n);
  const height = Math.max(160, rows.length * 26 + 40);
  return (
    <ChartCard title="Metrics" description="Share of questions (each metric over the questions it applies to)" height={height} wide>
      <ResponsiveContainer width="100%" height="100%">
        <BarChart data={rows} layout="vertical" margin={{ left: 8, right: 24, top: 4, bottom: 4 }}>
          <CartesianGrid horizontal={false} stroke="#e2e8f0" />
          <XAxis type="number" domain={[0, 1]} tickFormatter={pct} fontSize={11} />
          <YAxis type="category" dataKey="name" width={260} fontSize={11} interval={0} />
          <Tooltip formatter={tooltipPct} />
          <Bar dataKey="value" name="value" fill={SERIES_COLORS[0]} isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
    </ChartCard>
  );
}

/** Quasar's answer presence: AP@k along k, one line per ranking (pool, each re-rank round, the answer's evidence). */
export function PresenceChart({ metrics }: { metrics: SuiteMetrics }) {
  const labels = sortedEntries(metrics.presence, rankingRank)
    .filter(([, g]) => g.n > 0)
    .map(([l]) => l);
  if (!labels.length) return null;
  const ks = [...new Set(labels.flatMap((l) => Object.keys(metrics.presence[l].values).map((k) => Number(k.slice(3)))))].sort(
    (a, b) => a - b,
  );
  const data = ks.map((k) => ({ k: `${k}`, ...Object.fromEntries(labels.map((l) => [l, metrics.presence[l].values[`ap@${k}`] ?? null])) }));
  return (
    <ChartCard title="Answer presence (AP@k)" description="Share of questions with a gold answer in the top k pieces, per ranking">
      <ResponsiveContainer width="100%" height="100%">
        <LineChart data={data} margin={{ left: 0, right: 16, top: 4, bottom: 4 }}>
          <CartesianGrid stroke="#e2e8f0" />
          <XAxis dataKey="k" fontSize={11} label={{ value: "k", position: "insideBottomRight", offset: -2, fontSize: 11 }} />
          <YAxis domain={[0, 1]} tickFormatter={pct} fontSize={11} width={40} />
          <Tooltip formatter={tooltipPct} labelFormatter={(k) => `top ${k}`} />
          <Legend wrapperStyle={{ fontSize: 11 }} />
          {labels.map((l, i) => (
            <Line
              key={l}
              type="monotone"
              dataKey={l}
              name={rankingLabel(l)}
              stroke={SERIES_COLORS[i % SERIES_COLORS.length]}
              dot
              connectNulls
              isAnimationActive={false}
            />
          ))}
        </LineChart>
      </ResponsiveContainer>
    </ChartCard>
  );
}

const BREAKDOWN_KEYS = ["source.rankedFirst", "retrieval.ndcg@10", "execution.match", "answer.p@1", "answer.f1", "refrain.accuracy"];
/** Per database, hardness class or type: strict and lenient execution match side by side, EM beside F1. */
export const TAG_BREAKDOWN_KEYS = ["execution.match", "execution.matchColumns", "retrieval.ndcg@10", "answer.em", "answer.f1"];

/** A few headline metrics side by side per group (source kind, suite, or a tag: database, hardness class, type). */
export function BreakdownChart({
  title,
  description,
  by,
  rank = () => 0,
  metrics = BREAKDOWN_KEYS,
}: {
  title: string;
  description: string;
  by: SuiteMetrics["byKind"];
  rank?: (group: string) => number;
  metrics?: string[];
}) {
  // Questions whose group is unknown (no gold source: the questions to refrain from; a Spider query the
  // hardness rules cannot class) are no group of their own; the description says how many are left out.
  const all = sortedEntries(by, rank);
  const groups = all.filter(([name]) => name.toLowerCase() !== "unknown");
  const left = all.filter(([name]) => name.toLowerCase() === "unknown").reduce((n, [, g]) => n + g.n, 0);
  // One group is no comparison: the headline metrics already say it.
  if (groups.length < 2) return null;
  const keys = metrics.filter((k) => groups.some(([, g]) => typeof g.values[k] === "number"));
  const data = groups.map(([name, g]) => ({
    name: `${name.toLowerCase()} · ${g.n}`,
    ...Object.fromEntries(keys.map((k) => [k, g.values[k] ?? null])),
  }));
  // Many groups (Spider's databases, Text2Cypher's types) get the whole row, so their bars and names stay readable.
  const many = groups.length > 4;
  return (
    <ChartCard
      title={title}
      description={left > 0 ? `${description}; ${count(left, "question")} without one not shown` : description}
      wide={many}
      height={many ? 300 : 240}
    >
      <ResponsiveContainer width="100%" height="100%">
        {/* Room on the left for the first slanted group name, which otherwise runs off the card. */}
        <BarChart data={data} margin={{ left: 24, right: 16, top: 4, bottom: 4 }}>
          <CartesianGrid vertical={false} stroke="#e2e8f0" />
          {/* Up to three names fit side by side; more are slanted so that each stays readable. */}
          <XAxis
            dataKey="name"
            fontSize={10}
            interval={0}
            angle={many ? -25 : groups.length > 3 ? -15 : 0}
            textAnchor={many || groups.length > 3 ? "end" : "middle"}
            height={many ? 72 : groups.length > 3 ? 44 : 24}
          />
          <YAxis domain={[0, 1]} tickFormatter={pct} fontSize={11} width={40} />
          <Tooltip formatter={tooltipPct} />
          <Legend wrapperStyle={{ fontSize: 11 }} />
          {keys.map((k, i) => (
            <Bar key={k} dataKey={k} name={metricInfo(k).label} fill={colorOf(k, i)} isAnimationActive={false} />
          ))}
        </BarChart>
      </ResponsiveContainer>
    </ChartCard>
  );
}

/** Per-stage latency, p50 and p95. */
export function LatencyChart({ metrics }: { metrics: SuiteMetrics }) {
  const data = sortedEntries(metrics.latency, stageRank)
    .filter(([stage]) => stage !== "total")
    .map(([stage, l]) => ({ stage, p50: l.p50, p95: l.p95 }));
  if (!data.length) return null;
  const total = metrics.latency.total;
  return (
    <ChartCard
      title="Latency per stage"
      description={total ? `End to end: p50 ${formatMetric(total.p50, "ms")}, p95 ${formatMetric(total.p95, "ms")}` : undefined}
      height={Math.max(200, data.length * 30 + 50)}
    >
      <ResponsiveContainer width="100%" height="100%">
        <BarChart data={data} layout="vertical" margin={{ left: 8, right: 16, top: 4, bottom: 4 }}>
          <CartesianGrid horizontal={false} stroke="#e2e8f0" />
          <XAxis type="number" fontSize={11} tickFormatter={(v: number) => `${v} ms`} />
          <YAxis type="category" dataKey="stage" width={100} fontSize={11} interval={0} />
          <Tooltip formatter={tooltipMs} />
          <Legend wrapperStyle={{ fontSize: 11 }} />
          <Bar dataKey="p50" fill={SERIES_COLORS[0]} isAnimationActive={false} />
          <Bar dataKey="p95" fill={SERIES_COLORS[1]} isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
    </ChartCard>
  );
}

/** The latest finished report of each suite, side by side. */
export function SuiteOverviewChart({ rows }: { rows: { suite: string; headline: Record<string, MetricValue> }[] }) {
  const keys = ["source.rankedFirst", "retrieval.ndcg@10", "execution.match", "answer.p@1", "answer.f1", "refrain.accuracy"].filter((k) =>
    rows.some((r) => typeof r.headline[k] === "number"),
  );
  // A single suite is one group of bars that says nothing the report's own figures do not.
  if (rows.length < 2 || !keys.length) return null;
  const data = rows.map((r) => ({ suite: r.suite, ...Object.fromEntries(keys.map((k) => [k, r.headline[k] ?? null])) }));
  return (
    <ChartCard title="Per suite" description="The latest finished report of each suite">
      <ResponsiveContainer width="100%" height="100%">
        <BarChart data={data} margin={{ left: 0, right: 16, top: 4, bottom: 4 }}>
          <CartesianGrid vertical={false} stroke="#e2e8f0" />
          <XAxis dataKey="suite" fontSize={11} interval={0} />
          <YAxis domain={[0, 1]} tickFormatter={pct} fontSize={11} width={40} />
          <Tooltip formatter={tooltipPct} />
          <Legend wrapperStyle={{ fontSize: 11 }} />
          {keys.map((k, i) => (
            <Bar key={k} dataKey={k} name={metricInfo(k).label} fill={colorOf(k, i)} isAnimationActive={false} />
          ))}
        </BarChart>
      </ResponsiveContainer>
    </ChartCard>
  );
}

/**
 * The reliability diagram: per confidence bin (0–10 %, …, 90–100 %), the share of answers that were
 * right beside the diagonal a calibrated confidence would follow. Bars above the line: the confidence
 * undersells; below: it oversells.
 */
export function ReliabilityChart({ metrics }: { metrics: SuiteMetrics }) {
  const bins = metrics.calibrationCurves?.reliability ?? [];
  if (!bins.some((b) => b.n > 0)) return null;
  const data = bins.map((b) => ({
    bin: `${Math.round(b.lo * 100)}–${Math.round(b.hi * 100)}`,
    mid: (b.lo + b.hi) / 2,
    accuracy: b.accuracy,
    confidence: b.confidence,
    n: b.n,
  }));
  const ece = metrics.calibration?.values.ece;
  return (
    <ChartCard
      title="Reliability diagram"
      description={`Share right per confidence bin in % (bars) against a calibrated confidence (line)${typeof ece === "number" ? `; expected calibration error ${formatMetric(ece, "score")}` : ""}; n ${metrics.calibration?.n ?? 0}`}
    >
      <ResponsiveContainer width="100%" height="100%">
        <ComposedChart data={data} margin={{ left: 0, right: 16, top: 4, bottom: 4 }}>
          <CartesianGrid vertical={false} stroke="#e2e8f0" />
          {/* Ten bins side by side: slanted, each range stays readable. */}
          <XAxis dataKey="bin" fontSize={10} interval={0} angle={-35} textAnchor="end" height={40} />
          <YAxis domain={[0, 1]} tickFormatter={pct} fontSize={11} width={40} />
          <Tooltip
            formatter={(v, name) => [tooltipPct(v), name]}
            labelFormatter={(label, payload) => `confidence ${label}% · ${count(Number(payload?.[0]?.payload?.n ?? 0), "answer")}`}
          />
          <Legend wrapperStyle={{ fontSize: 11 }} />
          <Bar dataKey="accuracy" name="share right" fill={SERIES_COLORS[0]} isAnimationActive={false} />
          <Line dataKey="mid" name="calibrated" stroke="#94a3b8" strokeDasharray="4 3" dot={false} isAnimationActive={false} />
          <Scatter dataKey="confidence" name="mean confidence" fill={SERIES_COLORS[1]} isAnimationActive={false} />
        </ComposedChart>
      </ResponsiveContainer>
    </ChartCard>
  );
}

/**
 * The risk–coverage curve: answers sorted by confidence, most confident first; at each share of the
 * questions kept, the share of kept answers that are right. The dashed line is the 90 % target.
 */
export function RiskCoverageChart({ metrics }: { metrics: SuiteMetrics }) {
  const points = metrics.calibrationCurves?.riskCoverage ?? [];
  if (!points.length) return null;
  const data = [...points].map((p) => ({ coverage: p.coverage, precision: p.precision, threshold: p.threshold }));
  const v = metrics.calibration?.values ?? {};
  const parts = [
    typeof v.aurc === "number" ? `area under the risk curve ${formatMetric(v.aurc, "score")}` : null,
    typeof v.coverageAt90 === "number" ? `coverage at 90% precision ${formatMetric(v.coverageAt90, "rate")}` : null,
  ].filter(Boolean);
  return (
    <ChartCard
      title="Risk–coverage"
      description={`Share right among the most confident answers, by share of questions kept; ${parts.join(", ")}`}
    >
      <ResponsiveContainer width="100%" height="100%">
        <LineChart data={data} margin={{ left: 0, right: 16, top: 4, bottom: 4 }}>
          <CartesianGrid stroke="#e2e8f0" />
          <XAxis
            dataKey="coverage"
            type="number"
            domain={[0, 1]}
            tickFormatter={pct}
            fontSize={11}
            label={{ value: "coverage", position: "insideBottomRight", offset: -2, fontSize: 11 }}
          />
          <YAxis domain={[0, 1]} tickFormatter={pct} fontSize={11} width={40} />
          <ReferenceLine y={0.9} stroke="#94a3b8" strokeDasharray="4 3" />
          <Tooltip
            formatter={(val) => [tooltipPct(val), "precision"]}
            labelFormatter={(c, payload) => `${tooltipPct(c)} kept (confidence ≥ ${tooltipPct(payload?.[0]?.payload?.threshold)})`}
          />
          <Line dataKey="precision" name="precision" stroke={SERIES_COLORS[2]} dot isAnimationActive={false} />
        </LineChart>
      </ResponsiveContainer>
    </ChartCard>
  );
}
