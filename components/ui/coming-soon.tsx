import type { ReactNode } from "react";

/** A page whose feature lands in a later issue: says plainly what will be here. */
export function ComingSoon({ children }: { children: ReactNode }) {
  return (
    <section className="rounded-lg border border-dashed border-slate-300 bg-white p-6" aria-label="Not available yet">
      <p className="mb-2 text-xs font-semibold uppercase tracking-wide text-slate-500">Not available yet</p>
      <div className="space-y-2 text-sm text-slate-700">{children}</div>
    </section>
  );
}
