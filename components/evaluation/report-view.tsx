"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import {
  BREAKDOWN_TITLES,
  breakdownValueRank,
  formatDelta,
  formatMetric,
  HEADLINE_METRICS,
  metricInfo,
  rankingRank,
  sortedEntries,
  stageRank,
} from "@/lib/eval/metric-labels";
import type { ReportDetail } from "@/lib/eval/reports";
import type { MetricGroup, SuiteMetrics } from "@/lib/eval/types";
import { Alert } from "../ui/alert";
import { Button } from "../ui/button";
import { BreakdownChart, LatencyChart, PresenceChart, RateBars, ReliabilityChart, RiskCoverageChart, TAG_BREAKDOWN_KEYS } from "./charts";
import { evalApi } from "./api";
import { QuestionTable } from "./question-table";
import { StageTable } from "./stage-table";
import { ProgressBar, StatusBadge } from "./report-list";
import { count } from "@/lib/format/count";

const LIVE = new Set(["RUNNING", "QUEUED"]);

const BREAKDOWN_DESCRIPTIONS: Record<string, string> = {
  db: "The database each question is about (an execution match counts only on it)",
  hardness: "Spider's hardness class of the gold SQL, by the official rules",
  type: "TAT-QA's answer type, or Text2Cypher's question type",
};

function MetricCards({ metrics }: { metrics: SuiteMetrics }) {
  const flat: [string, number | null][] = [];
  const take = (prefix: string, g: MetricGroup) => {
    if (!g.n) return;
    for (const [k, v] of Object.entries(g.values)) flat.push([`${prefix}.${k}`, v]);
  };
  take("source", metrics.source);
  take("retrieval", metrics.retrieval);
  take("execution", metrics.execution);
  take("answer", metrics.answer);
  take("refrain", metrics.refrain);
  if (metrics.calibration) take("calibration", metrics.calibration);
  const byKey = new Map(flat);
  if (metrics.latency.total) byKey.set("latency.total.p50", metrics.latency.total.p50);
  const cards = HEADLINE_METRICS.filter((k) => byKey.has(k));
  return (
    <dl className="grid grid-cols-2 gap-3 sm:grid-cols-4" data-testid="metric-cards">
      {cards.map((k) => {
        const info = metricInfo(k);
        return (
          <div key={k} className="rounded-lg border border-slate-200 bg-white px-3 py-2">
            <dt className="text-xs text-slate-500">{info.label}</dt>
            <dd className="text-lg font-semibold tabular-nums">{formatMetric(byKey.get(k), info.format)}</dd>
          </div>
        );
      })}
    </dl>
  );
}

