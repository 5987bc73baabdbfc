"use client";

import { useMutation } from "@tanstack/react-query";
import Link from "next/link";
import { type FormEvent, useState } from "react";
import { getModelsViewAction, saveModelSettingsAction } from "@/lib/actions/settings";
import { ActionFailure, unwrap } from "@/lib/actions/unwrap";
import type { LoadedModelInfo, ModelSlotStatus } from "@/lib/models/types";
import { type ModelSettingsInput, modelSettingsInputSchema } from "@/lib/settings/model-settings.validation";
import type { ModelsView } from "@/lib/settings/models-view";
import { Alert } from "../ui/alert";
import { Button } from "../ui/button";
import { Field, SelectInput, TextInput } from "../ui/field";
import { count } from "@/lib/format/count";

const SOURCE_LABELS: Record<string, string> = {
  "models-dir": "models folder",
  cache: "downloaded earlier",
  hub: "downloaded now",
  service: "inference service",
};

const fmtMb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

function StatusBanner({ view }: { view: ModelsView }) {
  const { settings, status } = view.overview;
  if (!settings.enabled || !status) {
    return (
      <Alert tone="info">
        <span data-testid="models-status">Off</span>: every ranking is classical (keyword search and the lexical scorers). Turn the models
        on below to rank by meaning as well.
      </Alert>
    );
  }
  const e = status.embedder;
  const c = status.crossEncoder;
  if (e.state !== "ready" || !e.model) {
    return (
      <Alert tone="error">
        <span data-testid="models-status">Classical ranking only</span>: the embedding model {settings.embedder} is not available
        {e.reason ? ` — ${e.reason}` : "."} Questions are still answered, by keyword search and the lexical scorers.
      </Alert>
    );
  }
  const last =
    c.state === "ready" && c.model
      ? `the cross-encoder ${c.model.name} re-ranks the last round`
      : settings.crossEncoder
        ? `the cross-encoder ${settings.crossEncoder} is not available (${c.reason ?? "not loaded"}), so the last round uses the classical fusion with meaning`
        : "no cross-encoder is installed, so the last round uses the classical fusion with meaning";
  return (
    <Alert tone="success">
      <span data-testid="models-status">On</span>: {e.model.name} ({e.model.precision}) ranks evidence and sources by meaning beside
      keywords; {last}.
    </Alert>
  );
}

function ModelRow({ role, slot }: { role: string; slot: ModelSlotStatus }) {
  const m: LoadedModelInfo | null = slot.model;
  return (
    <tr className="border-b border-slate-100 last:border-0 align-top" data-testid="loaded-model">
      <th scope="row" className="py-2 pr-4 font-medium">
        {role}
      </th>
      {m ? (
        <>
          <td className="py-2 pr-4">
            {m.name}
            {m.note && <span className="block text-xs text-amber-700">{m.note}</span>}
          </td>
          <td className="py-2 pr-4">{m.precision}</td>
          <td className="py-2 pr-4 tabular-nums">{fmtMb(m.bytes)}</td>
          <td className="py-2" title={m.file}>
            {SOURCE_LABELS[m.source] ?? m.source}
          </td>
        </>
      ) : (
        <td colSpan={4} className="py-2 text-slate-600">
          {slot.state === "off" ? "None configured" : slot.state === "loading" ? "Loads on first use" : `Not available: ${slot.reason}`}
        </td>
      )}
    </tr>
  );
}

