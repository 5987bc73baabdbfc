"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { dismissReportAction, listReviewQueueAction, resolveWithExistingGuideAction } from "@/lib/actions/feedback";
import { unwrap } from "@/lib/actions/unwrap";
import type { ReviewItem } from "@/lib/feedback/queue";
import { Alert } from "../ui/alert";
import { Button } from "../ui/button";
import { DateTime } from "../ui/locale";

type Status = "OPEN" | "RESOLVED";

/**
 * Wrong-answer reports, oldest first: each opens as its run, and is resolved by turning the run into a
 * guide (or linking the guide it was already saved as), or dismissed.
 */
export function ReviewQueue({ initial }: { initial: { items: ReviewItem[]; open: number } }) {
  const [status, setStatus] = useState<Status>("OPEN");
  const { data, error, isFetching } = useQuery({
    queryKey: ["review-queue", status],
    queryFn: () => unwrap(listReviewQueueAction({ status })),
    initialData: status === "OPEN" ? initial : undefined,
  });
  const items = data?.items ?? [];
  const tab = (s: Status, label: string) => (
    <button
      type="button"
      aria-pressed={status === s}
      onClick={() => setStatus(s)}
      className={`rounded-md px-3 py-1.5 text-sm ${status === s ? "bg-white font-medium text-slate-900 shadow-sm ring-1 ring-slate-200" : "text-slate-600 hover:text-slate-900"}`}
    >
      {label}
    </button>
  );
  return (
    <section aria-label="Review queue" className="space-y-3">
      <div role="group" aria-label="Show reports" className="inline-flex gap-1 rounded-lg bg-slate-100 p-1">
        {tab("OPEN", `Open (${data?.open ?? initial.open})`)}
        {tab("RESOLVED", "Resolved")}
      </div>
      {error && <Alert tone="error">{error.message}</Alert>}
      <div aria-busy={isFetching}>
        {items.length === 0 && !isFetching ? (
          <div className="rounded-lg border border-dashed border-slate-300 bg-white p-6 text-sm text-slate-600">
            {status === "OPEN"
              ? "No open reports. When someone marks an answer as wrong, it appears here for review."
              : "Nothing resolved yet. Turn an open report into a guide, or dismiss it, and it moves here."}
          </div>
        ) : (
          <ul className="space-y-3" data-testid="review-queue">
            {items.map((item) => (
              <ReviewCard key={item.id} item={item} />
            ))}
          </ul>
        )}
      </div>
    </section>
  );
}

function ReviewCard({ item }: { item: ReviewItem }) {
  const queryClient = useQueryClient();
  const [confirmDismiss, setConfirmDismiss] = useState(false);
  const refresh = () => queryClient.invalidateQueries({ queryKey: ["review-queue"] });
  const dismiss = useMutation({ mutationFn: () => unwrap(dismissReportAction({ feedbackId: item.id })), onSuccess: refresh });
  const link = useMutation({
    mutationFn: (guideId: string) => unwrap(resolveWithExistingGuideAction({ feedbackId: item.id, guideId })),
    onSuccess: refresh,
  });
  const busy = dismiss.isPending || link.isPending;
  const headingId = `report-${item.id}`;
  return (
    <li aria-labelledby={headingId} className="rounded-lg border border-slate-200 bg-white p-4 text-sm" data-testid="review-item">
      <div className="flex flex-wrap items-baseline justify-between gap-x-4 gap-y-1">
        <h2 id={headingId} className="text-base font-semibold">
          {item.run.question}
        </h2>
        <span className="text-xs text-slate-500">
          Reported by {item.reporter.name} · <DateTime value={item.createdAt} />
        </span>
      </div>
      <dl className="mt-3 grid gap-x-4 gap-y-1.5 sm:grid-cols-[9rem_minmax(0,1fr)]">
        <dt className="text-slate-600">Run&apos;s answer</dt>
        <dd className="min-w-0 break-words">
          {item.run.refrained || !item.run.answer ? (
            <span className="italic text-slate-600">No answer (the run refrained)</span>
          ) : (
            item.run.answer
          )}
        </dd>
        <dt className="text-slate-600">Correct answer</dt>
        <dd className="min-w-0 break-words font-medium text-emerald-800">
          {item.correctAnswer ?? <span className="font-normal italic text-slate-600">Not given</span>}
        </dd>
        <dt className="text-slate-600">Comment</dt>
        <dd className="min-w-0 whitespace-pre-wrap break-words">{item.comment ?? <span className="italic text-slate-600">None</span>}</dd>
      </dl>
      {item.resolution ? (
        <p className="mt-3 rounded bg-slate-50 px-3 py-2 text-slate-700">
          {item.resolution.guide ? (
            <>
              Resolved with the guide{" "}
              <Link href={`/guides/${item.resolution.guide.id}`} className="font-medium text-brand-700 hover:underline">
                {item.resolution.guide.question}
              </Link>
            </>
          ) : (
            "Dismissed"
          )}
          {item.resolution.by ? ` by ${item.resolution.by}` : ""} on <DateTime value={item.resolution.at} />.
        </p>
      ) : (
        <div className="mt-4 flex flex-wrap items-center gap-2 border-t border-slate-100 pt-3">
          <Link
            href={`/ask?run=${item.run.id}`}
            className="inline-flex items-center rounded-md border border-slate-300 bg-white px-3.5 py-2 text-sm font-medium text-slate-800 hover:bg-slate-50"
          >
            Open run<span className="sr-only">: {item.run.question}</span>
          </Link>
          <Link
            href={`/guides/new?fromFeedback=${item.id}`}
            className="inline-flex items-center rounded-md bg-brand-600 px-3.5 py-2 text-sm font-medium text-white hover:bg-brand-700"
          >
            Turn into a guide<span className="sr-only">: {item.run.question}</span>
          </Link>
          {item.runGuide && (
            <Button variant="secondary" disabled={busy} onClick={() => link.mutate(item.runGuide!.id)}>
              {link.isPending ? "Resolving…" : "Resolve with its existing guide"}
            </Button>
          )}
          {confirmDismiss ? (
            <span className="inline-flex items-center gap-2" role="group" aria-label="Confirm dismissal">
              <span className="text-slate-600">Dismiss without a guide?</span>
              <Button variant="danger" disabled={busy} onClick={() => dismiss.mutate()} autoFocus>
                {dismiss.isPending ? "Dismissing…" : "Dismiss report"}
              </Button>
              <Button variant="ghost" onClick={() => setConfirmDismiss(false)}>
                Keep open
              </Button>
            </span>
          ) : (
            <Button variant="ghost" disabled={busy} onClick={() => setConfirmDismiss(true)}>
              Dismiss…
            </Button>
          )}
        </div>
      )}
      {item.runGuide && !item.resolution && (
        <p className="mt-2 text-xs text-slate-500">
          This run is already saved as the guide{" "}
          <Link href={`/guides/${item.runGuide.id}`} className="text-brand-700 hover:underline">
            {item.runGuide.question}
          </Link>
          .
        </p>
      )}
      {(dismiss.error || link.error) && (
        <div className="mt-2">
          <Alert tone="error">{(dismiss.error ?? link.error)!.message}</Alert>
        </div>
      )}
    </li>
  );
}
