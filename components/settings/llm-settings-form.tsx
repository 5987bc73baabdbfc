"use client";

import { useMutation } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { saveLlmSettingsAction, testLlmConnectionAction } from "@/lib/actions/settings";
import { ActionFailure, unwrap } from "@/lib/actions/unwrap";
import { STRUCTURED_OUTPUT_MODES, type StructuredOutputMode } from "@/lib/llm/config";
import type { LlmSettingsView } from "@/lib/settings/llm-settings";
import { type ApiKeyChange, type LlmSettingsInput, llmSettingsInputSchema } from "@/lib/settings/llm-settings.validation";
import { Alert } from "../ui/alert";
import { Button } from "../ui/button";
import { Field, SelectInput, TextInput } from "../ui/field";
import { DateTime } from "../ui/locale";

type KeyMode = "keep" | "replace" | "clear";

interface FormState {
  enabled: boolean;
  baseUrl: string;
  model: string;
  keyMode: KeyMode;
  newKey: string;
  stages: LlmSettingsView["stages"];
  timeoutMs: string;
  maxRetries: string;
  structuredOutputs: StructuredOutputMode;
  prices: { model: string; input: string; output: string }[];
}

const MODE_LABELS: Record<StructuredOutputMode, string> = {
  auto: "Automatic (recommended)",
  json_schema: "JSON schema only",
  json_object: "JSON mode only",
  prompt: "JSON asked in the prompt",
};

function stateOf(view: LlmSettingsView): FormState {
  return {
    enabled: view.enabled,
    baseUrl: view.baseUrl,
    model: view.model,
    keyMode: "keep",
    newKey: "",
    stages: view.stages,
    timeoutMs: view.timeoutMs === null ? "" : String(view.timeoutMs),
    maxRetries: view.maxRetries === null ? "" : String(view.maxRetries),
    structuredOutputs: view.structuredOutputs,
    prices: view.prices.map((p) => ({ model: p.model, input: String(p.input), output: String(p.output) })),
  };
}

function keyChange(f: FormState): ApiKeyChange {
  if (f.keyMode === "replace") return { action: "replace", value: f.newKey };
  return { action: f.keyMode };
}

const toNumber = (v: string): number | null => (v.trim() === "" ? null : Number(v));
/** A blank price is a missing price, not $0. */
const toPrice = (v: string): number => (v.trim() === "" ? Number.NaN : Number(v));

function inputOf(f: FormState): LlmSettingsInput {
  return {
    enabled: f.enabled,
    baseUrl: f.baseUrl.trim(),
    model: f.model.trim(),
    apiKey: keyChange(f),
    stages: f.stages.map((s) => ({ stage: s.stage, enabled: s.enabled, model: s.model.trim() })),
    timeoutMs: toNumber(f.timeoutMs),
    maxRetries: toNumber(f.maxRetries),
    structuredOutputs: f.structuredOutputs,
    prices: f.prices.map((p) => ({ model: p.model.trim(), input: toPrice(p.input), output: toPrice(p.output) })),
  };
}

/** Field errors keyed like the inputs' ids: "baseUrl", "apiKey", "prices.0.model". */
function errorsOf(issues: { path: PropertyKey[]; message: string }[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const i of issues) {
    const key = i.path[0] === "apiKey" ? "apiKey" : i.path.map(String).join(".");
    out[key] ??= i.message;
  }
  return out;
}

function LastFailure({ failure }: { failure: NonNullable<LlmSettingsView["lastFailure"]> }) {
  return (
    <Alert tone="error">
      <span data-testid="llm-last-failure">
        A run on <DateTime value={failure.at} /> could not use the LLM: {failure.message}.
      </span>{" "}
      It ran its classical strategies instead. Fix the settings below, check them with Test connection, and save.
    </Alert>
  );
}

