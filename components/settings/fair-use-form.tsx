"use client";

import { useMutation } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { saveFairUseAction } from "@/lib/actions/settings";
import { ActionFailure, unwrap } from "@/lib/actions/unwrap";
import type { FairUseView } from "@/lib/settings/fair-use";
import { fairUseInputSchema } from "@/lib/settings/fair-use.validation";
import { Alert } from "../ui/alert";
import { Button } from "../ui/button";
import { Field, TextInput } from "../ui/field";

/** Settings → Fair use: how many questions one person (or API key) may have running at once. */
export function FairUseForm({ initial }: { initial: FairUseView }) {
  const [view, setView] = useState(initial);
  const [value, setValue] = useState(initial.override === null ? "" : String(initial.override));
  const [error, setError] = useState<string | undefined>();
  const [saved, setSaved] = useState(false);

  const save = useMutation({
    mutationFn: (maxConcurrentRuns: number | null) => unwrap(saveFairUseAction({ maxConcurrentRuns })),
    onSuccess: (next) => {
      setView(next);
      setValue(next.override === null ? "" : String(next.override));
      setSaved(true);
    },
    onError: (e) => setError(e instanceof ActionFailure ? (e.fields.maxConcurrentRuns ?? e.message) : "Could not save. Try again."),
  });

  function onSubmit(e: FormEvent) {
    e.preventDefault();
    const parsed = fairUseInputSchema.safeParse({ maxConcurrentRuns: value.trim() === "" ? null : Number(value) });
    if (!parsed.success) {
      setError(parsed.error.issues[0]?.message);
      return;
    }
    setError(undefined);
    save.mutate(parsed.data.maxConcurrentRuns);
  }

  return (
    <form onSubmit={onSubmit} noValidate className="max-w-4xl" aria-label="Fair use">
      <section aria-labelledby="fair-use-heading" className="space-y-4 rounded-lg border border-slate-200 bg-white p-5">
        <h2 id="fair-use-heading" className="text-lg font-semibold">
          Fair use
        </h2>
        <p className="text-sm text-slate-600">
          So that one account cannot slow everyone else down, each person (and later each API key) may have only so many questions running
          at once; a further question is refused with a message to ask again when one has finished.{" "}
          <span data-testid="fair-use-current">
            Now: {view.maxConcurrentRuns} at once{view.override === null ? " (the default)" : ""}.
          </span>
        </p>
        <div className="max-w-xs">
          <Field
            id="fair-use-max-runs"
            label="Questions running at once, per person"
            error={error}
            hint={`Empty: the default, ${view.defaults.maxConcurrentRuns} (RUNS_MAX_CONCURRENT).`}
          >
            <TextInput
              id="fair-use-max-runs"
              inputMode="numeric"
              value={value}
              placeholder={String(view.defaults.maxConcurrentRuns)}
              invalid={!!error}
              onChange={(e) => {
                setValue(e.target.value);
                setSaved(false);
                setError(undefined);
              }}
            />
          </Field>
        </div>
        <div className="flex items-center gap-3">
          <Button type="submit" disabled={save.isPending}>
            {save.isPending ? "Saving…" : "Save fair use"}
          </Button>
          {saved && <Alert tone="success">Saved. It applies to the next question anyone asks.</Alert>}
        </div>
      </section>
    </form>
  );
}
