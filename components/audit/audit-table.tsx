import type { AuditRow } from "@/lib/audit/query";

function show(value: unknown): string {
  return value === undefined ? "" : typeof value === "string" ? value : JSON.stringify(value);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return !!v && typeof v === "object" && !Array.isArray(v);
}

/** Before and after side by side, one field a line; the fields that changed are marked. */
function Changes({ before, after }: { before: unknown; after: unknown }) {
  const b = isRecord(before) ? before : before == null ? {} : { value: before };
  const a = isRecord(after) ? after : after == null ? {} : { value: after };
  const keys = [...new Set([...Object.keys(b), ...Object.keys(a)])];
  return (
    <table className="mt-1 w-full text-xs" aria-label="Before and after">
      <thead className="text-left text-slate-500">
        <tr>
          <th className="pr-2 font-semibold">Field</th>
          <th className="pr-2 font-semibold">Before</th>
          <th className="font-semibold">After</th>
        </tr>
      </thead>
      <tbody>
        {keys.map((k) => {
          const changed = show(b[k]) !== show(a[k]);
          return (
            <tr key={k} className={changed ? "bg-amber-50 font-medium text-slate-900" : "text-slate-600"}>
              <td className="pr-2 align-top font-mono">{k}</td>
              <td className="break-all pr-2 align-top font-mono">{before == null ? "—" : show(b[k])}</td>
              <td className="break-all align-top font-mono">{after == null ? "—" : show(a[k])}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

function Detail({ value }: { value: unknown }) {
  if (value === null || value === undefined) return null;
  const entries: [string, unknown][] = isRecord(value) ? Object.entries(value) : [["value", value]];
  return (
    <dl className="mt-1 text-xs text-slate-600">
      {entries.map(([k, v]) => (
        <div key={k} className="flex gap-2">
          <dt className="font-mono text-slate-500">{k}</dt>
          <dd className="break-all font-mono">{show(v)}</dd>
        </div>
      ))}
    </dl>
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
            <th className="min-w-[20rem] px-3 py-2">Changes and details</th>
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
                    {r.targetType} <span className="break-all font-mono text-slate-500">{r.targetId}</span>
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
                    {(r.before != null || r.after != null) && <Changes before={r.before} after={r.after} />}
                    <Detail value={r.detail} />
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
