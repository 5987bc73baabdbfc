"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { type FormEvent, useState } from "react";
import { resolveWithNewGuideAction } from "@/lib/actions/feedback";
import { captureContextAction, saveGuideAction } from "@/lib/actions/guides";
import { listSourceObjectsAction } from "@/lib/actions/source-objects";
import { ActionFailure, unwrap } from "@/lib/actions/unwrap";
import { INCOMPLETE_ACTIONS, actionFieldProblems, draftActionProblems } from "@/lib/guides/action-fields";
import { ACTION_NAME } from "@/lib/guides/action-names";
import type { CapturedContext } from "@/lib/guides/capture";
import type { GuideDraftInput } from "@/lib/guides/guides.validation";
import type { GuideActionKind } from "@/lib/pipeline/guide-actions";
import { KindBadge } from "../kb/status-badge";
import { ContextResult } from "../source-objects/context-result";
import { Alert } from "../ui/alert";
import { Button } from "../ui/button";
import { Field, SelectInput } from "../ui/field";
import { ACTION_HELP, ActionParamsEditor, KINDS_FOR, type KbKind, type Params, emptyParams } from "./action-editor";

type KbOption = { id: string; name: string; kind: string };

interface EditorAction {
  key: number;
  kind: GuideActionKind;
  params: Params;
  /** The context that will be stored; empty = captured on save. */
  context: string;
  /** Where the context came from, for the label. */
  origin: "run" | "saved" | "captured" | null;
  captured: CapturedContext | null;
  error: string | null;
  /** What is missing, by parameter field ("tableKey", "rows"…), found before running. */
  fieldErrors: Record<string, string>;
  running: boolean;
}

interface EditorSource {
  key: number;
  kbId: string;
  sourceObjectId: string | null;
  actions: EditorAction[];
}

export type EditorMode = { kind: "create" } | { kind: "edit"; guideId: string } | { kind: "resolve"; feedbackId: string };

let nextKey = 1;
const newKey = () => nextKey++;

function toEditor(draft: GuideDraftInput, origin: EditorAction["origin"]): EditorSource[] {
  return draft.sources.map((s) => ({
    key: newKey(),
    kbId: s.kbId,
    sourceObjectId: s.sourceObjectId ?? null,
    actions: s.actions.map((a) => ({
      key: newKey(),
      kind: a.kind,
      params: (a.params ?? {}) as Params,
      context: a.context ?? "",
      origin: a.context ? origin : null,
      captured: null,
      error: null,
      fieldErrors: {},
      running: false,
    })),
  }));
}

const TEXTAREA = "block w-full rounded-md border border-slate-300 px-3 py-2 text-sm aria-[invalid=true]:border-rose-500";

/**
 * Writes an extraction guide: the question, the answer, and per source the retrieval actions whose
 * contexts are captured by running them. Actions not run by hand are run on save; one that is refused
 * or fails stops the save and says why, next to the action.
 */
