import type { RunStatusName, TurnOutcome } from "@/lib/runs/types";

/** The words of the answer card's heading, so a run reads the same in History and in the thread. */
const STYLE: Record<TurnOutcome, { label: string; cls: string }> = {
  answered: { label: "Answered", cls: "bg-emerald-50 text-emerald-800" },
  uncertain: { label: "Not certain", cls: "bg-amber-50 text-amber-800" },
  refused: { label: "No answer", cls: "bg-slate-100 text-slate-700" },
  cancelled: { label: "Cancelled", cls: "bg-slate-100 text-slate-700" },
  failed: { label: "Failed", cls: "bg-rose-50 text-rose-800" },
  running: { label: "Running", cls: "bg-brand-50 text-brand-700" },
};

const FROM_STATUS: Record<RunStatusName, TurnOutcome> = {
  ANSWERED: "answered",
  REFRAINED: "refused",
  CANCELLED: "cancelled",
  FAILED: "failed",
  RUNNING: "running",
  QUEUED: "running",
};

/** A run's outcome in one word; without `outcome` (older callers), the status alone decides. */
export function StatusPill({ status, outcome }: { status: RunStatusName; outcome?: TurnOutcome }) {
  const s = STYLE[outcome ?? FROM_STATUS[status] ?? "running"];
  return (
    <span className={`shrink-0 rounded px-1.5 py-0.5 text-xs font-medium ${s.cls}`} data-testid="run-status">
      {s.label}
    </span>
  );
}
