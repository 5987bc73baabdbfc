"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useState } from "react";
import { listHistoryAction } from "@/lib/actions/history";
import { unwrap } from "@/lib/actions/unwrap";
import type { HistoryViewName } from "@/lib/runs/runs.validation";
import type { HistoryConversation, HistoryRun, Page } from "@/lib/runs/types";
import { StatusPill } from "../ask/status-pill";
import { turnAnswerText } from "../ask/figures";
import { Alert } from "../ui/alert";
import { Button } from "../ui/button";
import { Field, TextInput } from "../ui/field";
import { count } from "@/lib/format/count";
import { DateTime, useLocale } from "../ui/locale";

export type HistoryData = { view: "questions"; page: Page<HistoryRun> } | { view: "conversations"; page: Page<HistoryConversation> };

function useDebounced<T>(value: T, ms: number): T {
  const [v, setV] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setV(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return v;
}

/** Past questions and conversations, searched on the server, a page at a time; each reopens in full. */
export function HistoryBrowser({ initial, initialQ, initialPage }: { initial: HistoryData; initialQ: string; initialPage: number }) {
  const locale = useLocale();
  const [view, setView] = useState<HistoryViewName>(initial.view);
  const [q, setQ] = useState(initialQ);
  const [page, setPage] = useState(initialPage);
  const search = useDebounced(q.trim(), 250);
  const isInitial = view === initial.view && search === initialQ && page === initialPage;
  const { data, error, isFetching } = useQuery({
    queryKey: ["history", view, search, page],
    queryFn: () => unwrap(listHistoryAction({ view, q: search, page })),
    initialData: isInitial ? initial : undefined,
    placeholderData: keepPreviousData,
  });

  useEffect(() => {
    const params = new URLSearchParams();
    if (view !== "questions") params.set("view", view);
    if (search) params.set("q", search);
    if (page > 1) params.set("page", String(page));
    const qs = params.toString();
    window.history.replaceState(null, "", qs ? `/history?${qs}` : "/history");
  }, [view, search, page]);

  const total = data?.page.total ?? 0;
  const pages = data?.page.pages ?? 1;
  return (
    <div className="space-y-4">
      <div className="flex flex-wrap items-end gap-4">
        <div className="min-w-64 flex-1">
          <Field id="history-q" label="Search your questions">
            <TextInput
              id="history-q"
              type="search"
              value={q}
              placeholder="Words from the question, e.g. orders returned"
              onChange={(e) => {
                setQ(e.target.value);
                setPage(1);
              }}
            />
          </Field>
        </div>
        <div role="group" aria-label="Show" className="flex rounded-md border border-slate-300 bg-white p-0.5">
          {(["questions", "conversations"] as const).map((v) => (
            <button
              key={v}
              type="button"
              aria-pressed={view === v}
              onClick={() => {
                setView(v);
                setPage(1);
              }}
              className={`rounded px-3 py-1.5 text-sm font-medium ${view === v ? "bg-brand-600 text-white" : "text-slate-700 hover:bg-slate-100"}`}
            >
              {v === "questions" ? "Questions" : "Conversations"}
            </button>
          ))}
        </div>
      </div>
      {error && <Alert tone="error">{error.message}</Alert>}
      <p className="h-4 text-xs text-slate-500" aria-live="polite" data-testid="history-count">
        {isFetching
          ? "Searching…"
          : `${count(total, view === "questions" ? "question" : "conversation")}${search ? ` matching “${search}”` : ""}`}
      </p>
      {data && data.view === view && data.page.rows.length === 0 && !isFetching ? (
        <div className="rounded-lg border border-dashed border-slate-300 bg-white p-6 text-sm text-slate-700" data-testid="history-empty">
          {search ? (
            <>
              Nothing matches “{search}”. Try fewer or different words, or{" "}
              <button type="button" className="font-medium text-brand-700 hover:underline" onClick={() => setQ("")}>
                clear the search
              </button>
              .
            </>
          ) : (
            <>
              You have not asked anything yet.{" "}
              <Link href="/ask" className="font-medium text-brand-700 hover:underline">
                Ask your first question
              </Link>{" "}
              and it will be kept here with its answer and evidence.
            </>
          )}
        </div>
      ) : data?.view === "questions" ? (
        <ul
          className={`divide-y divide-slate-100 overflow-hidden rounded-lg border border-slate-200 bg-white ${isFetching ? "opacity-70" : ""}`}
          data-testid="history-list"
        >
          {data.page.rows.map((r) => (
            <li key={r.id} data-testid="history-row">
              <Link
                href={`/ask?run=${encodeURIComponent(r.id)}`}
                prefetch={false}
                className="flex items-start gap-4 px-4 py-3 hover:bg-slate-50"
              >
                <span className="min-w-0 flex-1">
                  <span className="block truncate font-medium text-slate-900">{r.question}</span>
                  <span className="block truncate text-sm text-slate-600">
                    {r.outcome === "uncertain" && r.answer
                      ? `Closest answer, not certain: ${turnAnswerText(r, locale)}`
                      : r.outcome === "answered" && r.answer
                        ? turnAnswerText(r, locale)
                        : (r.refrainReason ?? "No answer")}
                  </span>
                </span>
                <span className="flex shrink-0 flex-col items-end gap-1">
                  <span className="flex items-center gap-1.5">
                    {r.feedback && (
                      <span
                        className={`rounded px-1.5 py-0.5 text-xs ${r.feedback === "WRONG" ? "bg-rose-50 text-rose-800" : "bg-emerald-50 text-emerald-800"}`}
                      >
                        {r.feedback === "WRONG" ? "Reported wrong" : "Marked helpful"}
                      </span>
                    )}
                    <StatusPill status={r.status} outcome={r.outcome} />
                  </span>
                  <span className="text-xs text-slate-500">
                    <DateTime value={r.createdAt} />
                  </span>
                </span>
              </Link>
            </li>
          ))}
        </ul>
      ) : data?.view === "conversations" ? (
        <ul
          className={`divide-y divide-slate-100 overflow-hidden rounded-lg border border-slate-200 bg-white ${isFetching ? "opacity-70" : ""}`}
          data-testid="history-list"
        >
          {data.page.rows.map((c) => (
            <li key={c.id} data-testid="history-row">
              <Link
                href={`/ask?conversation=${encodeURIComponent(c.id)}`}
                prefetch={false}
                className="flex items-start gap-4 px-4 py-3 hover:bg-slate-50"
              >
                <span className="min-w-0 flex-1">
                  <span className="block truncate font-medium text-slate-900">{c.title}</span>
                  {c.last && (
                    <span className="block truncate text-sm text-slate-600">
                      Latest: {c.last.question} →{" "}
                      {c.last.outcome === "answered" || c.last.outcome === "uncertain"
                        ? `${c.last.outcome === "uncertain" ? "not certain: " : ""}${turnAnswerText(c.last, locale)}`
                        : "no answer"}
                    </span>
                  )}
                </span>
                <span className="flex shrink-0 flex-col items-end gap-1 text-xs text-slate-500">
                  <span className="rounded bg-slate-100 px-1.5 py-0.5 text-slate-700">{count(c.turns, "question")}</span>
                  <span>
                    <DateTime value={c.updatedAt} />
                  </span>
                </span>
              </Link>
            </li>
          ))}
        </ul>
      ) : null}
      {pages > 1 && (
        <nav aria-label="Pages" className="flex items-center justify-between text-sm">
          <Button variant="secondary" disabled={page <= 1 || isFetching} onClick={() => setPage((p) => Math.max(1, p - 1))}>
            Previous
          </Button>
          <span className="text-slate-600" data-testid="history-page">
            Page {page} of {pages}
          </span>
          <Button variant="secondary" disabled={page >= pages || isFetching} onClick={() => setPage((p) => p + 1)}>
            Next
          </Button>
        </nav>
      )}
    </div>
  );
}
