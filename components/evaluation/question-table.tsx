"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { correctOf } from "@/lib/eval/correct";
import { rankingLabel, rankingRank, sortedEntries } from "@/lib/eval/metric-labels";
import type { QuestionResult } from "@/lib/eval/types";
import { Alert } from "../ui/alert";
import { Button } from "../ui/button";
import { TextInput } from "../ui/field";
import { evalApi } from "./api";
import { count } from "@/lib/format/count";

const FILTERS = [
  ["wrong", "Wrong"],
  ["all", "All"],
  ["right", "Right"],
  ["refrained", "Refrained"],
  ["errors", "Errors"],
] as const;
type Filter = (typeof FILTERS)[number][0];
const PAGE = 25;

function Verdict({ r }: { r: QuestionResult }) {
  const c = correctOf(r);
  if (r.status === "ERROR") return <span className="rounded bg-rose-50 px-1.5 py-0.5 text-xs font-medium text-rose-800">error</span>;
  if (c === null) return <span className="text-xs text-slate-500">–</span>;
  return c ? (
    <span className="rounded bg-emerald-50 px-1.5 py-0.5 text-xs font-medium text-emerald-800">right</span>
  ) : (
    <span className="rounded bg-rose-50 px-1.5 py-0.5 text-xs font-medium text-rose-800">wrong</span>
  );
}

function Details({ r }: { r: QuestionResult }) {
  const facts: [string, string][] = [];
  if (r.gold.kbNames.length) facts.push(["Gold source", r.gold.kbNames.join(" or ")]);
  if (r.source.candidates.length) facts.push(["Candidates", r.source.candidates.join(", ")]);
  if (r.source.winner) facts.push(["Answered from", r.source.winner]);
  if (r.execution) {
    const why =
      r.execution.onGoldKb === false && r.execution.kbName
        ? ` (ran on ${r.execution.kbName}, not the gold source${r.execution.resultMatch ? ", though with the same rows" : ""})`
        : !r.execution.match && r.execution.matchColumns
          ? " (right rows, extra columns)"
          : "";
    facts.push([
      "Execution match",
      `${r.execution.match ? "yes" : "no"}${why}; gold ${count(r.execution.goldRows, "row")}, run ${r.execution.predictedRows === null || r.execution.predictedRows === undefined ? "–" : count(r.execution.predictedRows, "row")}`,
    ]);
  }
  if (r.retrieval) {
    facts.push(["Relevant documents at rank", r.retrieval.ranks.map((x) => x ?? "not retrieved").join(", ")]);
    if (r.retrieval.stages?.length) {
      facts.push([
        "… after each stage",
        r.retrieval.stages.map((st) => `${rankingLabel(st.label)}: ${st.ranks.map((x) => x ?? "–").join(", ")}`).join("; "),
      ]);
    }
    if (r.retrieval.queries?.length) facts.push(["Searched with", r.retrieval.queries.map((q) => `“${q}”`).join("; ")]);
  }
  if (r.presence) {
    const p = sortedEntries(r.presence, rankingRank)
      .map(([l, v]) => `${rankingLabel(l)}: ${v.rank ?? "absent"}`)
      .join("; ");
    facts.push(["First piece holding the answer", p]);
  }
  if (r.withheld) facts.push(["Withheld answer", r.withheld]);
  if (r.gold.error) facts.push(["Gold could not be computed", r.gold.error]);
  if (r.error) facts.push(["Error", r.error]);
  if (r.degradations.length) facts.push(["Notes", r.degradations.join(" ")]);
  return (
    <dl className="grid grid-cols-[12rem_minmax(0,1fr)] gap-x-3 gap-y-1 text-xs">
      {facts.map(([k, v]) => (
        <div key={k} className="contents">
          <dt className="text-slate-500">{k}</dt>
          <dd className="break-words">{v}</dd>
        </div>
      ))}
      {r.execution?.query && (
        <div className="contents">
          <dt className="text-slate-500">Query ({r.execution.language})</dt>
          <dd>
            <pre className="overflow-x-auto whitespace-pre-wrap rounded bg-slate-50 p-2 font-mono text-[11px]">{r.execution.query}</pre>
          </dd>
        </div>
      )}
    </dl>
  );
}