export function GuideEditor({
  mode,
  initial,
  kbs,
  origin = "saved",
  submitLabel,
}: {
  mode: EditorMode;
  initial: GuideDraftInput;
  kbs: KbOption[];
  /** Where prefilled contexts came from ("run": the cited evidence of the run this guide is made from). */
  origin?: "run" | "saved";
  submitLabel: string;
}) {
  const router = useRouter();
  const queryClient = useQueryClient();
  const [question, setQuestion] = useState(initial.question);
  const [answer, setAnswer] = useState(initial.answer ?? "");
  const [notes, setNotes] = useState(initial.notes ?? "");
  const [sources, setSources] = useState<EditorSource[]>(() => {
    const prefilled = toEditor(initial, origin);
    // A new guide starts with one source on the first knowledge base, ready for its first action.
    const kb = kbs[0];
    if (prefilled.length || mode.kind !== "create" || !kb) return prefilled;
    return [
      { key: newKey(), kbId: kb.id, sourceObjectId: null, actions: [blankAction(KINDS_FOR[kb.kind as KbKind][0], kb.kind as KbKind)] },
    ];
  });
  const kindOf = (kbId: string) => (kbs.find((k) => k.id === kbId)?.kind ?? "SQL") as KbKind;

  const updateSource = (key: number, fn: (s: EditorSource) => EditorSource) =>
    setSources((all) => all.map((s) => (s.key === key ? fn(s) : s)));
  const updateAction = (sourceKey: number, actionKey: number, fn: (a: EditorAction) => EditorAction) =>
    updateSource(sourceKey, (s) => ({ ...s, actions: s.actions.map((a) => (a.key === actionKey ? fn(a) : a)) }));
  const addSource = () => {
    const kbId = kbs[0]?.id ?? "";
    const kind = KINDS_FOR[kindOf(kbId)][0];
    setSources((all) => [...all, { key: newKey(), kbId, sourceObjectId: null, actions: [blankAction(kind, kindOf(kbId))] }]);
  };

  async function runAction(source: EditorSource, action: EditorAction) {
    // An incomplete action is not sent: what is missing shows next to its fields.
    const fieldErrors = actionFieldProblems(action.kind, action.params);
    if (Object.keys(fieldErrors).length) {
      updateAction(source.key, action.key, (a) => ({ ...a, fieldErrors, error: null }));
      return;
    }
    updateAction(source.key, action.key, (a) => ({ ...a, running: true, error: null, fieldErrors: {} }));
    try {
      const captured = await unwrap(captureContextAction({ kbId: source.kbId, kind: action.kind, params: action.params }));
      updateAction(source.key, action.key, (a) => ({
        ...a,
        running: false,
        captured,
        context: captured.context,
        origin: "captured",
        error: null,
      }));
    } catch (e) {
      updateAction(source.key, action.key, (a) => ({ ...a, running: false, error: (e as Error).message }));
    }
  }
  const runAll = () => Promise.all(sources.flatMap((s) => s.actions.map((a) => runAction(s, a))));

  const save = useMutation({
    mutationFn: async () => {
      const draft: GuideDraftInput = {
        question,
        answer: answer.trim() || null,
        notes,
        fromRunId: initial.fromRunId ?? null,
        sources: sources.map((s) => ({
          kbId: s.kbId,
          sourceObjectId: s.sourceObjectId,
          actions: s.actions.map((a) => ({ kind: a.kind, params: a.params, context: a.context })),
        })),
      };
      const incomplete = draftActionProblems(draft);
      if (Object.keys(incomplete).length) throw new ActionFailure(INCOMPLETE_ACTIONS, incomplete);
      if (mode.kind === "resolve") return unwrap(resolveWithNewGuideAction({ feedbackId: mode.feedbackId, draft }));
      return unwrap(saveGuideAction({ draft, guideId: mode.kind === "edit" ? mode.guideId : undefined }));
    },
    onSuccess: ({ id }) => {
      // Lists cached in this tab are out of date; the next visit renders them afresh from the server.
      queryClient.removeQueries({ queryKey: ["guides"] });
      queryClient.removeQueries({ queryKey: ["review-queue"] });
      router.push(`/guides/${id}?${mode.kind === "resolve" ? "resolved" : "saved"}=1`);
    },
  });
  const fields = save.error instanceof ActionFailure ? save.error.fields : {};
  const anyRunning = sources.some((s) => s.actions.some((a) => a.running));

  return (
    <form
      aria-label="Extraction guide"
      className="space-y-6"
      onSubmit={(e: FormEvent) => {
        e.preventDefault();
        save.mutate();
      }}
    >
      <section className="space-y-4 rounded-lg border border-slate-200 bg-white p-5" aria-labelledby="guide-question-heading">
        <h2 id="guide-question-heading" className="text-lg font-semibold">
          Question and answer
        </h2>
        <Field
          id="guide-question"
          label="Question"
          hint="Phrase it as people ask it: the pipeline matches new questions against it."
          error={fields.question}
        >
          <textarea
            id="guide-question"
            rows={2}
            value={question}
            onChange={(e) => setQuestion(e.target.value)}
            aria-invalid={!!fields.question || undefined}
            className={TEXTAREA}
          />
        </Field>
        <Field
          id="guide-answer"
          label={mode.kind === "resolve" ? "Correct answer" : "Answer (optional)"}
          hint={
            mode.kind === "resolve"
              ? "Prefilled with the reporter's correct answer; it is recorded as a correction of the run's answer."
              : "What these sources say; leave empty when the answer changes with the data."
          }
          error={fields.answer}
        >
          <textarea
            id="guide-answer"
            rows={2}
            value={answer}
            onChange={(e) => setAnswer(e.target.value)}
            aria-invalid={!!fields.answer || undefined}
            className={TEXTAREA}
          />
        </Field>
        <Field id="guide-notes" label="Notes (optional)" hint="How to read the sources, for the next analyst." error={fields.notes}>
          <textarea id="guide-notes" rows={2} value={notes} onChange={(e) => setNotes(e.target.value)} className={TEXTAREA} />
        </Field>
      </section>

      <section className="space-y-4" aria-labelledby="guide-sources-heading">
        <div className="flex flex-wrap items-end justify-between gap-2">
          <div>
            <h2 id="guide-sources-heading" className="text-lg font-semibold">
              Sources and retrieval actions
            </h2>
            <p className="text-sm text-slate-600">
              Each source is a knowledge base (optionally one of its source objects) with the actions that retrieve the answer. Run an
              action to see the context it captures.
            </p>
          </div>
          {sources.length > 0 && (
            <Button variant="secondary" onClick={runAll} disabled={anyRunning}>
              {anyRunning ? "Running…" : "Run all actions"}
            </Button>
          )}
        </div>
        {fields.sources && <Alert tone="error">{fields.sources}</Alert>}
        {sources.length === 0 && (
          <div className="rounded-lg border border-dashed border-slate-300 bg-white p-6 text-sm text-slate-600">
            No sources yet. Add the knowledge base that holds the answer
            {kbs.length === 0 ? " (none is shared with you yet: ask an admin for access)" : ""}.
          </div>
        )}
        {sources.map((source, i) => (
          <SourceCard
            key={source.key}
            index={i}
            source={source}
            kbs={kbs}
            kbKind={kindOf(source.kbId)}
            fields={fields}
            onKb={(kbId) =>
              updateSource(source.key, () => ({
                ...source,
                kbId,
                sourceObjectId: null,
                actions: [blankAction(KINDS_FOR[kindOf(kbId)][0], kindOf(kbId))],
              }))
            }
            onSourceObject={(id) => updateSource(source.key, (s) => ({ ...s, sourceObjectId: id }))}
            onRemove={() => setSources((all) => all.filter((s) => s.key !== source.key))}
            onAddAction={() =>
              updateSource(source.key, (s) => ({
                ...s,
                actions: [...s.actions, blankAction(KINDS_FOR[kindOf(s.kbId)][0], kindOf(s.kbId))],
              }))
            }
            onRemoveAction={(key) => updateSource(source.key, (s) => ({ ...s, actions: s.actions.filter((a) => a.key !== key) }))}
            onKind={(key, kind) => updateAction(source.key, key, () => blankAction(kind, kindOf(source.kbId), key))}
            onParams={(key, params) => {
              // A changed action no longer produces the context shown: it is captured again (by hand or on save).
              updateAction(source.key, key, (a) => ({
                ...a,
                params,
                context: "",
                origin: null,
                captured: null,
                error: null,
                fieldErrors: {},
              }));
              save.reset();
            }}
            onRun={(action) => runAction(source, action)}
          />
        ))}
        <Button variant="secondary" onClick={addSource} disabled={kbs.length === 0}>
          Add a source
        </Button>
      </section>

      <div className="space-y-2 border-t border-slate-200 pt-4">
        {save.error && <Alert tone="error">{save.error.message}</Alert>}
        <div className="flex flex-wrap items-center gap-3">
          <Button type="submit" disabled={save.isPending || anyRunning}>
            {save.isPending ? "Running the actions and saving…" : submitLabel}
          </Button>
          <Link
            href={mode.kind === "resolve" ? "/feedback" : mode.kind === "edit" ? `/guides/${mode.guideId}` : "/guides"}
            className="text-sm text-slate-600 hover:underline"
          >
            Cancel
          </Link>
          <span className="text-xs text-slate-500">Actions you have not run are run when you save.</span>
        </div>
      </div>
    </form>
  );
}

