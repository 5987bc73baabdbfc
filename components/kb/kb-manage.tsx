"use client";

import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { checkKbAction, deleteKbAction, refreshKbAction, updateKbAction } from "@/lib/actions/knowledge-bases";
import { ActionFailure, unwrap } from "@/lib/actions/unwrap";
import { count } from "@/lib/format/count";
import { Alert } from "../ui/alert";
import { Button } from "../ui/button";
import { Field, TextInput } from "../ui/field";
import { KbAccessFieldset } from "./access-fieldset";

/** Check, re-describe, re-index: each reports what happened and refreshes the page's server data. */
export function KbActions({ id }: { id: string }) {
  const router = useRouter();
  const [message, setMessage] = useState<{ tone: "success" | "error"; text: string } | null>(null);
  const check = useMutation({
    mutationFn: () => unwrap(checkKbAction({ id })),
    onSuccess: (r) => {
      setMessage({ tone: r.ok ? "success" : "error", text: r.message });
      router.refresh();
    },
    onError: (e) => setMessage({ tone: "error", text: e.message }),
  });
  const refresh = useMutation({
    mutationFn: (parts: "describe" | "index") => unwrap(refreshKbAction({ id, parts })),
    onSuccess: (r) => {
      const done = r.status === "HEALTHY";
      const details = [
        r.descriptorVersion && `descriptor version ${r.descriptorVersion}`,
        r.sourceObjects &&
          `${count(r.sourceObjects.created, "source object")} added, ${r.sourceObjects.updated.toLocaleString("en")} updated, ${r.sourceObjects.removed.toLocaleString("en")} removed`,
        r.entities !== undefined && `${count(r.entities, "entity", "entities")} indexed`,
      ].filter(Boolean);
      setMessage({ tone: done ? "success" : "error", text: done ? `Done: ${details.join("; ")}.` : r.message });
      router.refresh();
    },
    onError: (e) => setMessage({ tone: "error", text: e.message }),
  });
  const busy = check.isPending || refresh.isPending;
  return (
    <div className="space-y-2">
      <div className="flex flex-wrap gap-2">
        <Button variant="secondary" disabled={busy} onClick={() => check.mutate()}>
          {check.isPending ? "Checking…" : "Check connection"}
        </Button>
        <Button variant="secondary" disabled={busy} onClick={() => refresh.mutate("describe")}>
          {refresh.isPending && refresh.variables === "describe" ? "Describing…" : "Re-describe"}
        </Button>
        {/* Not "Re-index": that reads as rebuilding a collection's search index, a job of its own (Search index panel). */}
        <Button
          variant="secondary"
          disabled={busy}
          title="Reads again the names this source holds (products, people, places), which questions are matched against"
          onClick={() => refresh.mutate("index")}
        >
          {refresh.isPending && refresh.variables === "index" ? "Refreshing names…" : "Refresh names"}
        </Button>
      </div>
      {message && <Alert tone={message.tone}>{message.text}</Alert>}
    </div>
  );
}

export function KbSettingsForm({
  kb,
  groups,
}: {
  kb: { id: string; name: string; description: string; groupIds: string[]; openToEveryone: boolean };
  groups: { id: string; name: string }[];
}) {
  const router = useRouter();
  const [name, setName] = useState(kb.name);
  const [description, setDescription] = useState(kb.description);
  const [groupIds, setGroupIds] = useState(kb.groupIds);
  const [openToEveryone, setOpenToEveryone] = useState(kb.openToEveryone);
  const save = useMutation({
    mutationFn: () => unwrap(updateKbAction({ id: kb.id, name, description, groupIds, openToEveryone })),
    onSuccess: () => router.refresh(),
  });
  const errs = save.error instanceof ActionFailure ? save.error.fields : {};
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate();
      }}
      className="space-y-3"
      aria-label="Knowledge base settings"
    >
      <Field id="kb-edit-name" label="Name" error={errs.name}>
        <TextInput id="kb-edit-name" value={name} onChange={(e) => setName(e.target.value)} />
      </Field>
      <Field id="kb-edit-description" label="Description" hint="Source selection reads this.">
        <textarea
          id="kb-edit-description"
          rows={3}
          value={description}
          onChange={(e) => setDescription(e.target.value)}
          className="block w-full rounded-md border border-slate-300 px-3 py-2 text-sm"
        />
      </Field>
      <KbAccessFieldset
        idPrefix="kb-edit"
        groups={groups}
        groupIds={groupIds}
        openToEveryone={openToEveryone}
        error={errs.groupIds ?? errs.openToEveryone}
        onChange={(next) => {
          setGroupIds(next.groupIds);
          setOpenToEveryone(next.openToEveryone);
        }}
      />
      {save.error && !Object.keys(errs).length && <Alert tone="error">{save.error.message}</Alert>}
      {save.isSuccess && <Alert tone="success">Saved.</Alert>}
      <Button type="submit" disabled={save.isPending}>
        {save.isPending ? "Saving…" : "Save settings"}
      </Button>
    </form>
  );
}

export function KbDeleteForm({ id, name }: { id: string; name: string }) {
  const router = useRouter();
  const [open, setOpen] = useState(false);
  const [confirmName, setConfirmName] = useState("");
  const del = useMutation({
    mutationFn: () => unwrap(deleteKbAction({ id, confirmName })),
    onSuccess: () => {
      router.push("/knowledge-bases");
      router.refresh();
    },
  });
  const errs = del.error instanceof ActionFailure ? del.error.fields : {};
  if (!open)
    return (
      <Button variant="danger" onClick={() => setOpen(true)}>
        Delete knowledge base…
      </Button>
    );
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        del.mutate();
      }}
      className="space-y-3 rounded-md border border-rose-200 bg-rose-50 p-4"
      aria-label="Delete knowledge base"
    >
      <p className="text-sm text-rose-900">
        This deletes <strong>{name}</strong> and everything derived from it: its source objects, its entity index, its stored files, and the
        parts of extraction guides that use it. Past answers keep their text. This cannot be undone.
      </p>
      <Field id="kb-delete-confirm" label={`Type "${name}" to confirm`} error={errs.confirmName}>
        <TextInput id="kb-delete-confirm" value={confirmName} onChange={(e) => setConfirmName(e.target.value)} autoComplete="off" />
      </Field>
      {del.error && !errs.confirmName && <Alert tone="error">{del.error.message}</Alert>}
      <div className="flex gap-2">
        <Button
          variant="secondary"
          onClick={() => {
            setOpen(false);
            setConfirmName("");
            del.reset();
          }}
        >
          Cancel
        </Button>
        <Button type="submit" variant="danger" disabled={del.isPending || confirmName !== name}>
          {del.isPending ? "Deleting…" : "Delete permanently"}
        </Button>
      </div>
    </form>
  );
}

export function CopyButton({ text, label = "Copy" }: { text: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <Button
      variant="ghost"
      className="text-xs"
      onClick={async () => {
        await navigator.clipboard.writeText(text);
        setCopied(true);
        setTimeout(() => setCopied(false), 1500);
      }}
    >
      {copied ? "Copied" : label}
    </Button>
  );
}
