"use client";

import { useMutation } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { saveAuditRetentionAction } from "@/lib/actions/settings";
import { ActionFailure, unwrap } from "@/lib/actions/unwrap";
import { auditRetentionInputSchema } from "@/lib/audit/retention.validation";
import { Alert } from "../ui/alert";
import { Button } from "../ui/button";
import { Field, TextInput } from "../ui/field";

/** Settings → Audit log: how many days records are kept before the daily purge deletes them. */
export function AuditRetentionForm({ initialDays }: { initialDays: number }) {
  const [days, setDays] = useState(initialDays);
  const [value, setValue] = useState(String(initialDays));
  const [error, setError] = useState<string | undefined>();
  const [saved, setSaved] = useState(false);

  const save = useMutation({
    mutationFn: (d: number) => unwrap(saveAuditRetentionAction({ days: d })),
    onSuccess: (next) => {
      setDays(next.days);
      setValue(String(next.days));
      setSaved(true);
    },
    onError: (e) => setError(e instanceof ActionFailure ? (e.fields.days ?? e.message) : "Could not save. Try again."),
  });

  function onSubmit(e: FormEvent) {
    e.preventDefault();
    const parsed = auditRetentionInputSchema.safeParse({ days: Number(value.trim() || NaN) });
    if (!parsed.success) {
      setError(parsed.error.issues[0]?.message);
      return;
    }
    setError(undefined);
    save.mutate(parsed.data.days);
  }

  return (
    <form onSubmit={onSubmit} noValidate className="max-w-4xl" aria-label="Audit log retention">
      <section aria-labelledby="audit-retention-heading" className="space-y-4 rounded-lg border border-slate-200 bg-white p-5">
        <h2 id="audit-retention-heading" className="text-lg font-semibold">
          Audit log
        </h2>
        <p className="text-sm text-slate-600">
          Sign-ins, questions, evidence opened and every change are recorded on the Audit log page. Records older than this are deleted once
          a day; each deletion is recorded itself. <span data-testid="audit-retention-current">Now: {days} days.</span>
        </p>
        <div className="max-w-xs">
          <Field id="audit-retention-days" label="Keep audit records for (days)" error={error} hint="From 7 to 3650 days.">
            <TextInput
              id="audit-retention-days"
              inputMode="numeric"
              value={value}
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
            {save.isPending ? "Saving…" : "Save retention"}
          </Button>
          {saved && <Alert tone="success">Saved. The next daily purge keeps {days} days.</Alert>}
        </div>
      </section>
    </form>
  );
}
