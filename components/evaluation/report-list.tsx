"use client";

import { formatMetric, metricInfo } from "@/lib/eval/metric-labels";
import type { ReportStatus, ReportSummary, SuiteOption } from "@/lib/eval/reports";
import { defaultSuiteKey } from "@/lib/eval/suite-availability";
import { count } from "@/lib/format/count";
import { DateTime } from "../ui/locale";

const STATUS: Record<ReportStatus, { label: string; className: string }> = {
  QUEUED: { label: "Queued", className: "bg-slate-100 text-slate-700" },
  RUNNING: { label: "Running", className: "bg-brand-50 text-brand-700" },
  DONE: { label: "Done", className: "bg-emerald-50 text-emerald-800" },
  FAILED: { label: "Failed", className: "bg-rose-50 text-rose-800" },
  CANCELLED: { label: "Cancelled", className: "bg-amber-50 text-amber-800" },
  INTERRUPTED: { label: "Interrupted", className: "bg-amber-50 text-amber-800" },
};

export function StatusBadge({ status }: { status: ReportStatus }) {
  const s = STATUS[status];
  return <span className={`inline-block rounded px-1.5 py-0.5 text-xs font-medium ${s.className}`}>{s.label}</span>;
}

export function ProgressBar({ done, total, label, unit = "question" }: { done: number; total: number; label: string; unit?: string }) {
  const pct = total ? Math.round((done / total) * 100) : 0;
  return (
    <div
      className="h-1.5 w-full overflow-hidden rounded bg-slate-100"
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={total}
      aria-valuenow={done}
      aria-valuetext={`${done.toLocaleString("en")} of ${count(total, unit)}`}
    >
      <div className="h-full bg-brand-500 transition-[width]" style={{ width: `${pct}%` }} />
    </div>
  );
}

/** The headline metric a row shows: the first the report has, in HEADLINE order. */
function headline(r: ReportSummary): string {
  const entries = Object.entries(r.headline).filter(([k, v]) => v !== null && !k.startsWith("latency"));
  return entries
    .slice(0, 2)
    .map(([k, v]) => `${metricInfo(k).label.replace(/ \(.*\)$/, "")} ${formatMetric(v, metricInfo(k).format)}`)
    .join(" · ");
}

/** What the empty list suggests: the suite the run form starts with, so the two always agree. */
function firstRunHint(suites: SuiteOption[]): string {
  const first = suites.find((s) => s.key === defaultSuiteKey(suites) && !s.unavailable);
  if (!first) return "Pick a suite and start one.";
  const quick = first.key === "demo" ? ": it runs in under a minute" : "";
  return `Start with the ${first.label} suite (${count(first.questions, "question")})${quick}.`;
}

export function ReportList({
  reports,
  selectedId,
  onSelect,
  suites,
}: {
  reports: ReportSummary[];
  selectedId: string | null;
  onSelect: (id: string) => void;
  suites: SuiteOption[];
}) {
  if (!reports.length) {
    return (
      <div className="rounded-lg border border-dashed border-slate-300 bg-white p-6 text-sm text-slate-600" data-testid="no-reports">
        No evaluation runs yet. {firstRunHint(suites)} Runs from <code className="rounded bg-slate-100 px-1">npm run eval</code> on this
        workspace appear here too.
      </div>
    );
  }
  return (
    <ul
      className="divide-y divide-slate-100 overflow-hidden rounded-lg border border-slate-200 bg-white"
      aria-label="Evaluation reports"
      data-testid="report-list"
    >
      {reports.map((r) => (
        <li key={r.id}>
          <button
            type="button"
            onClick={() => onSelect(r.id)}
            aria-current={r.id === selectedId ? "true" : undefined}
            className={`block w-full px-4 py-3 text-left text-sm hover:bg-slate-50 ${r.id === selectedId ? "bg-brand-50" : ""}`}
          >
            <span className="flex flex-wrap items-center gap-2">
              <span className="font-medium">{r.suiteLabel}</span>
              {r.label && <span className="text-slate-600">· {r.label}</span>}
              <StatusBadge status={r.status} />
              <span className="ml-auto text-xs text-slate-500">
                <DateTime value={r.createdAt} />
              </span>
            </span>
            <span className="mt-1 block text-xs text-slate-600">
              {r.done} / {count(r.total, "question")} · seed {r.seed}
              {r.origin === "cli" ? " · command line" : ""}
              {r.createdBy ? ` · ${r.createdBy}` : ""}
              {headline(r) ? ` · ${headline(r)}` : ""}
            </span>
            {(r.status === "RUNNING" || r.status === "QUEUED") && (
              <span className="mt-1.5 block">
                <ProgressBar done={r.done} total={r.total} label={`Progress of ${r.suiteLabel}`} />
              </span>
            )}
          </button>
        </li>
      ))}
    </ul>
  );
}
