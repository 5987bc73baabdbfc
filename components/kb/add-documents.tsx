"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { queuedUploadsAction, retryUploadsAction } from "@/lib/actions/knowledge-bases";
import { ActionFailure, unwrap } from "@/lib/actions/unwrap";
import type { QueuedUploads } from "@/lib/ingest/documents/upload-queue";
import { count } from "@/lib/format/count";
import { Alert } from "../ui/alert";
import { Button } from "../ui/button";
import { FileDropZone } from "../ui/file-drop-zone";

const POLL_MS = 2_000;
const ACCEPT = ".txt,.md,.markdown,.html,.htm,.pdf,.csv,.json";

async function upload(kbId: string, files: File[]): Promise<QueuedUploads> {
  const body = new FormData();
  body.set("payload", "{}");
  for (const f of files) body.append("files", f);
  let res: Response;
  try {
    res = await fetch(`/api/knowledge-bases/${encodeURIComponent(kbId)}/documents`, { method: "POST", body });
  } catch {
    throw new ActionFailure("Could not reach the server. Check your connection and try again.");
  }
  const json = await res.json().catch(() => null);
  if (!res.ok) throw new ActionFailure(json?.error?.message ?? `The upload failed (HTTP ${res.status}).`, json?.error?.fields ?? {});
  return json;
}

/**
 * Adds documents to a collection. The files are kept by the server and added in the background, so a
 * search cluster that is away loses nothing: they wait, the reason is shown, and they are added when it answers.
 */
export function AddDocuments({ kbId, initial }: { kbId: string; initial: QueuedUploads }) {
  const router = useRouter();
  const [files, setFiles] = useState<File[]>([]);
  const status = useQuery({
    queryKey: ["uploads", kbId],
    queryFn: () => unwrap(queuedUploadsAction({ id: kbId })),
    initialData: initial,
    refetchInterval: (q) => {
      const d = q.state.data;
      return d && (d.waiting > 0 || (d.job && ["QUEUED", "RUNNING"].includes(d.job.status))) ? POLL_MS : false;
    },
  });
  const send = useMutation({
    mutationFn: () => upload(kbId, files),
    onSuccess: () => {
      setFiles([]);
      void status.refetch();
    },
  });
  const retry = useMutation({ mutationFn: () => unwrap(retryUploadsAction({ id: kbId })), onSuccess: () => status.refetch() });
  const { waiting, job } = status.data;
  // Once added, the collection's counts and descriptor change: show them.
  useEffect(() => {
    if (job?.status === "SUCCEEDED" && waiting === 0) router.refresh();
  }, [job?.status, waiting, router]);
  return (
    <section
      aria-labelledby="add-docs-heading"
      className="rounded-lg border border-slate-200 bg-white p-4 text-sm"
      data-testid="add-documents"
    >
      <h2 id="add-docs-heading" className="mb-2 font-semibold">
        Add documents
      </h2>
      {job && (
        <p
          className={job.status === "FAILED" ? "mb-2 text-rose-800" : "mb-2 text-slate-700"}
          aria-live="polite"
          data-testid="add-documents-status"
        >
          {waiting > 0 ? `${count(waiting, "document")} waiting. ` : ""}
          {job.status === "FAILED" ? `Adding stopped: ${job.error ?? job.message}` : job.message}
        </p>
      )}
      {waiting > 0 && job?.status !== "RUNNING" && (
        <Button type="button" variant="secondary" className="mb-3" disabled={retry.isPending} onClick={() => retry.mutate()}>
          Try again now
        </Button>
      )}
      <form
        className="space-y-2"
        aria-label="Add documents"
        onSubmit={(e) => {
          e.preventDefault();
          send.mutate();
        }}
      >
        <FileDropZone id="add-docs-files" label="Files" accept={ACCEPT} multiple files={files} onChange={setFiles} />
        {send.error && <Alert tone="error">{send.error.message}</Alert>}
        {retry.error && <Alert tone="error">{retry.error.message}</Alert>}
        <Button type="submit" variant="secondary" disabled={send.isPending || files.length === 0}>
          {send.isPending ? "Uploading…" : "Add to the collection"}
        </Button>
      </form>
    </section>
  );
}
