"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useDeferredValue, useState } from "react";
import { listGuidesAction } from "@/lib/actions/guides";
import { unwrap } from "@/lib/actions/unwrap";
import type { GuideListRow } from "@/lib/guides/types";
import { Alert } from "../ui/alert";
import { Field, SelectInput, TextInput } from "../ui/field";
import { ActionKindBadge } from "./action-kind-badge";
import { count } from "@/lib/format/count";
import { DateTime } from "../ui/locale";

/** The guide library: search by words (ranked like the pipeline ranks guides) and filter by knowledge base. */
export function GuideList({ initial, kbs }: { initial: GuideListRow[]; kbs: { id: string; name: string }[] }) {
  const [q, setQ] = useState("");
  const [kbId, setKbId] = useState("");
  const filters = { q: useDeferredValue(q.trim()) || undefined, kbId: kbId || undefined };
  const isInitial = !filters.q && !filters.kbId;
  const {
    data: rows = [],
    isFetching,
    error,
  } = useQuery({
    queryKey: ["guides", filters],
    queryFn: () => unwrap(listGuidesAction(filters)),
    initialData: isInitial ? initial : undefined,
    placeholderData: (prev) => prev,
  });
  return (
    <section aria-label="Extraction guides" className="space-y-3">
      <div className="flex flex-wrap items-end gap-3">
        <div className="min-w-64 flex-1">
          <Field id="guide-q" label="Search">
            <TextInput
              id="guide-q"
              type="search"
              placeholder="Question, answer or notes"
              value={q}
              onChange={(e) => setQ(e.target.value)}
            />
          </Field>
        </div>
        <div className="w-64">
          <Field id="guide-kb" label="Knowledge base">
            <SelectInput id="guide-kb" value={kbId} onChange={(e) => setKbId(e.target.value)}>
              <option value="">All</option>
              {kbs.map((k) => (
                <option key={k.id} value={k.id}>
                  {k.name}
                </option>
              ))}
            </SelectInput>
          </Field>
        </div>
      </div>
      {error && <Alert tone="error">{error.message}</Alert>}
      <p className="text-xs text-slate-500" aria-live="polite">
        {isFetching ? "Searching…" : `${count(rows.length, "guide")}${filters.q ? `, best match first` : ""}`}
      </p>
      {rows.length === 0 && !isFetching ? (
        <div className="rounded-lg border border-dashed border-slate-300 bg-white p-6 text-sm text-slate-600">
          {isInitial ? (
            <>
              No extraction guides yet.{" "}
              <Link href="/guides/new" className="font-medium text-brand-700 hover:underline">
                Write one from scratch
              </Link>
              , save a good run as a guide from the Ask screen, or turn a wrong-answer report into one in{" "}
              <Link href="/feedback" className="font-medium text-brand-700 hover:underline">
                Feedback review
              </Link>
              .
            </>
          ) : (
            "No guide matches. Try other words or another knowledge base."
          )}
        </div>
      ) : (
        <ul className="divide-y divide-slate-100 overflow-hidden rounded-lg border border-slate-200 bg-white" data-testid="guide-list">
          {rows.map((g) => (
            <li key={g.id} className="px-4 py-3 text-sm">
              <div className="flex flex-wrap items-baseline justify-between gap-x-4 gap-y-1">
                <Link href={`/guides/${g.id}`} className="font-medium text-slate-900 hover:text-brand-700 hover:underline">
                  {g.question}
                </Link>
                <span className="text-xs text-slate-500">
                  {g.helpedRuns ? `Helped ${count(g.helpedRuns, "run")}` : "Not used yet"} · updated{" "}
                  <DateTime value={g.updatedAt} dateOnly />
                  {g.createdBy ? ` · by ${g.createdBy}` : ""}
                </span>
              </div>
              {g.answer && <p className="mt-0.5 line-clamp-1 text-slate-600">Answer: {g.answer}</p>}
              <p className="mt-1 flex flex-wrap items-center gap-1.5 text-xs text-slate-500">
                {g.kbs.map((k) => k.name).join(", ")}
                <span aria-hidden>·</span>
                {g.actionKinds.map((k) => (
                  <ActionKindBadge key={k} kind={k} />
                ))}
                <span>{count(g.actions, "action")}</span>
                {g.fromRunId && <span className="rounded bg-violet-50 px-1.5 py-0.5 text-violet-800">from a run</span>}
                {g.brokenReason && (
                  <span className="rounded bg-rose-50 px-1.5 py-0.5 text-rose-800" title={g.brokenReason}>
                    query no longer runs
                  </span>
                )}
              </p>
              {g.brokenReason && <p className="mt-0.5 line-clamp-2 text-xs text-rose-800">{g.brokenReason}</p>}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
