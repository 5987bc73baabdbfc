import type { CapturedContext } from "@/lib/pipeline/execute-action";

/** What a retrieval action produced: the action in AU-RAG notation, the native query it ran, and the context text. */
export function ContextResult({ result, label = "Produced context" }: { result: CapturedContext; label?: string }) {
  return (
    <section aria-label={label} className="space-y-2 rounded-md border border-emerald-200 bg-emerald-50/40 p-3 text-sm" data-testid="produced-context">
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h4 className="font-semibold text-emerald-900">{label}</h4>
        <p className="text-xs text-slate-600">
          {result.pieceCount} piece{result.pieceCount === 1 ? "" : "s"} · {result.ms} ms{result.truncated ? " · cut to fit" : ""}
        </p>
      </div>
      <p className="break-words font-mono text-xs text-slate-700">{result.description}</p>
      {result.query && result.query.text !== result.description && (
        <details className="text-xs">
          <summary className="cursor-pointer text-slate-600">Native query it ran ({result.query.language.toUpperCase()})</summary>
          <pre className="mt-1 max-h-40 overflow-auto whitespace-pre-wrap rounded bg-slate-900 p-2 text-slate-100">{result.query.text}</pre>
        </details>
      )}
      {result.context ? (
        <pre className="max-h-72 overflow-auto whitespace-pre-wrap break-words rounded border border-slate-200 bg-white p-2 font-sans text-xs leading-relaxed text-slate-800">{result.context}</pre>
      ) : (
        <p className="text-xs text-slate-600">The action ran and returned nothing: check the selection or the query.</p>
      )}
    </section>
  );
}
