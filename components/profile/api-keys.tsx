"use client";

import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { createApiKeyAction, revokeApiKeyAction } from "@/lib/actions/profile";
import { ActionFailure, unwrap } from "@/lib/actions/unwrap";
import type { ApiKeyView } from "@/lib/auth/api-keys";
import { API_SCOPES, API_SCOPE_LABELS, type ApiScope } from "@/lib/auth/api-keys.validation";
import { Alert } from "../ui/alert";
import { Button } from "../ui/button";
import { Field, SelectInput, TextInput } from "../ui/field";

const day = (iso: string | null) => (iso ? iso.slice(0, 10) : "—");

function KeyTable({ keys, showOwner, label }: { keys: ApiKeyView[]; showOwner: boolean; label: string }) {
  const router = useRouter();
  const revoke = useMutation({
    mutationFn: (id: string) => unwrap(revokeApiKeyAction({ id })),
    onSuccess: () => router.refresh(),
  });
  if (!keys.length) return <p className="text-sm text-slate-500">No API keys yet.</p>;
  return (
    <>
      {revoke.error && <Alert tone="error">{revoke.error.message}</Alert>}
      <table className="w-full text-left text-sm" aria-label={label}>
        <thead className="text-xs uppercase text-slate-500">
          <tr>
            <th className="py-2 pr-3">Name</th>
            {showOwner && <th className="py-2 pr-3">Owner</th>}
            <th className="py-2 pr-3">Key starts with</th>
            <th className="py-2 pr-3">Scopes</th>
            <th className="py-2 pr-3">Expires</th>
            <th className="py-2 pr-3">Last used</th>
            <th className="py-2 pr-3">State</th>
            <th className="py-2" />
          </tr>
        </thead>
        <tbody>
          {keys.map((k) => (
            <tr key={k.id} className="border-t border-slate-100" data-testid="api-key-row">
              <td className="py-2 pr-3">{k.name}</td>
              {showOwner && <td className="py-2 pr-3">{k.owner.email}</td>}
              <td className="py-2 pr-3 font-mono text-xs">{k.prefix}…</td>
              <td className="py-2 pr-3">{k.scopes.join(", ")}</td>
              <td className="py-2 pr-3">{k.expiresAt ? day(k.expiresAt) : "Never"}</td>
              <td className="py-2 pr-3">{day(k.lastUsedAt)}</td>
              <td className="py-2 pr-3">
                {k.state === "revoked" ? `Revoked by ${k.revokedBy ?? "?"}` : k.state === "expired" ? "Expired" : "Active"}
              </td>
              <td className="py-2 text-right">
                {k.state === "active" && (
                  <Button
                    variant="secondary"
                    disabled={revoke.isPending}
                    onClick={() => revoke.mutate(k.id)}
                    aria-label={`Revoke ${k.name}`}
                  >
                    Revoke
                  </Button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}

/**
 * The profile's API keys: create one (the token is shown once, here, and never again), see and revoke
 * your own; admins also see and may revoke everyone's.
 */
export function ApiKeys({ own, all }: { own: ApiKeyView[]; all: ApiKeyView[] | null }) {
  const router = useRouter();
  const [name, setName] = useState("");
  const [scopes, setScopes] = useState<ApiScope[]>(["ask", "runs:read", "kbs:read"]);
  const [expiresInDays, setExpiresInDays] = useState<"30" | "90" | "365" | "never">("90");
  const create = useMutation({
    mutationFn: () => unwrap(createApiKeyAction({ name, scopes, expiresInDays })),
    onSuccess: () => {
      setName("");
      router.refresh();
    },
  });
  const errs = create.error instanceof ActionFailure ? create.error.fields : {};
  return (
    <div className="space-y-6">
      <section aria-labelledby="new-key-heading" className="rounded-lg border border-slate-200 bg-white p-4">
        <h2 id="new-key-heading" className="mb-1 font-semibold">
          Create an API key
        </h2>
        <p className="mb-3 text-sm text-slate-600">
          A key acts as you: it reaches only the knowledge bases and runs you may, and only within the scopes you tick. Send it as{" "}
          <code>Authorization: Bearer &lt;key&gt;</code> to <code>/api/v1</code> (the API is described at <code>/api/v1/openapi.json</code>
          ).
        </p>
        <form
          aria-label="Create an API key"
          className="space-y-3"
          onSubmit={(e) => {
            e.preventDefault();
            create.mutate();
          }}
        >
          <Field id="key-name" label="Name" error={errs.name} hint="What uses it, e.g. the nightly report script.">
            <TextInput id="key-name" value={name} onChange={(e) => setName(e.target.value)} />
          </Field>
          <fieldset>
            <legend className="text-sm font-medium">Scopes</legend>
            <div className="grid gap-1 sm:grid-cols-2">
              {API_SCOPES.map((s) => (
                <label key={s} className="flex items-center gap-1.5 text-sm">
                  <input
                    type="checkbox"
                    checked={scopes.includes(s)}
                    onChange={(e) => setScopes(e.target.checked ? [...scopes, s] : scopes.filter((x) => x !== s))}
                  />
                  <code>{s}</code> — {API_SCOPE_LABELS[s]}
                </label>
              ))}
            </div>
            {errs.scopes && <p className="text-xs text-rose-700">{errs.scopes}</p>}
          </fieldset>
          <Field id="key-expiry" label="Expires after">
            <SelectInput id="key-expiry" value={expiresInDays} onChange={(e) => setExpiresInDays(e.target.value as typeof expiresInDays)}>
              <option value="30">30 days</option>
              <option value="90">90 days</option>
              <option value="365">1 year</option>
              <option value="never">Never</option>
            </SelectInput>
          </Field>
          {create.error && !Object.keys(errs).length && <Alert tone="error">{create.error.message}</Alert>}
          <Button type="submit" disabled={create.isPending}>
            {create.isPending ? "Creating…" : "Create key"}
          </Button>
        </form>
        {create.data && (
          <div className="mt-3">
            <Alert tone="success">
              Copy this key now: it is shown only once and Mosaic keeps only a fingerprint of it.
              <code data-testid="new-api-key" className="mt-2 block break-all rounded bg-white p-2 font-mono text-xs">
                {create.data.token}
              </code>
            </Alert>
          </div>
        )}
      </section>
      <section aria-labelledby="own-keys-heading" className="rounded-lg border border-slate-200 bg-white p-4">
        <h2 id="own-keys-heading" className="mb-3 font-semibold">
          Your API keys
        </h2>
        <KeyTable keys={own} showOwner={false} label="Your API keys" />
      </section>
      {all && (
        <section aria-labelledby="all-keys-heading" className="rounded-lg border border-slate-200 bg-white p-4">
          <h2 id="all-keys-heading" className="mb-3 font-semibold">
            Everyone&apos;s API keys (admins)
          </h2>
          <KeyTable keys={all} showOwner label="Everyone's API keys" />
        </section>
      )}
    </div>
  );
}
