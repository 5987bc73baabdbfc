"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { type FormEvent, type ReactNode, useState } from "react";
import { ActionFailure } from "@/lib/actions/unwrap";
import type { FeedbackSourceItem, GuideSourceItem } from "@/lib/eval/authoring";
import type { CreateSuiteInput } from "@/lib/eval/eval.validation";
import type { SuiteOption } from "@/lib/eval/reports";
import { Alert } from "../ui/alert";
import { Button } from "../ui/button";
import { Field, TextInput } from "../ui/field";
import { evalApi } from "./api";
import { count } from "@/lib/format/count";

type Manual = { question: string; answers: string; unanswerable: boolean };

function SourceList<T extends { id: string; question: string; answer: string | null; kbNames: string[] }>({
  title,
  items,
  chosen,
  onToggle,
  empty,
  extra,
}: {
  title: string;
  items: T[];
  chosen: Set<string>;
  onToggle: (id: string) => void;
  empty: ReactNode;
  extra?: (item: T) => string | null;
}) {
  const usable = items.filter((i) => i.answer);
  return (
    <fieldset className="min-w-0 space-y-2">
      <legend className="text-sm font-semibold">
        {title}{" "}
        {items.length > 0 && (
          <span className="font-normal text-slate-500">
            ({chosen.size} of {usable.length} chosen)
          </span>
        )}
      </legend>
      {items.length === 0 ? (
        <div className="rounded-lg border border-dashed border-slate-300 bg-white p-3 text-sm text-slate-600">{empty}</div>
      ) : (
        <ul className="max-h-80 divide-y divide-slate-100 overflow-y-auto rounded-lg border border-slate-200 bg-white text-sm">
          {items.map((i) => (
            <li key={i.id} className="px-3 py-2">
              <label className={`flex gap-2 ${i.answer ? "" : "text-slate-500"}`}>
                <input type="checkbox" className="mt-1" disabled={!i.answer} checked={chosen.has(i.id)} onChange={() => onToggle(i.id)} />
                <span className="min-w-0">
                  <span className="block">{i.question}</span>
                  <span className="block text-xs text-slate-600">
                    {i.answer ? `Answer: ${i.answer}` : "No answer recorded: cannot be checked"}
                    {i.kbNames.length ? ` · ${i.kbNames.join(", ")}` : ""}
                    {extra?.(i) ? ` · ${extra(i)}` : ""}
                  </span>
                </span>
              </label>
            </li>
          ))}
        </ul>
      )}
    </fieldset>
  );
}