function blankAction(kind: GuideActionKind, kbKind: KbKind, key = newKey()): EditorAction {
  return {
    key,
    kind,
    params: emptyParams(kind, kbKind),
    context: "",
    origin: null,
    captured: null,
    error: null,
    fieldErrors: {},
    running: false,
  };
}

function SourceCard({
  index,
  source,
  kbs,
  kbKind,
  fields,
  onKb,
  onSourceObject,
  onRemove,
  onAddAction,
  onRemoveAction,
  onKind,
  onParams,
  onRun,
}: {
  index: number;
  source: EditorSource;
  kbs: KbOption[];
  kbKind: KbKind;
  fields: Record<string, string>;
  onKb: (kbId: string) => void;
  onSourceObject: (id: string | null) => void;
  onRemove: () => void;
  onAddAction: () => void;
  onRemoveAction: (key: number) => void;
  onKind: (key: number, kind: GuideActionKind) => void;
  onParams: (key: number, params: Params) => void;
  onRun: (action: EditorAction) => void;
}) {
  const filters = { kbId: source.kbId };
  const objects = useQuery({
    queryKey: ["source-objects", filters],
    queryFn: () => unwrap(listSourceObjectsAction(filters)),
    enabled: !!source.kbId,
  });
  const id = `src-${source.key}`;
  const n = index + 1;
  return (
    <fieldset className="space-y-4 rounded-lg border border-slate-200 bg-white p-5" data-testid={`guide-source-${n}`}>
      <legend className="sr-only">Source {n}</legend>
      <div className="flex flex-wrap items-start justify-between gap-2">
        <h3 className="flex items-center gap-2 font-semibold">
          Source {n} <KindBadge kind={kbKind} />
        </h3>
        <Button variant="ghost" onClick={onRemove} aria-label={`Remove source ${n}`}>
          Remove
        </Button>
      </div>
      <div className="grid gap-3 md:grid-cols-2">
        <Field id={`${id}-kb`} label={`Knowledge base of source ${n}`} error={fields[`sources.${index}.kbId`]}>
          <SelectInput id={`${id}-kb`} value={source.kbId} onChange={(e) => onKb(e.target.value)}>
            {!kbs.some((k) => k.id === source.kbId) && <option value={source.kbId}>Not shared with you</option>}
            {kbs.map((k) => (
              <option key={k.id} value={k.id}>
                {k.name}
              </option>
            ))}
          </SelectInput>
        </Field>
        <Field id={`${id}-so`} label={`Source object of source ${n} (optional)`} error={fields[`sources.${index}.sourceObjectId`]}>
          <SelectInput id={`${id}-so`} value={source.sourceObjectId ?? ""} onChange={(e) => onSourceObject(e.target.value || null)}>
            <option value="">The whole knowledge base</option>
            {(objects.data ?? []).map((o) => (
              <option key={o.id} value={o.id}>
                {o.name}
              </option>
            ))}
          </SelectInput>
        </Field>
      </div>
      {objects.error && <Alert tone="error">{objects.error.message}</Alert>}
      {fields[`sources.${index}.actions`] && <Alert tone="error">{fields[`sources.${index}.actions`]}</Alert>}
      <ol className="space-y-4">
        {source.actions.map((action, j) => {
          const aid = `${id}-a${action.key}`;
          const label = `Action ${j + 1} of source ${n}`;
          const serverError = fields[`sources.${index}.actions.${j}`];
          const error = action.error ?? serverError;
          const prefix = `sources.${index}.actions.${j}.`;
          const fieldErrors = {
            ...Object.fromEntries(
              Object.entries(fields)
                .filter(([k]) => k.startsWith(prefix))
                .map(([k, v]) => [k.slice(prefix.length), v]),
            ),
            ...action.fieldErrors,
          };
          return (
            <li
              key={action.key}
              className="space-y-3 rounded-md border border-slate-200 bg-slate-50/60 p-4"
              aria-label={label}
              data-testid={`guide-action-${n}-${j + 1}`}
            >
              <div className="flex flex-wrap items-end justify-between gap-3">
                <div className="w-56">
                  <Field id={`${aid}-kind`} label={`${label}: kind`}>
                    <SelectInput
                      id={`${aid}-kind`}
                      value={action.kind}
                      onChange={(e) => onKind(action.key, e.target.value as GuideActionKind)}
                    >
                      {KINDS_FOR[kbKind].map((k) => (
                        <option key={k} value={k}>
                          {ACTION_NAME[k]}
                        </option>
                      ))}
                    </SelectInput>
                  </Field>
                </div>
                <div className="flex gap-2">
                  <Button
                    variant="secondary"
                    onClick={() => onRun(action)}
                    disabled={action.running}
                    aria-label={`Run ${label.toLowerCase()}`}
                  >
                    {action.running ? "Running…" : "Run"}
                  </Button>
                  {source.actions.length > 1 && (
                    <Button variant="ghost" onClick={() => onRemoveAction(action.key)} aria-label={`Remove ${label.toLowerCase()}`}>
                      Remove
                    </Button>
                  )}
                </div>
              </div>
              <p className="text-xs text-slate-500">{ACTION_HELP[action.kind]}</p>
              <ActionParamsEditor
                id={aid}
                kind={action.kind}
                kbKind={kbKind}
                params={action.params}
                objects={objects.data ?? []}
                errors={fieldErrors}
                onChange={(p) => onParams(action.key, p)}
              />
              {error ? (
                <Alert tone="error">{error}</Alert>
              ) : action.captured ? (
                <ContextResult
                  result={action.captured}
                  label="Captured context"
                  written={action}
                  names={{ table: (objects.data ?? []).find((o) => o.key === action.params.tableKey)?.name }}
                />
              ) : action.context ? (
                <div className="space-y-1 text-sm">
                  <p className="font-semibold">
                    {action.origin === "run" ? "Context from the run (the evidence it cited)" : "Saved context"}
                  </p>
                  <pre className="max-h-48 overflow-auto whitespace-pre-wrap break-words rounded border border-slate-200 bg-white p-2 font-sans text-xs text-slate-800">
                    {action.context}
                  </pre>
                </div>
              ) : Object.keys(fieldErrors).length ? (
                <p className="text-xs text-rose-700">Not run: complete the fields marked above first.</p>
              ) : (
                <p className="text-xs text-slate-500">Not run yet: run it to capture its context, or it runs when you save.</p>
              )}
            </li>
          );
        })}
      </ol>
      <Button variant="secondary" onClick={onAddAction}>
        Add an action to source {n}
      </Button>
    </fieldset>
  );
}