/** A report's questions, wrong ones first: what was asked, the gold, the answer, and a link to the run. */
export function QuestionTable({ reportId, canOpenRuns, running }: { reportId: string; canOpenRuns: boolean; running: boolean }) {
  const [filter, setFilter] = useState<Filter>("wrong");
  const [q, setQ] = useState("");
  const [offset, setOffset] = useState(0);
  const [open, setOpen] = useState<string | null>(null);
  const query = useQuery({
    queryKey: ["eval-questions", reportId, filter, q, offset],
    queryFn: () =>
      evalApi<{ total: number; rows: QuestionResult[] }>(
        `/reports/${reportId}/questions?${new URLSearchParams({ filter, q, offset: String(offset), limit: String(PAGE) })}`,
      ),
    placeholderData: keepPreviousData,
    refetchInterval: running ? 5000 : false,
  });
  const data = query.data;
  return (
    <section aria-label="Questions" className="space-y-3">
      <div className="flex flex-wrap items-center gap-2">
        <h3 className="mr-2 text-base font-semibold">Questions</h3>
        <div role="group" aria-label="Show" className="flex flex-wrap gap-1">
          {FILTERS.map(([value, label]) => (
            <button
              key={value}
              type="button"
              aria-pressed={filter === value}
              onClick={() => {
                setFilter(value);
                setOffset(0);
              }}
              className={`rounded-md border px-2.5 py-1 text-xs ${filter === value ? "border-brand-500 bg-brand-50 text-brand-700" : "border-slate-300 bg-white text-slate-700 hover:bg-slate-50"}`}
            >
              {label}
            </button>
          ))}
        </div>
        <div className="ml-auto w-56">
          <label htmlFor={`eval-q-${reportId}`} className="sr-only">
            Search questions
          </label>
          <TextInput
            id={`eval-q-${reportId}`}
            type="search"
            placeholder="Search questions"
            value={q}
            onChange={(e) => {
              setQ(e.target.value);
              setOffset(0);
            }}
          />
        </div>
      </div>
      {query.error && <Alert tone="error">{query.error.message}</Alert>}
      <p className="text-xs text-slate-500" aria-live="polite">
        {query.isFetching && !data ? "Loading…" : data ? count(data.total, "question") : ""}
      </p>
      {data && data.rows.length === 0 ? (
        <div className="rounded-lg border border-dashed border-slate-300 bg-white p-4 text-sm text-slate-600">
          {filter === "wrong" ? "No wrong answers in this report so far." : "No question matches."}{" "}
          {filter !== "all" && "Choose “All” to see every question."}
        </div>
      ) : (
        <div className="overflow-x-auto rounded-lg border border-slate-200 bg-white">
          <table className="w-full table-fixed text-sm" data-testid="question-table">
            <thead className="bg-slate-50 text-left text-xs text-slate-600">
              <tr>
                <th scope="col" className="w-[40%] px-3 py-2 font-medium">
                  Question
                </th>
                <th scope="col" className="w-[20%] px-3 py-2 font-medium">
                  Gold
                </th>
                <th scope="col" className="w-[20%] px-3 py-2 font-medium">
                  Answer
                </th>
                <th scope="col" className="w-[8%] px-3 py-2 font-medium">
                  Verdict
                </th>
                <th scope="col" className="w-[12%] px-3 py-2 font-medium">
                  Run
                </th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {data?.rows.map((r) => (
                <Row
                  key={r.id}
                  r={r}
                  open={open === r.id}
                  onToggle={() => setOpen(open === r.id ? null : r.id)}
                  canOpenRuns={canOpenRuns}
                />
              ))}
            </tbody>
          </table>
        </div>
      )}
      {data && data.total > PAGE && (
        <div className="flex items-center gap-2 text-xs">
          <Button variant="secondary" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE))}>
            Previous
          </Button>
          <span>
            {offset + 1}–{Math.min(offset + PAGE, data.total)} of {data.total}
          </span>
          <Button variant="secondary" disabled={offset + PAGE >= data.total} onClick={() => setOffset(offset + PAGE)}>
            Next
          </Button>
        </div>
      )}
    </section>
  );
}

function Row({ r, open, onToggle, canOpenRuns }: { r: QuestionResult; open: boolean; onToggle: () => void; canOpenRuns: boolean }) {
  const gold = r.gold.unanswerable
    ? "(should refrain)"
    : r.gold.answers.length
      ? r.gold.answers.slice(0, 5).join("; ") + (r.gold.answers.length > 5 ? "; …" : "")
      : "–";
  return (
    <>
      <tr className="align-top">
        <td className="px-3 py-2">
          <button type="button" onClick={onToggle} aria-expanded={open} className="text-left hover:underline">
            {r.question}
          </button>
          <span className="mt-0.5 block text-xs text-slate-500">
            {r.id}
            {r.tags.length ? ` · ${r.tags.join(" · ")}` : ""}
          </span>
        </td>
        <td className="break-words px-3 py-2 text-slate-700">{gold}</td>
        <td className="break-words px-3 py-2">{r.answer ?? <span className="text-slate-500">(refrained)</span>}</td>
        <td className="px-3 py-2">
          <Verdict r={r} />
        </td>
        <td className="px-3 py-2 text-xs">
          {r.runId && canOpenRuns ? (
            <Link href={`/ask?run=${encodeURIComponent(r.runId)}`} className="whitespace-nowrap font-medium text-brand-700 underline">
              Open run
            </Link>
          ) : (
            <span className="text-slate-500">{r.runId ? "author only" : "–"}</span>
          )}
        </td>
      </tr>
      {open && (
        <tr className="bg-slate-50/60">
          <td colSpan={5} className="px-3 py-3">
            <Details r={r} />
          </td>
        </tr>
      )}
    </>
  );
}
