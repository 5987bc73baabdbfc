import { count } from "@/lib/format/count";
import { describeActionPlainly, languageName } from "@/lib/guides/action-names";
import type { CapturedContext } from "@/lib/guides/capture";
import { type GuideActionKind, parseGuideAction } from "@/lib/pipeline/guide-actions";

/**
 * What a retrieval action produced: the action in plain words (as the analyst wrote it, with the table's
 * or document's title when the caller knows it), the native query it ran, and the context text.
 */
export function ContextResult({
  result,
  label = "Produced context",
  written,
  names,
}: {
  result: CapturedContext;
  label?: string;
  /** The action as written; on a database table, "Pick table cells" runs as a query (result.action). */
  written?: { kind: GuideActionKind; params: unknown };
  names?: { table?: string; document?: string };
}) {
  const action = (written && parseGuideAction(written.kind, written.params)) || result.action;
  const description = describeActionPlainly(action, names);
  return (
    <section
      aria-label={label}
      className="space-y-2 rounded-md border border-emerald-200 bg-emerald-50/40 p-3 text-sm"
      data-testid="produced-context"
    >
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h4 className="font-semibold text-emerald-900">{label}</h4>
        <p className="text-xs text-slate-600">
          {count(result.pieceCount, "piece of evidence", "pieces of evidence")} · {result.ms} ms{result.truncated ? " · cut to fit" : ""}
        </p>
      </div>
      <p className="break-words text-xs text-slate-700" data-testid="action-description">
        {description}
      </p>
      {result.query && (
        <details className="text-xs">
          <summary className="cursor-pointer text-slate-600">Native query it ran ({languageName(result.query.language)})</summary>
          <pre className="mt-1 max-h-40 overflow-auto whitespace-pre-wrap rounded bg-slate-900 p-2 text-slate-100">{result.query.text}</pre>
        </details>
      )}
      {result.context ? (
        <pre className="max-h-72 overflow-auto whitespace-pre-wrap break-words rounded border border-slate-200 bg-white p-2 font-sans text-xs leading-relaxed text-slate-800">
          {result.context}
        </pre>
      ) : (
        <p className="text-xs text-slate-600">The action ran and returned nothing: check the selection or the query.</p>
      )}
    </section>
  );
}
