import type { RowData, Scalar } from "@/lib/backends/types";
import { isComputedTable } from "./evidence-location";
import { MarkedText } from "./marked-text";
import { formatCell } from "../ask/figures";
import { useLocale } from "../ui/locale";

function show(v: Scalar): string {
  if (v === null) return "—";
  return typeof v === "number" ? v.toLocaleString("en", { maximumFractionDigits: 6 }) : String(v);
}

function tokens(s: string): Set<string> {
  return new Set(
    s
      .toLowerCase()
      .split(/[^\p{L}\p{N}.]+/u)
      .filter(Boolean),
  );
}

/**
 * A table row with its column headers and table name; the cells that hold the answer are emphasised,
 * and so are the cells a computed answer's operands were read from (the one last opened, strongly).
 */
export function RowView({
  data,
  terms,
  answer,
  operandColumns,
  activeColumn,
}: {
  data: RowData;
  terms: readonly string[];
  answer: string | null;
  operandColumns?: string[];
  activeColumn?: string | null;
}) {
  const locale = useLocale();
  const answerTokens = answer ? tokens(answer) : new Set<string>();
  const answerLower = answer?.toLowerCase().trim() ?? "";
  const holdsAnswer = (v: Scalar) => {
    if (v === null || !answerLower) return false;
    const s = String(v).toLowerCase().trim();
    return s === answerLower || (s.length > 0 && (answerTokens.has(s) || (s.length >= 3 && answerLower.includes(s))));
  };
  const where = [data.section, data.rowIndex !== undefined ? `row ${data.rowIndex + 1}` : null].filter(Boolean);
  const computed = isComputedTable(data.table);
  const key =
    data.key && Object.keys(data.key).length
      ? Object.entries(data.key)
          .map(([k, v]) => `${k} = ${show(v)}`)
          .join(", ")
      : null;
  return (
    <div className="space-y-2" data-testid="row-view">
      <p className="text-xs text-slate-600">
        {computed ? (
          <span data-testid="row-table">Row computed by the query</span>
        ) : (
          <>
            Table{" "}
            <span className="font-medium text-slate-800" data-testid="row-table">
              {data.table}
            </span>
          </>
        )}
        {where.length > 0 && <> · {where.join(" · ")}</>}
        {key && <> · key {key}</>}
      </p>
      <div className="max-w-full overflow-x-auto rounded border border-slate-200">
        <table className="min-w-full text-left text-sm">
          <caption className="sr-only">{computed ? "Row computed by the query" : `Row of ${data.table}`}</caption>
          <thead className="bg-slate-100 text-xs">
            <tr>
              {data.columns.map((c, i) => (
                <th key={i} scope="col" className="whitespace-nowrap px-3 py-1.5 font-semibold text-slate-700">
                  <MarkedText text={c} terms={terms} />
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            <tr>
              {data.values.map((v, i) => {
                const operand = operandColumns?.includes(data.columns[i]) ?? false;
                const active = operand && activeColumn === data.columns[i];
                const style = active
                  ? "bg-amber-100 font-semibold text-amber-950 ring-2 ring-inset ring-amber-500"
                  : operand
                    ? "bg-amber-50 font-semibold text-amber-900 ring-1 ring-inset ring-amber-300"
                    : holdsAnswer(v)
                      ? "bg-emerald-50 font-semibold text-emerald-900 ring-1 ring-inset ring-emerald-300"
                      : "";
                return (
                  <td
                    key={i}
                    className={`max-w-xs px-3 py-1.5 align-top break-words ${style}`}
                    data-answer-cell={(!operand && holdsAnswer(v)) || undefined}
                    data-operand-cell={operand || undefined}
                    data-active-operand={active || undefined}
                  >
                    {typeof v === "number" ? formatCell(v, null, locale, { column: data.columns[i] }) : show(v)}
                  </td>
                );
              })}
            </tr>
          </tbody>
        </table>
      </div>
    </div>
  );
}
