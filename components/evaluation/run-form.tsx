"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { ActionFailure } from "@/lib/actions/unwrap";
import type { SuiteOption } from "@/lib/eval/reports";
import { defaultSuiteKey } from "@/lib/eval/suite-availability";
import { Alert } from "../ui/alert";
import { Button } from "../ui/button";
import { Field, SelectInput, TextInput } from "../ui/field";
import { evalApi } from "./api";
import { BenchmarkCatalogLoad } from "./benchmark-catalog-load";
import { count } from "@/lib/format/count";
import { formatInteger } from "@/lib/format/number";

/** Questions a large suite's first run takes unless the field says otherwise. */
const QUICK_SAMPLE = 25;
/** Suites up to this size run whole by default: about a minute or two of questions on a small machine. */
const WHOLE_SUITE_MAX = 100;

/** What the Questions field's value will run: "All 28 questions", "25 of 1,034 (empty: all)". */
function limitHint(limit: string, total: number | null): string {
  const n = Number(limit.trim());
  if (!limit.trim()) return total === null ? "Empty: all" : `Empty: all ${count(total, "question")}`;
  if (!Number.isInteger(n) || n < 1) return "A whole number, or empty for all";
  if (total !== null && n >= total) return `All ${count(total, "question")}`;
  return total === null ? `${formatInteger(n)} (empty: all)` : `${formatInteger(n)} of ${formatInteger(total)} (empty: all)`;
}

