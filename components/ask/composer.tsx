"use client";

import { type FormEvent, type KeyboardEvent, useId, useState } from "react";
import type { AskableKb } from "@/lib/runs/types";
import { KindBadge } from "../kb/status-badge";
import { Button } from "../ui/button";

function KbPicker({
  kbs,
  selected,
  onChange,
  disabled,
}: {
  kbs: AskableKb[];
  selected: string[];
  onChange: (ids: string[]) => void;
  disabled: boolean;
}) {
  const [open, setOpen] = useState(false);
  const id = useId();
  const summary =
    selected.length === 0
      ? `All ${kbs.length} you may use`
      : selected.length === 1
        ? (kbs.find((k) => k.id === selected[0])?.name ?? "1 chosen")
        : `${selected.length} chosen`;
  return (
    <div className="text-sm">
      <button
        type="button"
        aria-expanded={open}
        aria-controls={`${id}-list`}
        onClick={() => setOpen((o) => !o)}
        className="inline-flex items-center gap-1.5 rounded-md px-2 py-1 text-slate-700 hover:bg-slate-100"
        data-testid="kb-picker-toggle"
      >
        <span className="text-slate-500">Knowledge bases:</span> <span className="font-medium">{summary}</span>
        <span aria-hidden className={`text-xs text-slate-400 transition-transform ${open ? "rotate-180" : ""}`}>
          ▾
        </span>
      </button>
      {open && (
        <fieldset
          id={`${id}-list`}
          className="mt-2 rounded-md border border-slate-200 bg-slate-50 p-3"
          disabled={disabled}
          data-testid="kb-picker"
        >
          <legend className="sr-only">Knowledge bases to search</legend>
          <p className="mb-2 text-xs text-slate-500">
            None chosen = every knowledge base you may use. Choosing some restricts the question to them.
          </p>
          {kbs.length === 0 ? (
            <p className="text-slate-600">No knowledge base is shared with you yet. Ask an admin to give your group access to one.</p>
          ) : (
            <ul className="grid gap-1.5 sm:grid-cols-2">
              {kbs.map((k) => (
                <li key={k.id}>
                  <label className="flex items-start gap-2 rounded px-1 py-0.5 hover:bg-white" title={k.description || undefined}>
                    <input
                      type="checkbox"
                      className="mt-1"
                      checked={selected.includes(k.id)}
                      onChange={(e) => onChange(e.target.checked ? [...selected, k.id] : selected.filter((x) => x !== k.id))}
                    />
                    <span className="min-w-0">
                      <span className="font-medium">{k.name}</span> <KindBadge kind={k.kind} />
                      {k.status !== "HEALTHY" && <span className="ml-1 text-xs text-amber-700">({k.status.toLowerCase()})</span>}
                    </span>
                  </label>
                </li>
              ))}
            </ul>
          )}
          {selected.length > 0 && (
            <button type="button" className="mt-2 text-xs font-medium text-brand-700 hover:underline" onClick={() => onChange([])}>
              Use all again
            </button>
          )}
        </fieldset>
      )}
    </div>
  );
}

/**
 * The question box: Enter asks (Shift+Enter for a new line), the button asks or, while a run streams,
 * cancels it. Follow-ups continue the conversation shown above.
 */
export function Composer({
  value,
  onChange,
  onSubmit,
  onCancel,
  running,
  kbs,
  selectedKbIds,
  onKbsChange,
  followUp,
  error,
}: {
  value: string;
  onChange: (v: string) => void;
  onSubmit: () => void;
  onCancel: () => void;
  running: boolean;
  kbs: AskableKb[];
  selectedKbIds: string[];
  onKbsChange: (ids: string[]) => void;
  followUp: boolean;
  error: string | null;
}) {
  const submit = (e?: FormEvent) => {
    e?.preventDefault();
    if (!running && value.trim()) onSubmit();
  };
  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      submit();
    }
  };
  return (
    <form onSubmit={submit} aria-label="Ask a question" className="rounded-lg border border-slate-200 bg-white p-4 shadow-xs">
      <label htmlFor="question" className="mb-1 block text-sm font-medium text-slate-800">
        {followUp ? "Ask a follow-up" : "Your question"}
      </label>
      <div className="flex items-start gap-3">
        <textarea
          id="question"
          rows={2}
          value={value}
          onChange={(e) => onChange(e.target.value)}
          onKeyDown={onKeyDown}
          maxLength={10_000}
          placeholder={followUp ? "e.g. Where is it based?" : "e.g. How many orders were returned?"}
          aria-describedby="question-hint"
          aria-invalid={!!error || undefined}
          className="block min-h-[3.25rem] w-full resize-y rounded-md border border-slate-300 px-3 py-2 text-base shadow-xs placeholder:text-slate-400 focus:border-brand-500 aria-[invalid=true]:border-rose-500"
        />
        {/* Separate keys: reusing one <button> would turn Cancel into a submit button while its click is
            still being handled, and the browser would then submit the form (asking again). */}
        {running ? (
          <Button key="cancel" variant="secondary" onClick={onCancel} className="w-24 shrink-0">
            Cancel
          </Button>
        ) : (
          <Button key="ask" type="submit" disabled={!value.trim()} className="w-24 shrink-0">
            Ask
          </Button>
        )}
      </div>
      <div className="mt-2 flex flex-wrap items-start justify-between gap-2">
        <KbPicker kbs={kbs} selected={selectedKbIds} onChange={onKbsChange} disabled={running} />
        <p id="question-hint" className="pt-1 text-xs text-slate-500">
          Enter to ask · Shift+Enter for a new line{followUp ? " · follow-ups can say “it”, “he”, “there”" : ""}
        </p>
      </div>
      {error && (
        <p className="mt-2 text-sm text-rose-700" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}
