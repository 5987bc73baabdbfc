"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import { count } from "@/lib/format/count";
import { embedAgainAction, embeddingStatusAction } from "@/lib/actions/knowledge-bases";
import { unwrap } from "@/lib/actions/unwrap";
import type { EmbeddingStatus } from "@/lib/ingest/documents/embedding-queue";
import { Button } from "../ui/button";

const POLL_MS = 2_000;
const fmt = (n: number) => n.toLocaleString("en");

/** "all-MiniLM-L6-v2@int8:d43d…" → "all-MiniLM-L6-v2 (int8)". */
function modelLabel(id: string): string {
  const m = /^(.+)@(int8|fp32):/.exec(id);
  return m ? `${m[1]} (${m[2]})` : id;
}

/**
 * A document collection's vectors for semantic search: the background job's progress while it runs
 * (polled), what it ended with, and a way to start it again after a failure.
 */
export function EmbeddingProgress({ kbId, initial }: { kbId: string; initial: EmbeddingStatus }) {
  const status = useQuery({
    queryKey: ["embedding", kbId],
    queryFn: () => unwrap(embeddingStatusAction({ id: kbId })),
    initialData: initial,
    refetchInterval: (q) => (q.state.data?.job && ["QUEUED", "RUNNING"].includes(q.state.data.job.status) ? POLL_MS : false),
  });
  const again = useMutation({ mutationFn: () => unwrap(embedAgainAction({ id: kbId })), onSuccess: () => status.refetch() });
  const s = status.data;
  const job = s.job;
  const pct = s.rows ? Math.floor((100 * s.embedded) / s.rows) : 0;
  const active = job && (job.status === "QUEUED" || job.status === "RUNNING");
  return (
    <section
      aria-labelledby="embedding-heading"
      className="rounded-lg border border-slate-200 bg-white p-4 text-sm"
      data-testid="embedding-progress"
    >
      <h2 id="embedding-heading" className="mb-2 font-semibold">
        Semantic search
      </h2>
      {s.rows > 0 && (
        <div className="mb-2">
          <div
            className="h-2 w-full overflow-hidden rounded bg-slate-100"
            role="progressbar"
            aria-label="Passages and table rows embedded"
            aria-valuemin={0}
            aria-valuemax={s.rows}
            aria-valuenow={s.embedded}
          >
            <div className="h-full bg-brand-600 transition-all" style={{ width: `${pct}%` }} />
          </div>
          <p className="mt-1 text-xs text-slate-600" data-testid="embedding-count">
            {fmt(s.embedded)} of {count(s.rows, "passage or table row", "passages and table rows")} embedded ({pct}%)
            {s.model ? ` with ${modelLabel(s.model)}` : ""}
          </p>
        </div>
      )}
      <p className={job?.status === "FAILED" ? "text-rose-800" : "text-slate-700"} aria-live="polite" data-testid="embedding-status">
        {!job
          ? "Not embedded yet: searched by keywords only."
          : job.status === "SUCCEEDED" && s.embedded >= s.rows
            ? "Searched by keywords and by meaning (hybrid)."
            : job.status === "FAILED"
              ? `Could not be embedded: ${job.error ?? job.message} Searched by keywords only meanwhile.`
              : job.message}
      </p>
      {job && (job.status === "FAILED" || job.status === "CANCELLED") && (
        <Button variant="secondary" className="mt-2" onClick={() => again.mutate()} disabled={again.isPending}>
          {again.isPending ? "Starting…" : "Embed again"}
        </Button>
      )}
      {active && (
        <p className="mt-1 text-xs text-slate-500">Runs in the background; questions use keyword search for what is not embedded yet.</p>
      )}
    </section>
  );
}
