"use client";

import { formatDelta, formatMetric, metricInfo, rankingLabel } from "@/lib/eval/metric-labels";
import type { StageMetrics } from "@/lib/eval/types";
import { count } from "@/lib/format/count";

const KEYS = ["ndcg@10", "recall@100", "mrr@10"];

function deltaTone(delta: number | null): string {
  if (delta === null || Math.abs(delta) < 0.0005) return "text-slate-500";
  return delta > 0 ? "text-emerald-700" : "text-rose-700";
}

/**
 * Document retrieval after each ranking stage (first-stage retrieval, pool, each re-rank round, the
 * answer's evidence) with the change from the stage before: a stage that loses relevant documents
 * shows in red.
 */
export function StageTable({ stages }: { stages: StageMetrics[] | undefined }) {
  if (!stages?.length) return null;
  return (
    <figure className="min-w-0 rounded-lg border border-slate-200 bg-white p-4 xl:col-span-2" data-testid="stage-table">
      <figcaption className="mb-2">
        <span className="block text-sm font-semibold">Document retrieval by ranking stage</span>
        <span className="block text-xs text-slate-500">
          Over the same {count(stages[0].n, "question")}; each stage keeps what earlier stages found below its own ranking. The change is
          against the stage before.
        </span>
      </figcaption>
      <table className="w-full text-sm">
        <thead className="bg-slate-50 text-left text-xs text-slate-600">
          <tr>
            <th scope="col" className="px-3 py-1.5 font-medium">
              Stage
            </th>
            {KEYS.map((k) => (
              <th key={k} scope="col" colSpan={2} className="px-3 py-1.5 text-right font-medium">
                {metricInfo(`retrieval.${k}`).label} <span className="font-normal text-slate-500">(change)</span>
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">
          {stages.map((st) => (
            <tr key={st.label}>
              <th scope="row" className="px-3 py-1 text-left font-normal">
                {rankingLabel(st.label)}
              </th>
              {KEYS.map((k) => (
                <StageCells key={k} value={st.values[k]} delta={st.delta[k]} />
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
}

function StageCells({ value, delta }: { value: number | null | undefined; delta: number | null | undefined }) {
  return (
    <>
      <td className="py-1 pl-3 text-right tabular-nums">{formatMetric(value, "rate")}</td>
      <td className={`py-1 pl-2 pr-3 text-right text-xs tabular-nums ${deltaTone(delta ?? null)}`}>
        {delta === null || delta === undefined ? "" : formatDelta(Math.abs(delta) < 0.0005 ? 0 : delta, "rate")}
      </td>
    </>
  );
}
