"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { moveStatusAction, moveToOpenSearchAction } from "@/lib/actions/knowledge-bases";
import { unwrap } from "@/lib/actions/unwrap";
import type { JobView } from "@/lib/jobs/queue";
import { Alert } from "../ui/alert";
import { Button } from "../ui/button";
import { Field, TextInput } from "../ui/field";

const POLL_MS = 2_000;

/**
 * For a collection kept on this server: move it to an OpenSearch cluster. The move is a background
 * job (copy, verify, switch); the collection keeps answering from this server until it is done.
 */
export function MoveToOpenSearch({ kbId, initial }: { kbId: string; initial: JobView | null }) {
  const router = useRouter();
  const [f, setF] = useState({ searchUrl: "", user: "", password: "" });
  const status = useQuery({
    queryKey: ["move", kbId],
    queryFn: () => unwrap(moveStatusAction({ id: kbId })),
    initialData: initial,
    refetchInterval: (q) => (q.state.data && ["QUEUED", "RUNNING"].includes(q.state.data.status) ? POLL_MS : false),
  });
  const move = useMutation({ mutationFn: () => unwrap(moveToOpenSearchAction({ id: kbId, ...f })), onSuccess: () => status.refetch() });
  const job = status.data;
  const active = job && (job.status === "QUEUED" || job.status === "RUNNING");
  // Once moved, the page's connection details change: show them.
  useEffect(() => {
    if (job?.status === "SUCCEEDED") router.refresh();
  }, [job?.status, router]);
  const set = (k: keyof typeof f) => (e: { target: { value: string } }) => setF({ ...f, [k]: e.target.value });
  return (
    <section
      aria-labelledby="move-heading"
      className="rounded-lg border border-slate-200 bg-white p-4 text-sm"
      data-testid="move-to-opensearch"
    >
      <h2 id="move-heading" className="mb-1 font-semibold">
        Move to an OpenSearch cluster
      </h2>
      <p className="mb-3 text-xs text-slate-600">
        For large collections, or several app servers. The collection is copied in the background and keeps answering from this server until
        the copy is checked.
      </p>
      {job && (
        <p className={job.status === "FAILED" ? "mb-2 text-rose-800" : "mb-2 text-slate-700"} aria-live="polite" data-testid="move-status">
          {job.status === "FAILED" ? `The move failed: ${job.error ?? job.message}` : job.message}
        </p>
      )}
      {!active && job?.status !== "SUCCEEDED" && (
        <form
          className="space-y-2"
          aria-label="Move to OpenSearch"
          onSubmit={(e) => {
            e.preventDefault();
            move.mutate();
          }}
        >
          <Field id="move-url" label="Cluster address (optional)" hint="Empty: the cluster this server is configured with (SEARCH_URL).">
            <TextInput
              id="move-url"
              type="url"
              placeholder="https://search.example.com:9200"
              value={f.searchUrl}
              onChange={set("searchUrl")}
            />
          </Field>
          <div className="grid gap-2 sm:grid-cols-2">
            <Field id="move-user" label="User (optional)">
              <TextInput id="move-user" autoComplete="off" value={f.user} onChange={set("user")} />
            </Field>
            <Field id="move-password" label="Password" hint="Stored encrypted.">
              <TextInput id="move-password" type="password" autoComplete="new-password" value={f.password} onChange={set("password")} />
            </Field>
          </div>
          {move.error && <Alert tone="error">{move.error.message}</Alert>}
          <Button type="submit" variant="secondary" disabled={move.isPending}>
            {move.isPending ? "Starting…" : "Move to OpenSearch"}
          </Button>
        </form>
      )}
    </section>
  );
}