/** What an operator checks when something is off: checksums, which graph runs, the threads and the queue. */
function TechnicalDetails({ view }: { view: ModelsView }) {
  const status = view.overview.status;
  if (!status) return null;
  const q = status.queues.embedder;
  const models = [
    ["Embedding", status.embedder.model],
    ["Re-ranking", status.crossEncoder.model],
  ] as const;
  return (
    <details className="rounded-md border border-slate-200 p-3 text-sm" data-testid="model-technical">
      <summary className="cursor-pointer font-medium text-slate-700">Technical details</summary>
      <dl className="mt-2 grid grid-cols-[auto_minmax(0,1fr)] gap-x-6 gap-y-1">
        {models.map(([role, m]) =>
          m ? (
            <div key={role} className="contents">
              <dt className="text-slate-500">{role} model file</dt>
              <dd className="break-all">
                <span className="font-mono text-xs" data-testid="model-checksum">
                  sha256 {m.sha256}
                </span>
                {m.graph && (
                  <span className="block text-xs text-slate-600" data-testid="model-graph">
                    Graph: {m.graph}
                  </span>
                )}
              </dd>
            </div>
          ) : null,
        )}
        {status.pool && (
          <>
            <dt className="text-slate-500">Worker threads</dt>
            <dd>
              {status.pool.threads} of {status.pool.maxThreads} running, busy {Math.round(status.pool.utilization * 100)}% of the time
              {status.pool.replacedThreads > 0 && `, ${count(status.pool.replacedThreads, "thread")} replaced after a crash`}
            </dd>
          </>
        )}
        {q && (
          <>
            <dt className="text-slate-500">Queue</dt>
            <dd data-testid="model-queue">
              {count(q.waiting, "text")} waiting, {count(q.running, "text")} being embedded; {count(q.batches, "batch", "batches")} so far (
              {q.meanBatchSize.toFixed(1)} texts each)
              {q.refused + q.timedOut > 0 && `; ${q.refused} refused while busy, ${q.timedOut} timed out`}
            </dd>
          </>
        )}
      </dl>
    </details>
  );
}

function Runtime({ view }: { view: ModelsView }) {
  const status = view.overview.status;
  if (!status) return null;
  const jobs = view.embeddingJobs;
  return (
    <div className="space-y-4">
      <div className="overflow-x-auto">
        <table className="w-full text-left text-sm" aria-label="Loaded models">
          <thead className="border-b border-slate-200 text-xs uppercase tracking-wide text-slate-500">
            <tr>
              <th scope="col" className="py-2 pr-4">
                Role
              </th>
              <th scope="col" className="py-2 pr-4">
                Model
              </th>
              <th scope="col" className="py-2 pr-4">
                Precision
              </th>
              <th scope="col" className="py-2 pr-4">
                Size
              </th>
              <th scope="col" className="py-2">
                From
              </th>
            </tr>
          </thead>
          <tbody>
            <ModelRow role="Embedding" slot={status.embedder} />
            <ModelRow role="Re-ranking" slot={status.crossEncoder} />
          </tbody>
        </table>
      </div>
      <dl className="grid grid-cols-[auto_minmax(0,1fr)] gap-x-6 gap-y-1 text-sm" data-testid="model-runtime">
        <dt className="text-slate-500">Runs in</dt>
        <dd>
          {status.mode === "service" ? (
            <>
              the inference service at <code>{status.url}</code>
            </>
          ) : (
            "this server's worker threads"
          )}
        </dd>
        <dt className="text-slate-500">Collections</dt>
        <dd data-testid="embedding-jobs">
          {jobs.running + jobs.queued === 0
            ? "No collection is waiting to be embedded"
            : `${count(jobs.running, "collection")} being embedded, ${jobs.queued} waiting`}
          {jobs.failed > 0 && <span className="text-rose-700">; {count(jobs.failed, "collection")} could not be embedded</span>} ·{" "}
          <Link href="/knowledge-bases" className="text-brand-700 underline">
            progress per knowledge base
          </Link>
        </dd>
      </dl>
      <TechnicalDetails view={view} />
    </div>
  );
}

