"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import type { JobView } from "@/lib/jobs/queue";
import { count } from "@/lib/format/count";
import { Alert } from "../ui/alert";
import { Button } from "../ui/button";
import { evalApi } from "./api";
import { ProgressBar } from "./report-list";

type JobReply = { job: JobView | null };

const UNFINISHED = new Set<JobView["status"]>(["QUEUED", "RUNNING"]);

/**
 * Loading the benchmark catalog from the page: the button (admins, when a chosen suite needs it) and the
 * background job's progress, polled while it runs, with a Cancel button. When it ends, the suite list is
 * read again. The job's message says what it is doing, or how it ended, in words.
 */
export function BenchmarkCatalogLoad({ offer, canStart }: { offer: boolean; canStart: boolean }) {
  const queryClient = useQueryClient();
  const status = useQuery({
    queryKey: ["eval-benchmark-catalog"],
    queryFn: () => evalApi<JobReply>("/benchmark-catalog"),
    refetchInterval: (q) => (q.state.data?.job && UNFINISHED.has(q.state.data.job.status) ? 1500 : false),
  });
  const start = useMutation({
    mutationFn: () => evalApi<JobReply>("/benchmark-catalog", { method: "POST" }),
    onSuccess: (reply) => queryClient.setQueryData(["eval-benchmark-catalog"], reply),
  });
  const cancel = useMutation({
    mutationFn: () => evalApi<JobReply>("/benchmark-catalog", { method: "DELETE" }),
    onSuccess: (reply) => queryClient.setQueryData(["eval-benchmark-catalog"], reply),
  });
  const job = status.data?.job ?? null;
  const jobStatus = job?.status;
  useEffect(() => {
    if (jobStatus && !UNFINISHED.has(jobStatus)) void queryClient.invalidateQueries({ queryKey: ["eval-suites"] });
  }, [jobStatus, queryClient]);

  if (job && UNFINISHED.has(job.status)) {
    return (
      <div className="space-y-1.5 rounded-md border border-slate-200 bg-white px-3 py-2 text-sm" data-testid="benchmark-load" role="status">
        <p className="font-medium">Loading the benchmark catalog…</p>
        <ProgressBar
          done={job.progressDone}
          total={job.progressTotal ?? 0}
          label="Progress of the benchmark catalog load"
          unit="knowledge base"
        />
        <p className="text-xs text-slate-600" data-testid="benchmark-load-message">
          {job.status === "QUEUED" ? job.message || "Waiting to start." : job.progressTotal ? job.message : "Starting…"} It runs in the
          background: you can leave this page.
        </p>
        {canStart && (
          <div className="space-y-1">
            <Button variant="secondary" onClick={() => cancel.mutate()} disabled={cancel.isPending}>
              {cancel.isPending ? "Cancelling…" : "Cancel the load"}
            </Button>
            {cancel.error && <Alert tone="error">{cancel.error.message}</Alert>}
          </div>
        )}
      </div>
    );
  }
  const finished = job && !UNFINISHED.has(job.status) ? job : null;
  return (
    <>
      {finished && (
        <div data-testid="benchmark-load">
          <Alert
            tone={
              finished.status === "FAILED" || / could not be loaded: /.test(finished.message)
                ? "error"
                : finished.status === "CANCELLED"
                  ? "info"
                  : "success"
            }
          >
            {finished.status === "FAILED"
              ? `The benchmark catalog could not be loaded: ${finished.error ?? finished.message}`
              : finished.status === "CANCELLED"
                ? `Loading the benchmark catalog was cancelled after ${count(finished.progressDone, "knowledge base")}. What was loaded stays; loading again skips it.`
                : finished.message}
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
