"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import type { Comparison, MetricDelta, QuestionChange } from "@/lib/eval/compare";
import { formatDelta, formatMetric } from "@/lib/eval/metric-labels";
import type { ReportSummary } from "@/lib/eval/reports";
import { Alert } from "../ui/alert";
import { Field, SelectInput } from "../ui/field";
import { evalApi } from "./api";
import { count } from "@/lib/format/count";
import { formatDateTime } from "@/lib/format/date";
import { useLocale, useTimeZone } from "../ui/locale";

function reportOption(r: ReportSummary, locale: string, timeZone: string) {
  return `${r.suiteLabel}${r.label ? ` · ${r.label}` : ""} · ${r.done} q · seed ${r.seed} · ${formatDateTime(r.createdAt, locale, timeZone)}`;
}

function deltaTone(m: MetricDelta): string {
  if (m.delta === null || Math.abs(m.delta) < 1e-9) return "text-slate-600";
  const better = m.lowerIsBetter ? m.delta < 0 : m.delta > 0;
  return better ? "text-emerald-700" : "text-rose-700";
}

function ChangeList({
  title,
  items,
  canOpenA,
  canOpenB,
}: {
  title: string;
  items: QuestionChange[];
  canOpenA: boolean;
  canOpenB: boolean;
}) {
  if (!items.length) return null;
  return (
    <section aria-label={title} className="space-y-2">
      <h3 className="text-sm font-semibold">
        {title} ({items.length})
      </h3>
      <ul className="divide-y divide-slate-100 rounded-lg border border-slate-200 bg-white text-sm">
        {items.slice(0, 100).map((c) => (
          <li key={c.id} className="px-3 py-2">
            <p>{c.question}</p>
            <p className="mt-0.5 text-xs text-slate-600">
              A: {c.a.answer ?? "–"}
              {canOpenA && c.a.runId && (
                <>
                  {" "}
                  (
                  <Link className="text-brand-700 underline" href={`/ask?run=${encodeURIComponent(c.a.runId)}`}>
                    run
                  </Link>
                  )
                </>
              )}{" "}
              → B: {c.b.answer ?? "–"}
              {canOpenB && c.b.runId && (
                <>
                  {" "}
                  (
                  <Link className="text-brand-700 underline" href={`/ask?run=${encodeURIComponent(c.b.runId)}`}>
                    run
                  </Link>
                  )
                </>
              )}
            </p>
          </li>
        ))}
      </ul>
      {items.length > 100 && (
        <p className="text-xs text-slate-500">Showing 100 of {items.length}; export both reports and run npm run eval:compare for all.</p>
      )}
    </section>
  );
}

/** Two reports side by side: per-metric deltas (B − A) and the questions that changed. */
/** Runs open for their author and admins: a report's `canManage`. */
export function CompareView({ reports }: { reports: ReportSummary[] }) {
  const locale = useLocale();
  const timeZone = useTimeZone();
  const comparable = reports.filter((r) => r.done > 0 && r.status !== "RUNNING" && r.status !== "QUEUED");
  const [a, setA] = useState(comparable[1]?.id ?? "");
  const [b, setB] = useState(comparable[0]?.id ?? "");
  const query = useQuery({
    queryKey: ["eval-compare", a, b],
    queryFn: () => evalApi<Comparison>(`/compare?${new URLSearchParams({ a, b })}`),
    enabled: !!a && !!b && a !== b,
  });
  if (comparable.length < 2) {
    return (
      <div className="rounded-lg border border-dashed border-slate-300 bg-white p-6 text-sm text-slate-600">
        Comparing needs two finished reports. Run a suite twice (for example before and after a settings change, with the same seed) and
        come back.
      </div>
    );
  }
  const c = query.data;
  const canOpenA = !!comparable.find((r) => r.id === a)?.canManage;
  const canOpenB = !!comparable.find((r) => r.id === b)?.canManage;
  return (
    <div className="space-y-4">
      <div className="grid gap-3 rounded-lg border border-slate-200 bg-white p-4 md:grid-cols-2">
        <Field id="cmp-a" label="Report A (before)">
          <SelectInput id="cmp-a" value={a} onChange={(e) => setA(e.target.value)}>
            {comparable.map((r) => (
              <option key={r.id} value={r.id}>
                {reportOption(r, locale, timeZone)}
              </option>
            ))}
          </SelectInput>
        </Field>
        <Field id="cmp-b" label="Report B (after)">
          <SelectInput id="cmp-b" value={b} onChange={(e) => setB(e.target.value)}>
            {comparable.map((r) => (
              <option key={r.id} value={r.id}>
                {reportOption(r, locale, timeZone)}
              </option>
            ))}
          </SelectInput>
        </Field>
      </div>
      {a === b && <Alert tone="info">Choose two different reports.</Alert>}
      {query.error && <Alert tone="error">{query.error.message}</Alert>}
      {query.isFetching && !c && (
        <div className="h-40 animate-pulse rounded-lg border border-slate-200 bg-white" aria-busy="true" aria-label="Comparing" />
      )}
      {c && a !== b && (
        <div className="space-y-4" data-testid="comparison">
          {c.warnings.map((w) => (
            <Alert key={w} tone="info">
              {w}
            </Alert>
          ))}
          <p className="text-sm">
            {count(c.counts.common, "question")} in both: <strong className="text-emerald-700">{c.counts.fixed} fixed</strong>,{" "}
            <strong className="text-rose-700">{c.counts.broken} broken</strong>, {c.counts.changed} answered differently.
          </p>
          <div className="overflow-x-auto rounded-lg border border-slate-200 bg-white">
            <table className="w-full text-sm" data-testid="delta-table">
              <thead className="bg-slate-50 text-left text-xs text-slate-600">
                <tr>
                  <th scope="col" className="px-3 py-2 font-medium">
                    Group
                  </th>
                  <th scope="col" className="px-3 py-2 font-medium">
                    Metric
                  </th>
                  <th scope="col" className="px-3 py-2 text-right font-medium">
                    A
                  </th>
                  <th scope="col" className="px-3 py-2 text-right font-medium">
                    B
                  </th>
                  <th scope="col" className="px-3 py-2 text-right font-medium">
                    Δ (B − A)
                  </th>
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-100">
                {c.metrics
                  .filter((m) => m.a !== null || m.b !== null)
                  .map((m) => (
                    <tr key={m.key}>
                      <td className="px-3 py-1 text-slate-500">{m.group}</td>
                      <td className="px-3 py-1">{m.label}</td>
                      <td className="px-3 py-1 text-right tabular-nums">{formatMetric(m.a, m.format)}</td>
                      <td className="px-3 py-1 text-right tabular-nums">{formatMetric(m.b, m.format)}</td>
                      <td className={`px-3 py-1 text-right font-medium tabular-nums ${deltaTone(m)}`}>{formatDelta(m.delta, m.format)}</td>
                    </tr>
                  ))}
              </tbody>
            </table>
          </div>
          <ChangeList
            title="Broken (right in A, wrong in B)"
            items={c.changes.filter((x) => x.change === "broken")}
            canOpenA={canOpenA}
            canOpenB={canOpenB}
          />
          <ChangeList
            title="Fixed (wrong in A, right in B)"
            items={c.changes.filter((x) => x.change === "fixed")}
            canOpenA={canOpenA}
            canOpenB={canOpenB}
          />
          <ChangeList
            title="Answered differently"
            items={c.changes.filter((x) => x.change === "changed")}
            canOpenA={canOpenA}
            canOpenB={canOpenB}
          />
        </div>
      )}
    </div>
  );
}