export function ModelSettings({ initial }: { initial: ModelsView }) {
  const [view, setView] = useState(initial);
  const [f, setF] = useState<ModelSettingsInput>({
    enabled: initial.form.enabled,
    precision: initial.form.precision,
    embedder: initial.form.embedder,
    crossEncoder: initial.form.crossEncoder,
  });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [saved, setSaved] = useState<number | null>(null);

  const save = useMutation({
    mutationFn: (input: ModelSettingsInput) => unwrap(saveModelSettingsAction(input)),
    onSuccess: ({ view: next, queued }) => {
      setView(next);
      setSaved(queued);
    },
    onError: (e) => setErrors(e instanceof ActionFailure ? e.fields : {}),
  });
  const refresh = useMutation({ mutationFn: () => unwrap(getModelsViewAction({})), onSuccess: setView });

  const update = (patch: Partial<ModelSettingsInput>) => {
    setF((prev) => ({ ...prev, ...patch }));
    setSaved(null);
    setErrors((prev) => Object.fromEntries(Object.entries(prev).filter(([k]) => !(k in patch))));
  };

  function onSubmit(e: FormEvent) {
    e.preventDefault();
    const parsed = modelSettingsInputSchema.safeParse(f);
    if (!parsed.success) {
      setErrors(Object.fromEntries(parsed.error.issues.map((i) => [String(i.path[0]), i.message])));
      return;
    }
    setErrors({});
    save.mutate(parsed.data);
  }

  const d = view.form.defaults;
  return (
    <form onSubmit={onSubmit} noValidate className="max-w-4xl space-y-6" aria-label="Model settings">
      <section aria-labelledby="models-heading" className="space-y-4 rounded-lg border border-slate-200 bg-white p-5">
        <div className="flex flex-wrap items-center justify-between gap-3">
          <h2 id="models-heading" className="text-lg font-semibold">
            Ranking models
          </h2>
          <Button variant="ghost" onClick={() => refresh.mutate()} disabled={refresh.isPending}>
            {refresh.isPending ? "Checking…" : "Check again"}
          </Button>
        </div>
        <p className="text-sm text-slate-600">
          Local models that rank evidence, sources and guides by meaning, so a question in other words (or with a typo) still finds its
          answer. They run in background worker threads, or in an inference service, never in the request itself; when they are unavailable,
          every ranking falls back to keyword search.
        </p>
        <StatusBanner view={view} />
        <Runtime view={view} />
      </section>

      <section aria-labelledby="model-choice-heading" className="space-y-4 rounded-lg border border-slate-200 bg-white p-5">
        <div className="flex flex-wrap items-center justify-between gap-3">
          <h2 id="model-choice-heading" className="text-lg font-semibold">
            Which models
          </h2>
          <label htmlFor="models-enabled" className="flex items-center gap-2 text-sm font-medium">
            <input id="models-enabled" type="checkbox" checked={f.enabled} onChange={(e) => update({ enabled: e.target.checked })} />
            Rank by meaning with local models
          </label>
        </div>
        <div className="grid gap-4 md:grid-cols-3">
          <Field
            id="models-precision"
            label="Precision"
            hint="int8 is about twice as fast; fp32 is exact. Changing it embeds every collection again."
          >
            <SelectInput
              id="models-precision"
              value={f.precision}
              onChange={(e) => update({ precision: e.target.value as "int8" | "fp32" })}
            >
              <option value="int8">int8 (faster{d.precision === "int8" ? ", default" : ""})</option>
              <option value="fp32">fp32 (exact{d.precision === "fp32" ? ", default" : ""})</option>
            </SelectInput>
          </Field>
          <Field id="models-embedder" label="Embedding model" error={errors.embedder} hint={`Empty: ${d.embedder}`}>
            <TextInput
              id="models-embedder"
              autoComplete="off"
              spellCheck={false}
              placeholder={d.embedder}
              value={f.embedder}
              invalid={!!errors.embedder}
              onChange={(e) => update({ embedder: e.target.value })}
            />
          </Field>
          <Field
            id="models-cross-encoder"
            label="Cross-encoder for re-ranking"
            error={errors.crossEncoder}
            hint={
              d.crossEncoder
                ? `Empty: ${d.crossEncoder}`
                : "Optional, e.g. cross-encoder/ms-marco-MiniLM-L-6-v2 (from MODELS_DIR or the model hub)"
            }
          >
            <TextInput
              id="models-cross-encoder"
              autoComplete="off"
              spellCheck={false}
              placeholder={d.crossEncoder || "none"}
              value={f.crossEncoder}
              invalid={!!errors.crossEncoder}
              onChange={(e) => update({ crossEncoder: e.target.value })}
            />
          </Field>
        </div>
        <div className="flex flex-wrap items-center gap-3">
          <Button type="submit" disabled={save.isPending}>
            {save.isPending ? "Saving…" : "Save model settings"}
          </Button>
          <div aria-live="polite" data-testid="models-saved">
            {saved !== null && (
              <span className="text-sm text-emerald-700">
                Saved.
                {saved > 0 &&
                  ` ${count(saved, "collection")} will be embedded again in the background; each shows its progress on Knowledge bases.`}
              </span>
            )}
            {save.error && !Object.keys(errors).length && <Alert tone="error">{save.error.message}</Alert>}
          </div>
        </div>
      </section>
    </form>
  );
}