/** Starts a suite on the server; the report appears in the list and its progress is polled. */
export function RunForm({
  suites,
  maxConcurrency,
  canLoadCatalog,
  onStarted,
}: {
  suites: SuiteOption[];
  maxConcurrency: number;
  /** The viewer may load the benchmark catalog (admins). */
  canLoadCatalog: boolean;
  onStarted: (reportId: string) => void;
}) {
  const queryClient = useQueryClient();
  const [suite, setSuite] = useState(() => defaultSuiteKey(suites));
  // A suite of up to WHOLE_SUITE_MAX questions (the demo's, an authored one) runs whole by default; a
  // benchmark of hundreds starts as a quick sample. The field's hint always says which the value means.
  const defaultLimit = (key: string) => ((suites.find((s) => s.key === key)?.questions ?? 0) > WHOLE_SUITE_MAX ? String(QUICK_SAMPLE) : "");
  const [limit, setLimit] = useState(() => defaultLimit(defaultSuiteKey(suites)));
  const [limitEdited, setLimitEdited] = useState(false);
  const [seed, setSeed] = useState("1");
  const [concurrency, setConcurrency] = useState(String(Math.min(2, maxConcurrency)));
  const [config, setConfig] = useState("");
  const [label, setLabel] = useState("");
  const [classical, setClassical] = useState(false);
  const [fresh, setFresh] = useState(false);
  const chosen = suites.find((s) => s.key === suite);
  const start = useMutation({
    mutationFn: () =>
      evalApi<{ reportId: string; resumedFrom: number; total: number }>("/reports", {
        method: "POST",
        body: {
          suite,
          limit: limit.trim() ? Number(limit) : null,
          seed: Number(seed),
          concurrency: Number(concurrency),
          config,
          label,
          fresh,
          llm: classical ? "off" : "default",
        },
      }),
    onSuccess: (r) => {
      void queryClient.invalidateQueries({ queryKey: ["eval-reports"] });
      onStarted(r.reportId);
    },
  });
  const errs = start.error instanceof ActionFailure ? start.error.fields : {};
  const submit = (e: FormEvent) => {
    e.preventDefault();
    start.mutate();
  };
  return (
    <form onSubmit={submit} aria-label="Run a suite" className="space-y-3 rounded-lg border border-slate-200 bg-white p-4">
      <h2 className="text-base font-semibold">Run a suite</h2>
      <Field
        id="eval-suite"
        label="Suite"
        error={errs.suite}
        hint={chosen ? `${count(chosen.questions, "question")}. ${chosen.description}` : undefined}
      >
        <SelectInput
          id="eval-suite"
          value={suite}
          onChange={(e) => {
            setSuite(e.target.value);
            if (!limitEdited) setLimit(defaultLimit(e.target.value));
          }}
        >
          {suites.map((s) => (
            <option key={s.key} value={s.key}>
              {s.label}
              {s.authored ? " (authored)" : ""}
              {s.unavailable ? ` — ${s.unavailable.short}` : ""}
            </option>
          ))}
        </SelectInput>
      </Field>
      {chosen?.unavailable && (
        <div data-testid="suite-unavailable">
          <Alert tone="info">
            <p>{chosen.unavailable.reason}</p>
            {chosen.unavailable.fix && <p className="mt-1">{chosen.unavailable.fix}</p>}
          </Alert>
        </div>
      )}
      <BenchmarkCatalogLoad offer={!!chosen?.unavailable?.loadable} canStart={canLoadCatalog} />
      <div className="grid grid-cols-3 gap-3">
        <Field id="eval-limit" label="Questions" error={errs.limit} hint={limitHint(limit, chosen?.questions ?? null)}>
          <TextInput
            id="eval-limit"
            inputMode="numeric"
            value={limit}
            placeholder={chosen ? `all ${formatInteger(chosen.questions)}` : "all"}
            onChange={(e) => {
              setLimit(e.target.value);
              setLimitEdited(true);
            }}
            invalid={!!errs.limit}
          />
        </Field>
        <Field id="eval-seed" label="Seed" error={errs.seed} hint="Which questions">
          <TextInput id="eval-seed" inputMode="numeric" value={seed} onChange={(e) => setSeed(e.target.value)} invalid={!!errs.seed} />
        </Field>
        <Field id="eval-concurrency" label="In parallel" error={errs.concurrency}>
          <SelectInput id="eval-concurrency" value={concurrency} onChange={(e) => setConcurrency(e.target.value)}>
            {Array.from({ length: maxConcurrency }, (_, i) => i + 1).map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </SelectInput>
        </Field>
      </div>
      <Field id="eval-label" label="Label (optional)" error={errs.label} hint="To tell runs apart, e.g. “after re-ranker change”">
        <TextInput id="eval-label" value={label} maxLength={120} onChange={(e) => setLabel(e.target.value)} />
      </Field>
      <details className="rounded-md border border-slate-200 px-3 py-2 text-sm" open={!!errs.config}>
        <summary className="cursor-pointer font-medium">Pipeline settings</summary>
        <div className="mt-2 space-y-2">
          <Field
            id="eval-config"
            label="Overrides (JSON)"
            error={errs.config}
            hint='Empty = defaults. E.g. {"candidates": 5, "answerThreshold": 0.3}'
          >
            <textarea
              id="eval-config"
              rows={3}
              value={config}
              onChange={(e) => setConfig(e.target.value)}
              aria-invalid={!!errs.config || undefined}
              aria-describedby={errs.config ? "eval-config-error" : undefined}
              className="block w-full rounded-md border border-slate-300 px-3 py-2 font-mono text-xs aria-[invalid=true]:border-rose-500"
            />
          </Field>
          <label className="flex items-center gap-2">
            <input type="checkbox" checked={classical} onChange={(e) => setClassical(e.target.checked)} />
            Classical strategies only (no LLM)
          </label>
          <label className="flex items-center gap-2">
            <input type="checkbox" checked={fresh} onChange={(e) => setFresh(e.target.checked)} />
            Start over (do not resume an unfinished run with the same settings)
          </label>
        </div>
      </details>
      {start.error && !Object.keys(errs).length && <Alert tone="error">{start.error.message}</Alert>}
      {start.error && Object.keys(errs).length > 0 && !errs.config && !errs.limit && !errs.seed && (
        <Alert tone="error">{start.error.message}</Alert>
      )}
      {start.isSuccess && (
        <Alert tone="success">
          {start.data.resumedFrom
            ? `Resumed: ${start.data.resumedFrom} of ${count(start.data.total, "question")} ${start.data.resumedFrom === 1 ? "was" : "were"} already done.`
            : `Started: ${count(start.data.total, "question")}.`}
        </Alert>
      )}
      <Button type="submit" disabled={start.isPending || !suite}>
        {start.isPending ? "Starting…" : "Start run"}
      </Button>
    </form>
  );
}
