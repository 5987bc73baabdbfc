"use client";

import { useEffect, useState } from "react";
import { clipAtWord } from "@/lib/format/clip";
import { useLocale } from "../ui/locale";
import { readableAnswerText } from "./figures";
import { type Progress, STAGES } from "./progress";

export function formatMs(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}

function Elapsed({ since }: { since: number }) {
  const [now, setNow] = useState(since);
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 100);
    return () => clearInterval(t);
  }, []);
  return <span className="tabular-nums">{formatMs(Math.max(0, now - since))}</span>;
}

const ICON = {
  pending: <span aria-hidden className="h-3 w-3 rounded-full border-2 border-slate-300" />,
  running: <span aria-hidden className="h-3 w-3 animate-spin rounded-full border-2 border-brand-500 border-t-transparent" />,
  done: (
    <span aria-hidden className="flex h-3.5 w-3.5 items-center justify-center rounded-full bg-emerald-500 text-[9px] font-bold text-white">
      ✓
    </span>
  ),
  error: (
    <span aria-hidden className="flex h-3.5 w-3.5 items-center justify-center rounded-full bg-rose-600 text-[9px] font-bold text-white">
      !
    </span>
  ),
};
const STATUS_TEXT = { pending: "waiting", running: "running", done: "done", error: "failed" };
/** About two lines of the side panel's small text. */
const SUMMARY_CHARS = 64;

/**
 * The pipeline's stages as they start and finish. Every stage has its row from the start, each row has a
 * fixed height and summaries are cut to two lines at a word boundary (the whole summary on hover and in
 * the trace), so nothing moves while events stream in.
 */
export function StageProgress({
  progress,
  live,
  startedAt,
  maxRounds = 3,
}: {
  progress: Progress;
  live: boolean;
  startedAt?: number;
  maxRounds?: number;
}) {
  const running = live && progress.totalMs === null;
  const locale = useLocale();
  return (
    <section aria-labelledby="progress-heading" className="rounded-lg border border-slate-200 bg-white" data-testid="stage-progress">
      <header className="flex h-11 items-center justify-between border-b border-slate-100 px-4">
        <h2 id="progress-heading" className="text-sm font-semibold">
          {running ? "Working…" : "Stages"}
        </h2>
        <p className="text-xs text-slate-500" data-testid="progress-total">
          {progress.totalMs !== null ? `Total ${formatMs(progress.totalMs)}` : running && startedAt ? <Elapsed since={startedAt} /> : ""}
        </p>
      </header>
      <p className="flex h-7 items-center border-b border-slate-100 px-4 text-xs text-slate-600" data-testid="progress-round">
        {/* The run's notes are in the trace; those that matter to the reader are listed under the answer. */}
        {progress.round > 1 ? `Critic round ${progress.round} of up to ${maxRounds}` : "Round 1"}
      </p>
      <ol className="divide-y divide-slate-100" aria-live={live ? "polite" : undefined} aria-relevant="text">
        {STAGES.map((s) => {
          const st = progress.stages[s.id];
          return (
            <li key={s.id} className="h-16 px-4 py-1.5" data-testid={`stage-${s.id}`} data-status={st.status}>
              <div className="flex items-center gap-2 text-sm">
                <span className="flex w-4 justify-center">{ICON[st.status]}</span>
                <span className={`flex-1 truncate ${st.status === "pending" ? "text-slate-400" : "text-slate-900"}`}>{s.label}</span>
                {st.strategy && st.strategy !== "classical" && (
                  // "llm", or "classical (fallback: …)" when the LLM strategy failed and the classical one ran.
                  <span
                    className={`rounded px-1 text-[10px] font-medium ${st.strategy === "llm" ? "bg-violet-50 text-violet-700" : "bg-amber-50 text-amber-800"}`}
                    title={st.strategy}
                    data-testid="stage-strategy"
                  >
                    {st.strategy === "llm" ? "LLM" : "fallback"}
                  </span>
                )}
                <span className="sr-only">{STATUS_TEXT[st.status]}</span>
                <span className="text-xs tabular-nums text-slate-500" data-testid="stage-duration">
                  {st.runs > 0 ? formatMs(st.ms) : st.status === "running" ? "…" : ""}
                  {st.runs > 1 ? ` ×${st.runs}` : ""}
                </span>
              </div>
              {/* A summary quotes the stored answer ("Club: 246.74625; …"): its long decimals are rounded for the reader as in History. */}
              <p
                className="line-clamp-2 pl-6 text-xs text-slate-500"
                title={st.summary ? readableAnswerText(st.summary, locale) : undefined}
                data-testid="stage-summary"
              >
                {st.summary
                  ? clipAtWord(readableAnswerText(st.summary, locale), SUMMARY_CHARS)
                  : st.strategy
                    ? `${st.strategy} strategy`
                    : " "}
              </p>
            </li>
          );
        })}
      </ol>
    </section>
  );
}
