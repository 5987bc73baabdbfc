"use client";

import { useQuery } from "@tanstack/react-query";
import { useRouter, useSearchParams } from "next/navigation";
import { type KeyboardEvent, useRef, useState } from "react";
import type { ReportSummary, SuiteOption } from "@/lib/eval/reports";
import { Alert } from "../ui/alert";
import { evalApi } from "./api";
import { SuiteOverviewChart } from "./charts";
import { CompareView } from "./compare-view";
import { ReportList } from "./report-list";
import { ReportView } from "./report-view";
import { RunForm } from "./run-form";
import { SuiteAuthor } from "./suite-author";

const TABS = [
  ["reports", "Runs and reports"],
  ["compare", "Compare"],
  ["author", "Author a suite"],
] as const;
type Tab = (typeof TABS)[number][0];

/** The latest finished report of each suite (for the per-suite overview). */
function latestPerSuite(reports: ReportSummary[]) {
  const seen = new Map<string, ReportSummary>();
  for (const r of reports) if (r.status === "DONE" && !seen.has(r.suite)) seen.set(r.suite, r);
  return [...seen.values()].map((r) => ({ suite: r.suite, headline: r.headline }));
}

export function EvaluationDashboard({
  initialReports,
  suites,
  maxConcurrency,
  canLoadCatalog,
}: {
  initialReports: ReportSummary[];
  suites: SuiteOption[];
  maxConcurrency: number;
  canLoadCatalog: boolean;
}) {
  const router = useRouter();
  const params = useSearchParams();
  const tab = (TABS.find(([t]) => t === params.get("tab"))?.[0] ?? "reports") as Tab;
  const [selected, setSelected] = useState<string | null>(params.get("report") ?? initialReports[0]?.id ?? null);
  const tabRefs = useRef<(HTMLButtonElement | null)[]>([]);
  const reports = useQuery({
    queryKey: ["eval-reports"],
    queryFn: () => evalApi<ReportSummary[]>("/reports"),
    initialData: initialReports,
    refetchInterval: (q) => (q.state.data?.some((r) => r.status === "RUNNING" || r.status === "QUEUED") ? 4000 : false),
  });
  const suiteOptions = useQuery({ queryKey: ["eval-suites"], queryFn: () => evalApi<SuiteOption[]>("/suites"), initialData: suites });
  const list = reports.data ?? [];

  const go = (next: Tab, report?: string | null) => {
    const q = new URLSearchParams();
    if (next !== "reports") q.set("tab", next);
    const id = report === undefined ? selected : report;
    if (next === "reports" && id) q.set("report", id);
    router.replace(`/evaluation${q.size ? `?${q}` : ""}`, { scroll: false });
  };
  const select = (id: string | null) => {
    setSelected(id);
    go("reports", id);
  };
  // Arrow keys move between tabs (WAI-ARIA tabs pattern).
  const onTabKey = (e: KeyboardEvent, i: number) => {
    if (e.key !== "ArrowRight" && e.key !== "ArrowLeft") return;
    const j = (i + (e.key === "ArrowRight" ? 1 : TABS.length - 1)) % TABS.length;
    tabRefs.current[j]?.focus();
    go(TABS[j][0]);
  };

  return (
    <div className="space-y-5">
      <div role="tablist" aria-label="Evaluation" className="flex gap-1 border-b border-slate-200">
        {TABS.map(([id, label], i) => (
          <button
            key={id}
            ref={(el) => {
              tabRefs.current[i] = el;
            }}
            role="tab"
            id={`tab-${id}`}
            type="button"
            aria-selected={tab === id}
            aria-controls={`panel-${id}`}
            tabIndex={tab === id ? 0 : -1}
            onKeyDown={(e) => onTabKey(e, i)}
            onClick={() => go(id)}
            className={`-mb-px border-b-2 px-3 py-2 text-sm font-medium ${tab === id ? "border-brand-600 text-brand-700" : "border-transparent text-slate-600 hover:text-slate-900"}`}
          >
            {label}
          </button>
        ))}
      </div>

      {reports.error && <Alert tone="error">{reports.error.message}</Alert>}

      {tab === "reports" && (
        <div role="tabpanel" id="panel-reports" aria-labelledby="tab-reports" className="grid gap-6 xl:grid-cols-[20rem_minmax(0,1fr)]">
          <div className="min-w-0 space-y-4">
            <RunForm
              suites={suiteOptions.data ?? suites}
              maxConcurrency={maxConcurrency}
              canLoadCatalog={canLoadCatalog}
              onStarted={(id) => select(id)}
            />
            <ReportList reports={list} selectedId={selected} onSelect={select} suites={suiteOptions.data ?? suites} />
          </div>
          <div className="min-w-0 space-y-4">
            <SuiteOverviewChart rows={latestPerSuite(list)} />
            {selected ? (
              <ReportView key={selected} reportId={selected} onDeleted={() => select(list.find((r) => r.id !== selected)?.id ?? null)} />
            ) : (
              <div className="rounded-lg border border-dashed border-slate-300 bg-white p-6 text-sm text-slate-600">
                {list.length
                  ? "Choose a report to see its metrics and questions."
                  : "Start a run: its progress, metrics and questions appear here."}
              </div>
            )}
          </div>
        </div>
      )}
      {tab === "compare" && (
        <div role="tabpanel" id="panel-compare" aria-labelledby="tab-compare">
          <CompareView reports={list} />
        </div>
      )}
      {tab === "author" && (
        <div role="tabpanel" id="panel-author" aria-labelledby="tab-author">
          <SuiteAuthor suites={suiteOptions.data ?? suites} />
        </div>
      )}
    </div>
  );
}
