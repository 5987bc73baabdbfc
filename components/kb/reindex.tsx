"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useEffect } from "react";
import { reindexAction, reindexStatusAction } from "@/lib/actions/knowledge-bases";
import { unwrap } from "@/lib/actions/unwrap";
import type { JobView } from "@/lib/jobs/queue";
import { Alert } from "../ui/alert";
import { Button } from "../ui/button";

const POLL_MS = 2_000;

/**
 * For a collection in OpenSearch: build its index again (after an upgrade changed the index layout, or
 * when the cluster reports a damaged or incompatible index). The collection answers from its current
 * index until the new one is complete and checked.
 */
export function Reindex({ kbId, initial }: { kbId: string; initial: JobView | null }) {
  const router = useRouter();
  const status = useQuery({
    queryKey: ["reindex", kbId],
    queryFn: () => unwrap(reindexStatusAction({ id: kbId })),
    initialData: initial,
    refetchInterval: (q) => (q.state.data && ["QUEUED", "RUNNING"].includes(q.state.data.status) ? POLL_MS : false),
  });
  const start = useMutation({ mutationFn: () => unwrap(reindexAction({ id: kbId })), onSuccess: () => status.refetch() });
  const job = status.data;
  const active = job && (job.status === "QUEUED" || job.status === "RUNNING");
  useEffect(() => {
    if (job?.status === "SUCCEEDED") router.refresh();
  }, [job?.status, router]);
  const pct = job?.progressTotal ? Math.floor((100 * job.progressDone) / job.progressTotal) : 0;
  return (
    <section aria-labelledby="reindex-heading" className="rounded-lg border border-slate-200 bg-white p-4 text-sm" data-testid="reindex">
      <h2 id="reindex-heading" className="mb-1 font-semibold">
        Search index
      </h2>
      <p className="mb-3 text-xs text-slate-600">
        Builds the collection&apos;s index in OpenSearch again, beside the current one, and switches to it once it is checked.
      </p>
      {active && job.progressTotal ? (
        <div
          className="mb-2 h-2 w-full overflow-hidden rounded bg-slate-100"
          role="progressbar"
          aria-label="Records re-indexed"
          aria-valuemin={0}
          aria-valuemax={job.progressTotal}
          aria-valuenow={job.progressDone}
        >
          <div className="h-full bg-brand-600 transition-all" style={{ width: `${pct}%` }} />
        </div>
      ) : null}
      {job && (
        <p
          className={job.status === "FAILED" ? "mb-2 text-rose-800" : "mb-2 text-slate-700"}
          aria-live="polite"
          data-testid="reindex-status"
        >
          {job.status === "FAILED" ? `Re-indexing failed: ${job.error ?? job.message}` : job.message}
        </p>
      )}
      {start.error && <Alert tone="error">{start.error.message}</Alert>}
      {!active && (
        <Button type="button" variant="secondary" disabled={start.isPending} onClick={() => start.mutate()}>
          {start.isPending ? "Starting…" : "Rebuild the index"}
        </Button>
      )}
    </section>
  );
}
