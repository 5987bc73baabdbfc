"use client";

import Link from "next/link";
import type { Progress } from "./progress";
import { QuestionHeading } from "./run-result";
import { StageProgress } from "./stage-progress";

export interface LiveRun {
  question: string;
  progress: Progress;
  phase: "running" | "finished" | "cancelled" | "failed";
  startedAt: number;
  error: string | null;
}

/**
 * A run while it streams. The answer card's place is reserved (same minimum height as the finished card)
 * and the stage list has a row per stage from the start, so nothing jumps as events arrive.
 */
export function LiveRunPanel({ live }: { live: LiveRun }) {
  const done = Object.values(live.progress.stages).filter((s) => s.status === "done").length;
  return (
    <div className="grid gap-6 lg:grid-cols-[minmax(0,1fr)_18rem]" data-testid="live-run" data-phase={live.phase}>
      <div className="min-w-0 space-y-6">
        <QuestionHeading
          question={live.question}
          meta={
            <p>
              {live.phase === "running"
                ? "Asking now…"
                : live.phase === "cancelled"
                  ? "Cancelled"
                  : live.phase === "failed"
                    ? "Stopped"
                    : "Asked just now"}
            </p>
          }
        />
        <section
          aria-labelledby="live-answer-heading"
          className={`min-h-40 rounded-lg border bg-white p-5 ${live.phase === "failed" ? "border-rose-200" : live.phase === "cancelled" ? "border-slate-300" : "border-slate-200"}`}
          data-testid="answer-placeholder"
        >
          <h2 id="live-answer-heading" className="text-xs font-semibold uppercase tracking-wide text-slate-500">
            {live.phase === "cancelled" ? "Cancelled" : live.phase === "failed" ? "Could not answer" : "Answer"}
          </h2>
          {live.phase === "running" && (
            <div className="mt-3 space-y-3" aria-hidden>
              <div className="h-7 w-1/2 animate-pulse rounded bg-slate-100" />
              <div className="h-4 w-3/4 animate-pulse rounded bg-slate-100" />
              <p className="text-sm text-slate-500">Working through the stages ({done} of 9 done)…</p>
            </div>
          )}
          {live.phase === "finished" && <p className="mt-3 text-sm text-slate-500">Loading the full result…</p>}
          {live.phase === "cancelled" && (
            <div className="mt-2 space-y-1 text-sm text-slate-700" role="status" data-testid="cancelled-notice">
              <p className="text-lg font-semibold text-slate-900">You cancelled this run.</p>
              <p>
                Nothing was answered. Your question is back in the box above; edit it and ask again.
                {live.progress.runId && (
                  <>
                    {" "}
                    It is recorded in your{" "}
                    <Link href="/history" className="font-medium text-brand-700 hover:underline">
                      History
                    </Link>{" "}
                    as cancelled.
                  </>
                )}
              </p>
            </div>
          )}
          {live.phase === "failed" && (
            <div className="mt-2 text-sm text-rose-800" role="alert">
              <p className="font-medium">{live.error}</p>
              <p className="mt-1 text-slate-700">Your question is back in the box above. Try again, or choose other knowledge bases.</p>
            </div>
          )}
        </section>
      </div>
      <aside className="lg:sticky lg:top-4 lg:self-start" aria-label="Run stages">
        <StageProgress progress={live.progress} live={live.phase === "running"} startedAt={live.startedAt} />
      </aside>
    </div>
  );
}
