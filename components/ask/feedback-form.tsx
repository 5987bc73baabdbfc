"use client";

import { useMutation } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { submitFeedbackAction } from "@/lib/actions/ask";
import { ActionFailure, unwrap } from "@/lib/actions/unwrap";
import type { FeedbackVerdictName, FeedbackView } from "@/lib/runs/types";
import { Alert } from "../ui/alert";
import { Button } from "../ui/button";
import { Field } from "../ui/field";

const AREA = "block w-full rounded-md border border-slate-300 px-3 py-2 text-sm aria-[invalid=true]:border-rose-500";

/** Helpful / Wrong, with an optional correct answer and comment; a second submission updates the first. */
export function FeedbackForm({ runId, initial }: { runId: string; initial: FeedbackView | null }) {
  const [saved, setSaved] = useState<FeedbackView | null>(initial);
  const [verdict, setVerdict] = useState<FeedbackVerdictName | null>(initial?.verdict ?? null);
  const [correctAnswer, setCorrectAnswer] = useState(initial?.correctAnswer ?? "");
  const [comment, setComment] = useState(initial?.comment ?? "");
  const [editing, setEditing] = useState(false);
  const send = useMutation({
    mutationFn: () => unwrap(submitFeedbackAction({ runId, verdict: verdict!, correctAnswer, comment })),
    onSuccess: (f) => {
      setSaved(f);
      setEditing(false);
    },
  });
  const errors = send.error instanceof ActionFailure ? send.error.fields : {};
  const choose = (v: FeedbackVerdictName) => {
    setVerdict(v);
    setEditing(true);
    send.reset();
  };
  const open = editing || (!saved && verdict !== null);
  return (
    <section aria-labelledby="feedback-heading" className="rounded-lg border border-slate-200 bg-white p-4" data-testid="feedback">
      <div className="flex flex-wrap items-center gap-3">
        <h2 id="feedback-heading" className="text-sm font-semibold">
          Was this answer right?
        </h2>
        <div role="group" aria-label="Your verdict" className="flex gap-2">
          <Button
            variant={verdict === "HELPFUL" ? "primary" : "secondary"}
            aria-pressed={verdict === "HELPFUL"}
            onClick={() => choose("HELPFUL")}
            className="py-1.5"
          >
            Helpful
          </Button>
          <Button
            variant={verdict === "WRONG" ? "danger" : "secondary"}
            aria-pressed={verdict === "WRONG"}
            onClick={() => choose("WRONG")}
            className="py-1.5"
          >
            Wrong
          </Button>
        </div>
        {saved && !open && (
          <p role="status" className="text-sm text-emerald-800" data-testid="feedback-saved">
            Thanks: you marked this {saved.verdict === "HELPFUL" ? "helpful" : "wrong"}
            {saved.correctAnswer ? ` (correct answer: ${saved.correctAnswer})` : ""}.{" "}
            {saved.verdict === "WRONG" && (saved.status === "OPEN" ? "An analyst will review it." : "An analyst has resolved it.")}
          </p>
        )}
      </div>
      {open && verdict && (
        <form
          aria-label="Feedback details"
          className="mt-3 space-y-3"
          onSubmit={(e: FormEvent) => {
            e.preventDefault();
            send.mutate();
          }}
        >
          {verdict === "WRONG" && (
            <Field id={`fb-answer-${runId}`} label="Correct answer (optional)" error={errors.correctAnswer}>
              <textarea
                id={`fb-answer-${runId}`}
                rows={2}
                value={correctAnswer}
                onChange={(e) => setCorrectAnswer(e.target.value)}
                className={AREA}
                aria-invalid={!!errors.correctAnswer || undefined}
              />
            </Field>
          )}
          <Field
            id={`fb-comment-${runId}`}
            label="Comment (optional)"
            hint="What was wrong or missing? Analysts read this when they correct the answer."
            error={errors.comment}
          >
            <textarea
              id={`fb-comment-${runId}`}
              rows={2}
              value={comment}
              onChange={(e) => setComment(e.target.value)}
              className={AREA}
              aria-invalid={!!errors.comment || undefined}
            />
          </Field>
          {send.error && !Object.keys(errors).length && <Alert tone="error">{send.error.message}</Alert>}
          <div className="flex gap-2">
            <Button type="submit" disabled={send.isPending}>
              {send.isPending ? "Sending…" : saved ? "Update feedback" : "Send feedback"}
            </Button>
            {saved && (
              <Button
                variant="ghost"
                onClick={() => {
                  setEditing(false);
                  setVerdict(saved.verdict);
                  setCorrectAnswer(saved.correctAnswer ?? "");
                  setComment(saved.comment ?? "");
                }}
              >
                Keep as it was
              </Button>
            )}
          </div>
        </form>
      )}
    </section>
  );
}
