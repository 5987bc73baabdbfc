import type { Preview } from "@/lib/backends/types";
import { count } from "@/lib/format/count";
import { ScrollArea } from "../ui/scroll-area";

function cell(v: unknown): string {
  if (v === null || v === undefined) return "";
  return typeof v === "object" ? JSON.stringify(v) : String(v);
}

/** Renders a source preview by kind: a grid for tables, sentences for text, nodes and edges for graphs. */
export function PreviewView({ preview }: { preview: Preview }) {
  if (preview.kind === "table") {
    return (
      <div>
        <ScrollArea label={`${preview.title}: preview, scrolls sideways`} className="max-h-96">
          <table className="min-w-full text-left text-xs" aria-label={`Preview of ${preview.title}`}>
            <thead className="sticky top-0 bg-slate-100">
              <tr>
                <th scope="col" className="px-2 py-1.5 text-right font-semibold text-slate-500">
                  Row
                </th>
                {preview.columns.map((c) => (
                  <th key={c} scope="col" className="whitespace-nowrap px-2 py-1.5 font-semibold">
                    {c}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {preview.rows.map((row, i) => (
                <tr key={i} className="border-t border-slate-100 odd:bg-white even:bg-slate-50/60">
                  <th scope="row" className="px-2 py-1 text-right font-normal tabular-nums text-slate-400">
                    {i + 1}
                  </th>
                  {row.map((v, j) => (
                    <td key={j} className="max-w-xs truncate px-2 py-1" title={cell(v)}>
                      {cell(v)}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollArea>
        <p className="mt-1 text-xs text-slate-500">
          {count(preview.rows.length, "row")} shown{preview.totalRows !== undefined ? ` of ${preview.totalRows.toLocaleString("en")}` : ""}
          {preview.truncated ? " (more not shown)" : ""}.
        </p>
      </div>
    );
  }
  if (preview.kind === "text") {
    return (
      <div className="max-h-96 overflow-auto rounded border border-slate-200 bg-white p-3 text-sm leading-relaxed">
        <ol className="list-decimal space-y-1 pl-6 marker:text-xs marker:text-slate-400">
          {preview.sentences.map((s, i) => (
            <li key={i}>{s}</li>
          ))}
        </ol>
        {preview.truncated && <p className="mt-2 text-xs text-slate-500">More text not shown.</p>}
      </div>
    );
  }
  const byId = new Map(preview.data.nodes.map((n) => [n.id, n]));
  return (
    <div className="max-h-96 overflow-auto rounded border border-slate-200 bg-white p-3 text-sm">
      <ul className="space-y-1">
        {preview.data.edges.map((e, i) => (
          <li key={i}>
            <span className="font-medium">{byId.get(e.from)?.caption ?? e.from}</span>{" "}
            <span className="rounded bg-slate-100 px-1 text-xs text-slate-700">{e.type}</span> →{" "}
            <span className="font-medium">{byId.get(e.to)?.caption ?? e.to}</span>
          </li>
        ))}
      </ul>
      {preview.data.edges.length === 0 && (
        <ul className="space-y-1">
          {preview.data.nodes.map((n) => (
            <li key={n.id}>
              <span className="font-medium">{n.caption}</span> <span className="text-xs text-slate-500">{n.labels.join(", ")}</span>
            </li>
          ))}
        </ul>
      )}
      {preview.truncated && <p className="mt-2 text-xs text-slate-500">More not shown.</p>}
    </div>
  );
}