function MetricsTable({ metrics }: { metrics: SuiteMetrics }) {
  const rows: { group: string; label: string; value: string; n: number }[] = [];
  const add = (prefix: string, g: MetricGroup) => {
    if (!g.n) return;
    for (const [k, v] of Object.entries(g.values)) {
      const info = metricInfo(`${prefix}.${k}`);
      rows.push({ group: info.group, label: info.label, value: formatMetric(v, info.format), n: g.n });
    }
  };
  add("source", metrics.source);
  add("retrieval", metrics.retrieval);
  for (const st of metrics.retrievalStages ?? []) {
    for (const [k, v] of Object.entries(st.values)) {
      const info = metricInfo(`stage.${st.label}.${k}`);
      const change = st.delta[k];
      rows.push({
        group: info.group,
        label: info.label,
        value: `${formatMetric(v, "rate")}${change === null || change === undefined ? "" : ` (${formatDelta(change, "rate")})`}`,
        n: st.n,
      });
    }
  }
  add("evidence", metrics.evidence);
  add("execution", metrics.execution);
  for (const [label, g] of sortedEntries(metrics.presence, rankingRank)) add(`presence.${label}`, g);
  add("answer", metrics.answer);
  add("refrain", metrics.refrain);
  if (metrics.calibration) add("calibration", metrics.calibration);
  for (const [stage, l] of sortedEntries(metrics.latency, stageRank)) {
    rows.push({
      group: "Latency",
      label: `${stage} p50 / p95`,
      value: `${formatMetric(l.p50, "ms")} / ${formatMetric(l.p95, "ms")}`,
      n: l.n,
    });
  }
  if (metrics.usage) {
    rows.push({ group: "LLM usage", label: "tokens", value: formatMetric(metrics.usage.tokens, "count"), n: metrics.usage.runsWithLlm });
    rows.push({ group: "LLM usage", label: "cost", value: formatMetric(metrics.usage.costUsd, "usd"), n: metrics.usage.runsWithLlm });
  }
  return (
    <details className="rounded-lg border border-slate-200 bg-white">
      <summary className="cursor-pointer px-4 py-2 text-sm font-medium">All metrics ({rows.length})</summary>
      <table className="w-full text-sm" data-testid="metrics-table">
        <thead className="bg-slate-50 text-left text-xs text-slate-600">
          <tr>
            <th scope="col" className="px-4 py-1.5 font-medium">
              Group
            </th>
            <th scope="col" className="px-4 py-1.5 font-medium">
              Metric
            </th>
            <th scope="col" className="px-4 py-1.5 text-right font-medium">
              Value
            </th>
            <th scope="col" className="px-4 py-1.5 text-right font-medium">
              n
            </th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">
          {rows.map((r, i) => (
            <tr key={`${r.group}-${r.label}-${i}`}>
              <td className="px-4 py-1 text-slate-500">{r.group}</td>
              <td className="px-4 py-1">{r.label}</td>
              <td className="px-4 py-1 text-right tabular-nums">{r.value}</td>
              <td className="px-4 py-1 text-right tabular-nums text-slate-500">{r.n}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </details>
  );
}

/** One report: progress while it runs (polled), metrics and charts, and its questions. */
export function ReportView({ reportId, onDeleted }: { reportId: string; onDeleted: () => void }) {
  const queryClient = useQueryClient();
  const report = useQuery({
    queryKey: ["eval-report", reportId],
    queryFn: () => evalApi<ReportDetail>(`/reports/${reportId}`),
    refetchInterval: (q) => (q.state.data && LIVE.has(q.state.data.status) ? 1500 : false),
  });
  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: ["eval-report", reportId] });
    void queryClient.invalidateQueries({ queryKey: ["eval-reports"] });
  };
  const cancel = useMutation({ mutationFn: () => evalApi(`/reports/${reportId}/cancel`, { method: "POST" }), onSuccess: refresh });
  const resume = useMutation({ mutationFn: () => evalApi(`/reports/${reportId}/resume`, { method: "POST" }), onSuccess: refresh });
  const remove = useMutation({
    mutationFn: () => evalApi(`/reports/${reportId}`, { method: "DELETE" }),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ["eval-reports"] });
      onDeleted();
    },
  });

  if (report.error) return <Alert tone="error">{report.error.message}</Alert>;
  const r = report.data;
  if (!r)
    return (
      <div className="h-40 animate-pulse rounded-lg border border-slate-200 bg-white" aria-busy="true" aria-label="Loading the report" />
    );
  const live = LIVE.has(r.status);
  const questionsFile = (r.config as { questions?: { name: string; sha256: string } }).questions;
  const m = r.metrics && "source" in r.metrics ? r.metrics : null;
  const actionError = cancel.error ?? resume.error ?? remove.error;
  return (
    <article aria-label={`Report: ${r.suiteLabel}`} className="space-y-4" data-testid="report-view">
      <header className="space-y-2 rounded-lg border border-slate-200 bg-white p-4">
        <div className="flex flex-wrap items-center gap-2">
          <h2 className="text-lg font-semibold">{r.suiteLabel}</h2>
          {r.label && <span className="text-slate-600">· {r.label}</span>}
          <StatusBadge status={r.status} />
          <div className="ml-auto flex flex-wrap gap-2">
            {r.canManage && live && (
              <Button variant="secondary" disabled={cancel.isPending} onClick={() => cancel.mutate()}>
                {cancel.isPending ? "Cancelling…" : "Cancel"}
              </Button>
            )}
            {r.canManage && !live && r.status !== "DONE" && !questionsFile && (
              <Button variant="secondary" disabled={resume.isPending} onClick={() => resume.mutate()}>
                {resume.isPending ? "Resuming…" : "Resume"}
              </Button>
            )}
            <a
              href={`/api/eval/reports/${r.id}/export`}
              className="inline-flex items-center rounded-md border border-slate-300 bg-white px-3.5 py-2 text-sm font-medium text-slate-800 hover:bg-slate-50"
              download
            >
              Export JSON
            </a>
            {r.canManage && !live && (
              <Button
                variant="ghost"
                disabled={remove.isPending}
                onClick={() => {
                  if (window.confirm("Delete this report and its per-question results? The runs stay in the history.")) remove.mutate();
                }}
              >
                Delete
              </Button>
            )}
          </div>
        </div>
        <p className="text-xs text-slate-600">
          {r.done} of {count(r.total, "question")} · seed {r.seed}
          {r.limit ? ` · limit ${r.limit}` : ""} · {r.concurrency} in parallel · {count(r.kbCount, "knowledge base")}
          {r.createdBy ? ` · started by ${r.createdBy}` : ""} {r.origin === "cli" ? "from the command line" : ""} ·{" "}
          {Object.keys(r.configInput).length ? `settings ${JSON.stringify(r.configInput)}` : "default settings"}
          {(r.config as { llm?: string }).llm === "off" ? " · classical only" : ""}
          {m?.run ? ` · last session ${Math.round(m.run.wallMs / 1000)} s` : ""}
        </p>
        {questionsFile && (
          <p className="text-xs text-slate-600" data-testid="questions-file">
            Questions from the file <span className="font-medium">{questionsFile.name}</span> (sha256{" "}
            <code title={questionsFile.sha256}>{questionsFile.sha256.slice(0, 12)}…</code>)
            {!live && r.status !== "DONE" ? "; resume it by running the same command again on the command line." : "."}
          </p>
        )}
        {(live || r.status === "INTERRUPTED" || r.status === "CANCELLED") && (
          <ProgressBar done={r.done} total={r.total} label={`Progress of ${r.suiteLabel}`} />
        )}
        {r.status === "INTERRUPTED" && (
          <Alert tone="info">
            This run stopped without finishing (the server restarted or the process was killed). Resume it: the questions already done are
            kept.
          </Alert>
        )}
        {r.status === "FAILED" && r.error && (
          <Alert tone="error">The run stopped: {r.error}. Resume it once the cause is fixed; finished questions are kept.</Alert>
        )}
        {actionError && <Alert tone="error">{actionError.message}</Alert>}
      </header>

      {m ? (
        <>
          {r.status !== "DONE" && <p className="text-xs text-slate-500">Metrics over {count(m.n, "question")} finished so far.</p>}
          <MetricCards metrics={m} />
          <div className="grid gap-4 xl:grid-cols-2">
            <RateBars metrics={m} />
            <PresenceChart metrics={m} />
            <ReliabilityChart metrics={m} />
            <RiskCoverageChart metrics={m} />
            <BreakdownChart title="By source kind" description="The kind of the gold source (documents, SQL, RDF, graph)" by={m.byKind} />
            <BreakdownChart title="By suite" description="The suites the questions came from" by={m.bySuite} />
            <StageTable stages={m.retrievalStages} />
            {sortedEntries(m.breakdowns ?? {}, (t) => Object.keys(BREAKDOWN_TITLES).indexOf(t)).map(([tag, by]) => (
              <BreakdownChart
                key={tag}
                title={`By ${BREAKDOWN_TITLES[tag] ?? tag}`}
                description={BREAKDOWN_DESCRIPTIONS[tag] ?? `The questions' ${tag}`}
                by={by}
                rank={breakdownValueRank(tag)}
                metrics={TAG_BREAKDOWN_KEYS}
              />
            ))}
            <LatencyChart metrics={m} />
          </div>
          <MetricsTable metrics={m} />
        </>
      ) : (
        <div className="rounded-lg border border-dashed border-slate-300 bg-white p-4 text-sm text-slate-600">
          {live
            ? "Metrics appear as soon as the first question finishes; the questions below fill in as the run goes."
            : "This report has no metrics: it stopped before any question finished."}
        </div>
      )}
      <QuestionTable reportId={r.id} canOpenRuns={r.canOpenRuns} running={live} />
    </article>
  );
}
