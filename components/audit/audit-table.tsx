import type { AuditRow } from "@/lib/audit/query";

function Json({ value }: { value: unknown }) {
  if (value === null || value === undefined) return null;
  return (
    <pre className="max-h-40 overflow-auto whitespace-pre-wrap break-all text-xs text-slate-700">{JSON.stringify(value, null, 1)}</pre>
  );
}

/** The audit records, newest first; before/after and details fold open per row. */
export function AuditTable({ rows, kbNames }: { rows: AuditRow[]; kbNames: Record<string, string> }) {
  if (rows.length === 0) return null;
  return (
    <div className="overflow-x-auto rounded-lg border border-slate-200 bg-white">
      <table className="min-w-full text-left text-sm" aria-label="Audit records">
        <thead className="border-b border-slate-200 bg-slate-50 text-xs uppercase tracking-wide text-slate-500">
          <tr>
            <th className="px-3 py-2">Time (UTC)</th>
            <th className="px-3 py-2">Actor</th>
            <th className="px-3 py-2">Action</th>
            <th className="px-3 py-2">Address</th>
            <th className="px-3 py-2">Target</th>
            <th className="px-3 py-2">Knowledge bases</th>
            <th className="px-3 py-2">Changes and details</th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100 align-top">
          {rows.map((r) => (
            <tr key={r.id}>
              <td className="whitespace-nowrap px-3 py-2 font-mono text-xs">{r.at.replace("T", " ").slice(0, 19)}</td>
              <td className="px-3 py-2">{r.actorEmail ?? <span className="text-slate-400">unknown</span>}</td>
              <td className="px-3 py-2">
                <span className="font-medium">{r.action}</span>
                {r.outcome === "failure" && <span className="ml-2 rounded bg-rose-100 px-1.5 py-0.5 text-xs text-rose-800">failed</span>}
              </td>
              <td className="px-3 py-2 font-mono text-xs">{r.address ?? ""}</td>
              <td className="px-3 py-2 text-xs">
                {r.targetType && (
                  <>
                    {r.targetType} <span className="font-mono text-slate-500">{r.targetId}</span>
                  </>
                )}
              </td>
              <td className="px-3 py-2 text-xs">{r.kbIds.map((id) => kbNames[id] ?? id).join(", ")}</td>
              <td className="px-3 py-2">
                {(r.before != null || r.after != null || r.detail != null) && (
                  <details>
                    <summary className="cursor-pointer text-xs text-brand-700">
                      {r.before != null || r.after != null ? "Before and after" : "Details"}
                    </summary>
                    <div className="mt-1 grid gap-2 md:grid-cols-2">
                      {r.before != null && (
                        <div>
                          <p className="text-xs font-semibold text-slate-500">Before</p>
                          <Json value={r.before} />
                        </div>
                      )}
                      {r.after != null && (
                        <div>
                          <p className="text-xs font-semibold text-slate-500">After</p>
                          <Json value={r.after} />
                        </div>
                      )}
                    </div>
                    <Json value={r.detail} />
                  </details>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
