"use client";

import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { checkGuideAction } from "@/lib/actions/guides";
import { unwrap } from "@/lib/actions/unwrap";
import { Alert } from "../ui/alert";
import { Button } from "../ui/button";

/**
 * The guide's "no longer runs" flag and the "Check now" button: the check re-runs the guide's queries
 * (read-only, as a run does) and the page shows the new flag.
 */
export function GuideHealth({ id, brokenReason }: { id: string; brokenReason: string | null }) {
  const router = useRouter();
  const check = useMutation({
    mutationFn: () => unwrap(checkGuideAction({ id })),
    onSuccess: () => router.refresh(),
  });
  const unchecked = check.data?.queries.filter((q) => q.status === "unchecked") ?? [];
  return (
    <div className="mb-4 space-y-2" data-testid="guide-health">
      {brokenReason && (
        <Alert tone="error">
          <span className="font-medium">This guide&apos;s query no longer runs.</span> {brokenReason} Questions like it are answered without
          it until it is fixed: edit the query, then check again.
        </Alert>
      )}
      <div className="flex flex-wrap items-center gap-2 text-sm">
        <Button variant="secondary" onClick={() => check.mutate()} disabled={check.isPending}>
          {check.isPending ? "Checking…" : "Check now"}
        </Button>
        {check.data && !check.data.brokenReason && unchecked.length === 0 && (
          <span className="text-emerald-700" role="status">
            Its {check.data.queries.length === 1 ? "query runs" : `${check.data.queries.length} queries run`}.
          </span>
        )}
        {unchecked.map((q, i) => (
          <span key={i} className="text-amber-700" role="status">
            {q.kbName}: {q.detail}
          </span>
        ))}
      </div>
      {check.error && <Alert tone="error">{check.error.message}</Alert>}
    </div>
  );
}
