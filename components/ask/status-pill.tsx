import type { RunStatusName } from "@/lib/runs/types";

const STYLE: Record<RunStatusName, { label: string; cls: string }> = {
  ANSWERED: { label: "Answered", cls: "bg-emerald-50 text-emerald-800" },
  REFRAINED: { label: "No answer", cls: "bg-amber-50 text-amber-800" },
  CANCELLED: { label: "Cancelled", cls: "bg-slate-100 text-slate-700" },
  FAILED: { label: "Failed", cls: "bg-rose-50 text-rose-800" },
  RUNNING: { label: "Running", cls: "bg-brand-50 text-brand-700" },
  QUEUED: { label: "Queued", cls: "bg-slate-100 text-slate-700" },
};

export function StatusPill({ status }: { status: RunStatusName }) {
  const s = STYLE[status] ?? STYLE.QUEUED;
  return (
    <span className={`shrink-0 rounded px-1.5 py-0.5 text-xs font-medium ${s.cls}`} data-testid="run-status">
      {s.label}
    </span>
  );
}
