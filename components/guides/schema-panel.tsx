import type { KbSchemaOutline } from "@/lib/guides/schema-outline";

/** The knowledge bases' schemas beside the guide editor, so the analyst writes the query with the tables and columns in view. */
export function SchemaPanel({ outlines }: { outlines: KbSchemaOutline[] }) {
  return (
    <aside aria-labelledby="schema-heading" className="rounded-lg border border-slate-200 bg-white p-4 text-sm" data-testid="guide-schema">
      <h2 id="schema-heading" className="mb-1 font-semibold">
        Schema
      </h2>
      <p className="mb-3 text-xs text-slate-500">The tables and columns your query can use.</p>
      {outlines.length === 0 ? (
        <p className="text-slate-500">No queryable knowledge base is shared with you.</p>
      ) : (
        <div className="space-y-2">
          {outlines.map((o, i) => (
            <details key={o.kbId} open={i === 0} className="rounded border border-slate-100">
              <summary className="cursor-pointer px-2 py-1 font-medium">{o.kbName}</summary>
              <pre className="max-h-96 overflow-auto whitespace-pre-wrap break-words bg-slate-50 px-2 py-1.5 font-mono text-xs text-slate-800">
                {o.schema}
              </pre>
            </details>
          ))}
        </div>
      )}
    </aside>
  );
}
