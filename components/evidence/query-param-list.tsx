import type { Scalar } from "@/lib/backends/types";
import { queryParamLines } from "./query-params";

/**
 * The values a parameterised query was bound to, one line per parameter. Shown beside the query's text
 * wherever a query is shown (evidence, the answer card), so what it filtered on is never hidden.
 */
export function QueryParamList({
  params,
  language,
  tone,
  testId,
}: {
  params: Record<string, Scalar> | undefined;
  language: string;
  tone: "dark" | "light";
  testId: string;
}) {
  const lines = queryParamLines(params, language);
  if (lines.length === 0) return null;
  const frame = tone === "dark" ? "border-t border-slate-700 px-3 py-1.5" : "mt-1 text-slate-700";
  return (
    <dl
      className={`grid grid-cols-[auto_minmax(0,1fr)] gap-x-3 font-mono text-xs ${frame}`}
      aria-label="Parameter values"
      data-testid={testId}
    >
      {lines.map((p) => (
        <div key={p.name} className="contents">
          <dt className={tone === "dark" ? "text-slate-400" : "text-slate-500"}>{p.name}</dt>
          <dd className="break-all">{p.value}</dd>
        </div>
      ))}
    </dl>
  );
}
