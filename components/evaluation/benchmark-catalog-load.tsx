"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import type { BenchmarkLoadStatus } from "@/lib/catalog/benchmark-load-job";
import { count } from "@/lib/format/count";
import { Alert } from "../ui/alert";
import { Button } from "../ui/button";
import { evalApi } from "./api";
import { ProgressBar } from "./report-list";

type JobReply = { job: BenchmarkLoadStatus | null };

/**
 * Loading the benchmark catalog from the page: the button (admins, when a chosen suite needs it) and
 * the job's progress, polled while it runs. When it ends, the suite list is read again.
 */
export function BenchmarkCatalogLoad({ offer, canStart }: { offer: boolean; canStart: boolean }) {
  const queryClient = useQueryClient();
  const status = useQuery({
    queryKey: ["eval-benchmark-catalog"],
    queryFn: () => evalApi<JobReply>("/benchmark-catalog"),
    refetchInterval: (q) => (q.state.data?.job?.state === "running" ? 1500 : false),
  });
  const start = useMutation({
    mutationFn: () => evalApi<JobReply>("/benchmark-catalog", { method: "POST" }),
    onSuccess: (reply) => queryClient.setQueryData(["eval-benchmark-catalog"], reply),
  });
  const job = status.data?.job ?? null;
  const state = job?.state;
  useEffect(() => {
    if (state === "done" || state === "failed") void queryClient.invalidateQueries({ queryKey: ["eval-suites"] });
  }, [state, queryClient]);

  if (job?.state === "running") {
    return (
      <div className="space-y-1.5 rounded-md border border-slate-200 bg-white px-3 py-2 text-sm" data-testid="benchmark-load" role="status">
        <p className="font-medium">Loading the benchmark catalog…</p>
        <ProgressBar done={job.done} total={job.total} label="Progress of the benchmark catalog load" unit="knowledge base" />
        <p className="text-xs text-slate-600">
          {job.total ? `${job.done.toLocaleString("en")} of ${count(job.total, "knowledge base")}${job.current ? ` · now: ${job.current}` : ""}.` : "Starting…"} You can leave this
          page; the load goes on.
        </p>
      </div>
    );
  }
  const finished = job && (job.state === "done" || job.state === "failed") ? job : null;
  return (
    <>
      {finished && (
        <div data-testid="benchmark-load">
          <Alert tone={finished.state === "failed" || finished.failed.length ? "error" : "success"}>
            {finished.state === "failed" ? (
              <>The benchmark catalog could not be loaded: {finished.error}</>
            ) : (
              <>
                Benchmark catalog loaded: {count(finished.registered, "knowledge base")} added, {finished.skipped.toLocaleString("en")} already there
                {finished.failed.length ? `, ${finished.failed.length.toLocaleString("en")} could not be loaded:` : "."}
              </>
            )}
            {finished.failed.length > 0 && (
              <ul className="mt-1 list-disc pl-5">
                {finished.failed.slice(0, 5).map((f) => (
                  <li key={f.name}>
                    {f.name}: {f.error}
                  </li>
                ))}
                {finished.failed.length > 5 && <li>and {(finished.failed.length - 5).toLocaleString("en")} more</li>}
              </ul>
            )}
          </Alert>
        </div>
      )}
      {offer && canStart && (
        <div className="space-y-1">
          <Button variant="secondary" onClick={() => start.mutate()} disabled={start.isPending}>
            {start.isPending ? "Starting…" : finished ? "Load the benchmark catalog again" : "Load the benchmark catalog"}
          </Button>
          {start.error && <Alert tone="error">{start.error.message}</Alert>}
        </div>
      )}
    </>
  );
}
