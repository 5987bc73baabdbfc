"use client";

import { useMutation } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { saveCautionAction } from "@/lib/actions/settings";
import { CAUTION_MAX_PERCENT, CAUTION_MIN_PERCENT } from "@/lib/pipeline/calibration/caution-curve";
import { ActionFailure, unwrap } from "@/lib/actions/unwrap";
import type { CautionView } from "@/lib/settings/caution";
import { cautionInputSchema } from "@/lib/settings/caution.validation";
import { Alert } from "../ui/alert";
import { Button } from "../ui/button";
import { Field, TextInput } from "../ui/field";

/** Settings → Caution (issue 32): show an answer only when it is at least N % likely right. */
export function CautionForm({ initial }: { initial: CautionView }) {
  const [view, setView] = useState(initial);
  const [value, setValue] = useState(initial.override === null ? "" : String(initial.override));
  const [error, setError] = useState<string | undefined>();
  const [saved, setSaved] = useState(false);

  const save = useMutation({
    mutationFn: (targetPercent: number | null) => unwrap(saveCautionAction({ targetPercent })),
    onSuccess: (next) => {
      setView(next);
      setValue(next.override === null ? "" : String(next.override));
      setSaved(true);
    },
    onError: (e) => setError(e instanceof ActionFailure ? (e.fields.targetPercent ?? e.message) : "Could not save. Try again."),
  });

  function onSubmit(e: FormEvent) {
    e.preventDefault();
    const text = value.trim().replace(/\s*%$/, "");
    const parsed = cautionInputSchema.safeParse({ targetPercent: text === "" ? null : Number(text) });
    if (!parsed.success) {
      setError(parsed.error.issues[0]?.message);
      return;
    }
    setError(undefined);
    save.mutate(parsed.data.targetPercent);
  }

  const kinds = view.heldKinds.length ? view.heldKinds.join(" and ") : null;
  return (
    <form onSubmit={onSubmit} noValidate className="max-w-4xl" aria-label="Caution">
      <section aria-labelledby="caution-heading" className="space-y-4 rounded-lg border border-slate-200 bg-white p-5">
        <h2 id="caution-heading" className="text-lg font-semibold">
          How cautious answers are
        </h2>
        <p className="text-sm text-slate-600">
          Show an answer only when it is at least this likely to be right. Below it, Mosaic does not state the answer: it shows what it
          found, marked &ldquo;not certain&rdquo;, and why it is not sure. A higher figure means fewer answers, and fewer wrong ones.{" "}
          <span data-testid="caution-current">
            Now: {view.targetPercent} %{view.override === null ? " (the default)" : ""}.
          </span>
        </p>
        <p className="text-sm text-slate-600" data-testid="caution-scope">
          {kinds
            ? `It applies to answers from ${kinds}, ${view.heldKinds.length > 1 ? "the kinds" : "the kind"} of source the default was chosen on.${
                view.otherKinds.length ? ` Answers from ${view.otherKinds.join(" and ")} are not held back by this setting.` : ""
              }`
            : "No calibrated confidence is available now, so this setting holds no answer back."}
        </p>
        <div className="max-w-xs">
          <Field
            id="caution-target"
            label="Show an answer only when it is at least … % likely right"
            error={error}
            hint={`${CAUTION_MIN_PERCENT}–${CAUTION_MAX_PERCENT} %. Empty: the default, ${view.defaults.targetPercent} %.`}
          >
            <TextInput
              id="caution-target"
              inputMode="numeric"
              value={value}
              placeholder={String(view.defaults.targetPercent)}
              invalid={!!error}
              onChange={(e) => {
                setValue(e.target.value);
                setSaved(false);
                setError(undefined);
              }}
            />
          </Field>
        </div>
        {view.defaults.rule && (
          <p className="text-xs text-slate-500" data-testid="caution-default-rule">
            How the default was chosen, on {view.defaults.judged} answers to development questions: {view.defaults.rule}.
          </p>
        )}
        <div className="flex items-center gap-3">
          <Button type="submit" disabled={save.isPending}>
            {save.isPending ? "Saving…" : "Save caution"}
          </Button>
          {saved && <Alert tone="success">Saved. It applies to the next question anyone asks.</Alert>}
        </div>
      </section>
    </form>
  );
}