function StatusBanner({ view }: { view: LlmSettingsView }) {
  const { status, problems, baseUrl, model } = view.effective;
  const off = view.stages.filter((s) => !s.enabled).map((s) => s.label.toLowerCase());
  if (status === "ready") {
    const which = off.length === 0 ? "Every stage asks" : `${view.stages.length - off.length} of ${view.stages.length} stages ask`;
    return (
      <Alert tone="success">
        <span data-testid="llm-status">On</span>: {which} <strong>{model}</strong> at <code className="break-all">{baseUrl}</code> first and
        fall back to their classical strategy when the model fails.
        {off.length > 0 && ` Classical only: ${off.join(", ")}.`}
      </Alert>
    );
  }
  if (status === "misconfigured") {
    return (
      <Alert tone="error">
        <span data-testid="llm-status">Not usable</span>: runs use the classical strategies until this is fixed.
        <ul className="mt-1 list-disc pl-5">
          {problems.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      </Alert>
    );
  }
  const ticked = view.stages.length - off.length;
  return (
    <Alert tone="info">
      <span data-testid="llm-status">Off</span>:{" "}
      {!view.enabled
        ? "the LLM is switched off (Use an LLM, below), so every stage runs its classical strategy."
        : ticked === 0
          ? "no stage is ticked to use the LLM, so every stage runs its classical strategy."
          : `no endpoint and model are saved, so every stage runs its classical strategy. The ${ticked === view.stages.length ? "stages" : `${ticked} stages`} ticked below will ask the LLM once an endpoint and a model are saved.`}
      {problems.length > 0 && <span className="block">{problems.join(" ")}</span>}
    </Alert>
  );
}

export function LlmSettingsForm({ initial }: { initial: LlmSettingsView }) {
  const [view, setView] = useState(initial);
  const [f, setF] = useState<FormState>(() => stateOf(initial));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [saved, setSaved] = useState(false);

  const save = useMutation({
    mutationFn: (input: LlmSettingsInput) => unwrap(saveLlmSettingsAction(input)),
    onSuccess: (next) => {
      setView(next);
      setF(stateOf(next));
      setSaved(true);
    },
    onError: (e) => setErrors(e instanceof ActionFailure ? e.fields : {}),
  });
  const test = useMutation({
    mutationFn: () => unwrap(testLlmConnectionAction({ baseUrl: f.baseUrl.trim(), model: f.model.trim(), apiKey: keyChange(f) })),
  });

  const update = (patch: Partial<FormState>) => {
    setF((prev) => ({ ...prev, ...patch }));
    setSaved(false);
    // An edited field's error goes with the edit; the others stay until the next save.
    const touched = Object.keys(patch).map((k) => (k === "newKey" || k === "keyMode" ? "apiKey" : k));
    setErrors((prev) => Object.fromEntries(Object.entries(prev).filter(([k]) => !touched.some((t) => k === t || k.startsWith(`${t}.`)))));
  };

  function onSubmit(e: FormEvent) {
    e.preventDefault();
    const parsed = llmSettingsInputSchema.safeParse(inputOf(f));
    if (!parsed.success) {
      setErrors(errorsOf(parsed.error.issues));
      return;
    }
    setErrors({});
    save.mutate(parsed.data);
  }

  function onTest() {
    if (f.keyMode === "replace" && !f.newKey.trim()) {
      setErrors({ ...errors, apiKey: "Paste the new API key, or choose to keep the current one." });
      return;
    }
    test.mutate();
  }

  const keyStatus = view.apiKey.set
    ? view.apiKey.source === "settings"
      ? "Set (stored encrypted)"
      : "Set in the environment (LLM_API_KEY)"
    : "Not set";

  return (
    <form onSubmit={onSubmit} noValidate className="max-w-4xl space-y-6" aria-label="LLM settings">
      <StatusBanner view={view} />
      {view.lastFailure && view.effective.status === "ready" && <LastFailure failure={view.lastFailure} />}

      <section aria-labelledby="endpoint-heading" className="space-y-4 rounded-lg border border-slate-200 bg-white p-5">
        <div className="flex flex-wrap items-center justify-between gap-3">
          <h2 id="endpoint-heading" className="text-lg font-semibold">
            Endpoint
          </h2>
          <label htmlFor="llm-enabled" className="flex items-center gap-2 text-sm font-medium">
            <input id="llm-enabled" type="checkbox" checked={f.enabled} onChange={(e) => update({ enabled: e.target.checked })} />
            Use an LLM for the enabled stages
          </label>
        </div>
        <div className="grid gap-4 md:grid-cols-2">
          <Field
            id="llm-base-url"
            label="Base URL"
            error={errors.baseUrl}
            hint={
              view.defaults.baseUrl
                ? `Empty: the environment's ${view.defaults.baseUrl}`
                : "e.g. https://api.openai.com/v1 or http://localhost:11434/v1 (Ollama)"
            }
          >
            <TextInput
              id="llm-base-url"
              type="url"
              inputMode="url"
              autoComplete="off"
              spellCheck={false}
              placeholder={view.defaults.baseUrl || "https://api.openai.com/v1"}
              value={f.baseUrl}
              invalid={!!errors.baseUrl}
              onChange={(e) => update({ baseUrl: e.target.value })}
            />
          </Field>
          <Field
            id="llm-model"
            label="Default model"
            error={errors.model}
            hint={view.defaults.model ? `Empty: the environment's ${view.defaults.model}` : "e.g. gpt-4o-mini, llama3.1:8b"}
          >
            <TextInput
              id="llm-model"
              autoComplete="off"
              spellCheck={false}
              placeholder={view.defaults.model || "gpt-4o-mini"}
              value={f.model}
              invalid={!!errors.model}
              onChange={(e) => update({ model: e.target.value })}
            />
          </Field>
        </div>

        <fieldset className="space-y-2" aria-describedby="llm-key-status">
          <legend className="text-sm font-medium text-slate-800">API key</legend>
          <p id="llm-key-status" className="text-sm text-slate-700" data-testid="llm-key-status">
            {keyStatus}
            {f.keyMode === "clear" && <span className="text-rose-700"> · will be cleared when you save</span>}
          </p>
          {f.keyMode === "replace" ? (
            <div className="flex flex-wrap items-start gap-2">
              <div className="min-w-64 flex-1">
                <label htmlFor="llm-new-key" className="sr-only">
                  New API key
                </label>
                <TextInput
                  id="llm-new-key"
                  type="password"
                  autoComplete="new-password"
                  spellCheck={false}
                  placeholder="Paste the new key"
                  value={f.newKey}
                  invalid={!!errors.apiKey}
                  onChange={(e) => update({ newKey: e.target.value })}
                />
                {errors.apiKey && (
                  <p id="llm-new-key-error" role="alert" className="mt-1 text-xs text-rose-700">
                    {errors.apiKey}
                  </p>
                )}
              </div>
              <Button variant="ghost" onClick={() => update({ keyMode: "keep", newKey: "" })}>
                {view.apiKey.set ? "Keep the current key" : "Cancel"}
              </Button>
            </div>
          ) : (
            <div className="flex flex-wrap gap-2">
              <Button variant="secondary" onClick={() => update({ keyMode: "replace" })}>
                {view.apiKey.set ? "Replace key" : "Add a key"}
              </Button>
              {view.apiKey.source === "settings" &&
                (f.keyMode === "clear" ? (
                  <Button variant="ghost" onClick={() => update({ keyMode: "keep" })}>
                    Undo clear
                  </Button>
                ) : (
                  <Button variant="ghost" onClick={() => update({ keyMode: "clear" })}>
                    Clear key
                  </Button>
                ))}
            </div>
          )}
          <p className="text-xs text-slate-500">
            Stored encrypted and never shown again. Local servers (Ollama, llama.cpp, vLLM) usually need none.
          </p>
        </fieldset>

        <div className="flex flex-wrap items-center gap-3">
          <Button variant="secondary" onClick={onTest} disabled={test.isPending}>
            {test.isPending ? "Testing…" : "Test connection"}
          </Button>
          <span className="text-xs text-slate-500">Tests the values above, saved or not.</span>
        </div>
        <div aria-live="polite" className="min-h-0" data-testid="llm-test-result">
          {test.data && <Alert tone={test.data.ok ? "success" : "error"}>{test.data.message}</Alert>}
          {test.error && <Alert tone="error">{test.error.message}</Alert>}
        </div>
      </section>

      <section aria-labelledby="stages-heading" className="rounded-lg border border-slate-200 bg-white p-5">
        <h2 id="stages-heading" className="mb-1 text-lg font-semibold">
          Stages
        </h2>
        <p className="mb-3 text-sm text-slate-600">
          A stage with the LLM on asks the model first; its classical strategy runs when the model is unavailable, too slow, or answers with
          output that fails validation. The run records which one ran.
        </p>
        <div className="overflow-x-auto">
          <table className="w-full text-left text-sm">
            <thead className="border-b border-slate-200 text-xs uppercase tracking-wide text-slate-500">
              <tr>
                <th scope="col" className="py-2 pr-4">
                  Stage
                </th>
                <th scope="col" className="py-2 pr-4">
                  Use the LLM
                </th>
                <th scope="col" className="py-2 pr-4">
                  Runs now
                </th>
                <th scope="col" className="py-2">
                  Model (empty: the default model)
                </th>
              </tr>
            </thead>
            <tbody>
              {f.stages.map((s, i) => (
                <tr key={s.stage} className="border-b border-slate-100 last:border-0">
                  <th scope="row" className="py-2 pr-4 font-medium">
                    {s.label}
                  </th>
                  <td className="py-2 pr-4">
                    <input
                      id={`llm-stage-${s.stage}`}
                      type="checkbox"
                      aria-label={`Use the LLM for ${s.label.toLowerCase()}`}
                      checked={s.enabled}
                      onChange={(e) => update({ stages: f.stages.map((x, j) => (j === i ? { ...x, enabled: e.target.checked } : x)) })}
                    />
                  </td>
                  <td className="py-2 pr-4 text-xs text-slate-600" data-testid={`llm-stage-now-${s.stage}`}>
                    {/* What the saved settings do now, whatever the boxes say before saving. */}
                    {view.effective.status === "ready" && view.stages.find((v) => v.stage === s.stage)?.enabled
                      ? "LLM, classical as fallback"
                      : "Classical"}
                  </td>
                  <td className="py-2">
                    <TextInput
                      id={`llm-stage-model-${s.stage}`}
                      aria-label={`Model for ${s.label.toLowerCase()}`}
                      autoComplete="off"
                      spellCheck={false}
                      placeholder={f.model || s.defaultModel || "default model"}
                      value={s.model}
                      onChange={(e) => update({ stages: f.stages.map((x, j) => (j === i ? { ...x, model: e.target.value } : x)) })}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>

      <section aria-labelledby="limits-heading" className="space-y-4 rounded-lg border border-slate-200 bg-white p-5">
        <h2 id="limits-heading" className="text-lg font-semibold">
          Requests
        </h2>
        <div className="grid gap-4 md:grid-cols-3">
          <Field
            id="llm-timeout"
            label="Timeout per request (ms)"
            error={errors.timeoutMs}
            hint={`Empty: ${view.defaults.timeoutMs.toLocaleString("en")} ms`}
          >
            <TextInput
              id="llm-timeout"
              inputMode="numeric"
              placeholder={String(view.defaults.timeoutMs)}
              value={f.timeoutMs}
              invalid={!!errors.timeoutMs}
              onChange={(e) => update({ timeoutMs: e.target.value })}
            />
          </Field>
          <Field
            id="llm-retries"
            label="Retries (429, 5xx, timeouts)"
            error={errors.maxRetries}
            hint={`Empty: ${view.defaults.maxRetries}. Backoff honours Retry-After.`}
          >
            <TextInput
              id="llm-retries"
              inputMode="numeric"
              placeholder={String(view.defaults.maxRetries)}
              value={f.maxRetries}
              invalid={!!errors.maxRetries}
              onChange={(e) => update({ maxRetries: e.target.value })}
            />
          </Field>
          <Field id="llm-json-mode" label="Structured output" hint="Automatic suits every server; it remembers what each one accepts.">
            <SelectInput
              id="llm-json-mode"
              value={f.structuredOutputs}
              onChange={(e) => update({ structuredOutputs: e.target.value as StructuredOutputMode })}
            >
              {STRUCTURED_OUTPUT_MODES.map((m) => (
                <option key={m} value={m}>
                  {MODE_LABELS[m]}
                </option>
              ))}
            </SelectInput>
          </Field>
        </div>
      </section>

      <section aria-labelledby="prices-heading" className="space-y-3 rounded-lg border border-slate-200 bg-white p-5">
        <h2 id="prices-heading" className="text-lg font-semibold">
          Prices
        </h2>
        <p className="text-sm text-slate-600">
          Runs estimate their cost from these prices (USD per million tokens). OpenAI&apos;s models are built in; add local or other models
          here, or correct a built-in price. A model without a price counts as $0, marked &quot;price unknown&quot;.
        </p>
        {f.prices.length > 0 && (
          <table className="w-full text-left text-sm">
            <thead className="text-xs uppercase tracking-wide text-slate-500">
              <tr>
                <th scope="col" className="py-1 pr-2">
                  Model
                </th>
                <th scope="col" className="py-1 pr-2">
                  Input ($/M tokens)
                </th>
                <th scope="col" className="py-1 pr-2">
                  Output ($/M tokens)
                </th>
                <th scope="col">
                  <span className="sr-only">Remove</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {f.prices.map((p, i) => {
                const set = (patch: Partial<FormState["prices"][number]>) =>
                  update({ prices: f.prices.map((x, j) => (j === i ? { ...x, ...patch } : x)) });
                const err = (k: string) => errors[`prices.${i}.${k}`];
                return (
                  <tr key={i} className="align-top">
                    <td className="py-1 pr-2">
                      <TextInput
                        id={`llm-price-model-${i}`}
                        aria-label={`Model of price ${i + 1}`}
                        value={p.model}
                        invalid={!!err("model")}
                        onChange={(e) => set({ model: e.target.value })}
                      />
                      {err("model") && (
                        <p id={`llm-price-model-${i}-error`} role="alert" className="mt-1 text-xs text-rose-700">
                          {err("model")}
                        </p>
                      )}
                    </td>
                    <td className="py-1 pr-2">
                      <TextInput
                        id={`llm-price-input-${i}`}
                        aria-label={`Input price of ${p.model || `price ${i + 1}`}`}
                        inputMode="decimal"
                        value={p.input}
                        invalid={!!err("input")}
                        onChange={(e) => set({ input: e.target.value })}
                      />
                      {err("input") && (
                        <p id={`llm-price-input-${i}-error`} role="alert" className="mt-1 text-xs text-rose-700">
                          {err("input")}
                        </p>
                      )}
                    </td>
                    <td className="py-1 pr-2">
                      <TextInput
                        id={`llm-price-output-${i}`}
                        aria-label={`Output price of ${p.model || `price ${i + 1}`}`}
                        inputMode="decimal"
                        value={p.output}
                        invalid={!!err("output")}
                        onChange={(e) => set({ output: e.target.value })}
                      />
                      {err("output") && (
                        <p id={`llm-price-output-${i}-error`} role="alert" className="mt-1 text-xs text-rose-700">
                          {err("output")}
                        </p>
                      )}
                    </td>
                    <td className="py-1">
                      <Button
                        variant="ghost"
                        aria-label={`Remove the price of ${p.model || `row ${i + 1}`}`}
                        onClick={() => update({ prices: f.prices.filter((_, j) => j !== i) })}
                      >
                        Remove
                      </Button>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        )}
        <Button variant="secondary" onClick={() => update({ prices: [...f.prices, { model: "", input: "", output: "" }] })}>
          Add a price
        </Button>
      </section>

      <div className="flex flex-wrap items-center gap-3">
        <Button type="submit" disabled={save.isPending}>
          {save.isPending ? "Saving…" : "Save settings"}
        </Button>
        <div aria-live="polite">
          {saved && !save.isPending && <Alert tone="success">Saved. The next run uses these settings.</Alert>}
          {save.error && !Object.keys(errors).length && <Alert tone="error">{save.error.message}</Alert>}
          {Object.keys(errors).length > 0 && <Alert tone="error">Some fields need attention.</Alert>}
        </div>
      </div>
    </form>
  );
}
