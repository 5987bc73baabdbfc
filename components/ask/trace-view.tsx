import type { TraceEventView } from "@/lib/runs/types";
import { formatMs } from "./stage-progress";

/** The stored trace: every event of the run in order, as the pipeline recorded it. */
export function TraceView({ events }: { events: TraceEventView[] }) {
  if (!events.length) return <p className="text-sm text-slate-600">No trace was recorded for this run.</p>;
  return (
    <div className="max-h-96 overflow-auto rounded border border-slate-200 bg-white">
      <table className="min-w-full text-left text-xs" data-testid="trace-table">
        <caption className="sr-only">Trace events</caption>
        <thead className="sticky top-0 bg-slate-100">
          <tr>
            <th scope="col" className="px-2 py-1.5">
              #
            </th>
            <th scope="col" className="px-2 py-1.5">
              Stage
            </th>
            <th scope="col" className="px-2 py-1.5">
              Event
            </th>
            <th scope="col" className="px-2 py-1.5">
              Strategy
            </th>
            <th scope="col" className="px-2 py-1.5 text-right">
              Duration
            </th>
            <th scope="col" className="px-2 py-1.5">
              Summary
            </th>
          </tr>
        </thead>
        <tbody>
          {events.map((e) => (
            <tr key={e.seq} className="border-t border-slate-100 align-top">
              <td className="px-2 py-1 tabular-nums text-slate-500">{e.seq}</td>
              <td className="px-2 py-1 font-medium">{e.stage}</td>
              <td className={`px-2 py-1 ${e.type === "ERROR" ? "text-rose-700" : e.type === "INFO" ? "text-amber-700" : ""}`}>
                {e.type.toLowerCase()}
              </td>
              <td className="px-2 py-1 text-slate-600">{e.strategy ?? ""}</td>
              <td className="px-2 py-1 text-right tabular-nums">{e.durationMs !== null ? formatMs(e.durationMs) : ""}</td>
              <td className="max-w-md px-2 py-1 break-words text-slate-700">
                {e.summary || <span className="text-slate-400">withheld</span>}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