/** Authors a suite from extraction guides, resolved feedback and questions written here. */
export function SuiteAuthor({ suites }: { suites: SuiteOption[] }) {
  const queryClient = useQueryClient();
  const sources = useQuery({
    queryKey: ["eval-sources"],
    queryFn: () => evalApi<{ guides: GuideSourceItem[]; feedback: FeedbackSourceItem[] }>("/sources"),
  });
  const authored = useQuery({ queryKey: ["eval-suites"], queryFn: () => evalApi<SuiteOption[]>("/suites"), initialData: suites });
  const [name, setName] = useState("");
  const [description, setDescription] = useState("");
  const [guides, setGuides] = useState<Set<string>>(new Set());
  const [feedback, setFeedback] = useState<Set<string>>(new Set());
  const [manual, setManual] = useState<Manual[]>([]);
  const toggle = (set: Set<string>, update: (s: Set<string>) => void) => (id: string) => {
    const next = new Set(set);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    update(next);
  };
  const create = useMutation({
    mutationFn: () => {
      const items: CreateSuiteInput["items"] = [
        ...[...guides].map((id) => ({ kind: "guide" as const, id })),
        ...[...feedback].map((id) => ({ kind: "feedback" as const, id })),
        ...manual
          .filter((m) => m.question.trim())
          .map((m) => ({
            kind: "manual" as const,
            question: m.question,
            answers: m.unanswerable
              ? []
              : m.answers
                  .split("\n")
                  .map((a) => a.trim())
                  .filter(Boolean),
            kbIds: [],
            unanswerable: m.unanswerable,
          })),
      ];
      return evalApi<{ id: string; questions: number; skipped: string[] }>("/suites", {
        method: "POST",
        body: { name, description, items },
      });
    },
    onSuccess: () => {
      setName("");
      setDescription("");
      setGuides(new Set());
      setFeedback(new Set());
      setManual([]);
      void queryClient.invalidateQueries({ queryKey: ["eval-suites"] });
    },
  });
  const remove = useMutation({
    mutationFn: (id: string) => evalApi(`/suites/${id}`, { method: "DELETE" }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ["eval-suites"] }),
  });
  const errs = create.error instanceof ActionFailure ? create.error.fields : {};
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  const mine = (authored.data ?? []).filter((s) => s.authored);
  return (
    <div className="grid gap-6 xl:grid-cols-[minmax(0,1.4fr)_minmax(0,1fr)]">
      <form onSubmit={submit} aria-label="Author a suite" className="min-w-0 space-y-4 rounded-lg border border-slate-200 bg-white p-4">
        <h2 className="text-base font-semibold">Author a suite</h2>
        <p className="text-sm text-slate-600">
          Questions with answers analysts have already checked make a regression suite: run it after changing sources, settings or the
          pipeline. A question from a guide finds that guide at run time, so it tests that the guide keeps working.
        </p>
        <div className="grid gap-3 md:grid-cols-2">
          <Field id="suite-name" label="Name" error={errs.name}>
            <TextInput id="suite-name" value={name} maxLength={120} onChange={(e) => setName(e.target.value)} invalid={!!errs.name} />
          </Field>
          <Field id="suite-description" label="Description (optional)" error={errs.description}>
            <TextInput id="suite-description" value={description} maxLength={2000} onChange={(e) => setDescription(e.target.value)} />
          </Field>
        </div>
        {sources.error && <Alert tone="error">{sources.error.message}</Alert>}
        {sources.isLoading ? (
          <div className="h-32 animate-pulse rounded-lg bg-slate-100" aria-busy="true" aria-label="Loading guides and feedback" />
        ) : (
          <div className="grid gap-4 lg:grid-cols-2">
            <SourceList
              title="Extraction guides"
              items={sources.data?.guides ?? []}
              chosen={guides}
              onToggle={toggle(guides, setGuides)}
              empty={
                <>
                  No extraction guides yet. Save a corrected run as a guide on the{" "}
                  <Link className="underline" href="/ask">
                    Ask
                  </Link>{" "}
                  page or write one under{" "}
                  <Link className="underline" href="/guides">
                    Extraction guides
                  </Link>
                  .
                </>
              }
            />
            <SourceList
              title="Resolved feedback"
              items={sources.data?.feedback ?? []}
              chosen={feedback}
              onToggle={toggle(feedback, setFeedback)}
              extra={(f) => (f.verdict === "WRONG" ? "corrected answer" : "confirmed answer")}
              empty={
                <>
                  No resolved feedback yet. Reports of wrong answers wait on the{" "}
                  <Link className="underline" href="/feedback">
                    Feedback review
                  </Link>{" "}
                  page; resolve them there.
                </>
              }
            />
          </div>
        )}
        <fieldset className="space-y-2">
          <legend className="text-sm font-semibold">Questions written here</legend>
          {manual.map((m, i) => (
            <div key={i} className="grid gap-2 rounded-md border border-slate-200 p-2 md:grid-cols-[minmax(0,1.3fr)_minmax(0,1fr)_auto]">
              <div>
                <label htmlFor={`manual-q-${i}`} className="sr-only">
                  Question {i + 1}
                </label>
                <TextInput
                  id={`manual-q-${i}`}
                  placeholder="Question"
                  value={m.question}
                  onChange={(e) => setManual(manual.map((x, j) => (j === i ? { ...x, question: e.target.value } : x)))}
                />
              </div>
              <div>
                <label htmlFor={`manual-a-${i}`} className="sr-only">
                  Accepted answers for question {i + 1}, one per line
                </label>
                <textarea
                  id={`manual-a-${i}`}
                  rows={1}
                  placeholder="Accepted answers, one per line"
                  disabled={m.unanswerable}
                  value={m.answers}
                  onChange={(e) => setManual(manual.map((x, j) => (j === i ? { ...x, answers: e.target.value } : x)))}
                  aria-invalid={!!errs[`items.${guides.size + feedback.size + i}.answers`] || undefined}
                  className="block w-full rounded-md border border-slate-300 px-3 py-2 text-sm aria-[invalid=true]:border-rose-500"
                />
              </div>
              <div className="flex items-center gap-2">
                <label className="flex items-center gap-1 text-xs">
                  <input
                    type="checkbox"
                    checked={m.unanswerable}
                    onChange={(e) => setManual(manual.map((x, j) => (j === i ? { ...x, unanswerable: e.target.checked } : x)))}
                  />
                  Should refrain
                </label>
                <Button variant="ghost" onClick={() => setManual(manual.filter((_, j) => j !== i))} aria-label={`Remove question ${i + 1}`}>
                  Remove
                </Button>
              </div>
            </div>
          ))}
          <Button variant="secondary" onClick={() => setManual([...manual, { question: "", answers: "", unanswerable: false }])}>
            Add a question
          </Button>
        </fieldset>
        {create.error && (
          <Alert tone="error">
            {create.error.message}
            {Object.keys(errs).length > 0 && !errs.name ? ` ${Object.values(errs).join(" ")}` : ""}
          </Alert>
        )}
        {create.isSuccess && (
          <Alert tone="success">
            Suite created with {count(create.data.questions, "question")}. Run it from the “Runs and reports” tab.
            {create.data.skipped.length ? ` Skipped: ${create.data.skipped.join(" ")}` : ""}
          </Alert>
        )}
        <Button type="submit" disabled={create.isPending || (!guides.size && !feedback.size && !manual.some((m) => m.question.trim()))}>
          {create.isPending ? "Creating…" : "Create suite"}
        </Button>
      </form>
      <section aria-label="Authored suites" className="min-w-0 space-y-2">
        <h2 className="text-base font-semibold">Authored suites</h2>
        {remove.error && <Alert tone="error">{remove.error.message}</Alert>}
        {mine.length === 0 ? (
          <div className="rounded-lg border border-dashed border-slate-300 bg-white p-4 text-sm text-slate-600">
            None yet. Pick guides and resolved feedback on the left and create one.
          </div>
        ) : (
          <ul className="divide-y divide-slate-100 rounded-lg border border-slate-200 bg-white text-sm" data-testid="authored-suites">
            {mine.map((s) => (
              <li key={s.key} className="flex items-start gap-2 px-3 py-2">
                <span className="min-w-0 flex-1">
                  <span className="block font-medium">{s.label}</span>
                  <span className="block text-xs text-slate-600">
                    {count(s.questions, "question")}
                    {s.description ? ` · ${s.description}` : ""}
                  </span>
                </span>
                {s.canDelete && (
                  <Button
                    variant="ghost"
                    disabled={remove.isPending}
                    aria-label={`Delete the suite ${s.label}`}
                    onClick={() =>
                      window.confirm(`Delete the suite "${s.label}"? Reports of it are kept.`) &&
                      remove.mutate(s.key.replace(/^custom:/, ""))
                    }
                  >
                    Delete
                  </Button>
                )}
              </li>
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}
