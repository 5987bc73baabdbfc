"use client";

import { useState } from "react";
import { Bar, BarChart, CartesianGrid, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { AnswerShape } from "@/lib/pipeline/contracts";
import { count } from "@/lib/format/count";
import { formatQuantity } from "@/lib/format/quantity";
import { formatInteger } from "@/lib/format/number";
import { useLocale } from "../ui/locale";
import { columnDecimals, columnHeader, formatCell } from "./figures";
import { QueryParamList } from "../evidence/query-param-list";

/**
 * The answer's shape when it is a query result: a list shows how many values it holds and every one of
 * them behind "Show all"; a table shows its columns and rows (paged); a grouped numeric answer also
 * draws as a bar or line chart. The native query and its source are the evidence, one click away.
 */

/** Values and rows shown before "Show all", then per page. */
export const PREVIEW_ROWS = 10;
export const PAGE_ROWS = 100;

const COLORS = ["#2f6fde", "#f59e0b", "#10b981", "#e11d48"];

function cellText(v: AnswerShape["rows"][number][number]): string {
  if (v === null) return "–";
  if (typeof v === "boolean") return v ? "yes" : "no";
  return String(v);
}

function toNumber(v: AnswerShape["rows"][number][number]): number | null {
  if (typeof v === "number") return v;
  if (typeof v === "string") {
    const n = Number(v.replace(/[,\s%$€£]/g, ""));
    return Number.isFinite(n) ? n : null;
  }
  return null;
}

function CapNote({ shape }: { shape: AnswerShape }) {
  const locale = useLocale();
  if (!shape.truncated) return null;
  return (
    <p className="mt-2 rounded border border-amber-200 bg-amber-50 px-2 py-1 text-xs text-amber-900" data-testid="answer-cap-note">
      More rows exist: the first {formatInteger(shape.total, locale)} are shown, because answers list at most{" "}
      {formatInteger(shape.cap ?? shape.total, locale)} rows (the answer row cap, a setting an admin can raise). Narrow the question to see
      the rest.
    </p>
  );
}

function ShapeChart({ shape }: { shape: AnswerShape }) {
  const locale = useLocale();
  const chart = shape.chart;
  if (!chart) return null;
  // One unit on the axis (the first measure's), each value with its own in the tooltip.
  const axisUnit = shape.units?.[chart.y[0]] ?? null;
  const unitOf = new Map(chart.y.map((i) => [shape.columns[i], shape.units?.[i] ?? null]));
  const tick = (v: number) => formatQuantity(v, axisUnit, locale);
  const tooltip = (v: unknown, name: unknown) =>
    typeof v === "number" ? formatQuantity(v, unitOf.get(String(name)) ?? null, locale) : "–";
  const data = shape.rows.map((r) => ({
    key: cellText(r[chart.x]),
    ...Object.fromEntries(chart.y.map((i) => [shape.columns[i], toNumber(r[i])])),
  }));
  const series = chart.y.map((i) => shape.columns[i]);
  const title = `${series.join(", ")} by ${shape.columns[chart.x]}`;
  return (
    <figure className="mt-4" data-testid="answer-chart" data-chart-kind={chart.kind}>
      <figcaption className="mb-1 text-xs font-medium text-slate-600">{title}</figcaption>
      <div
        style={{ height: 220 }}
        role="img"
        aria-label={`${chart.kind === "line" ? "Line" : "Bar"} chart of ${title}. The same values are in the table.`}
      >
        <ResponsiveContainer width="100%" height="100%">
          {chart.kind === "line" ? (
            <LineChart data={data} margin={{ left: 0, right: 16, top: 4, bottom: 4 }}>
              <CartesianGrid stroke="#e2e8f0" />
              <XAxis dataKey="key" fontSize={11} />
              <YAxis fontSize={11} tickFormatter={tick} width={64} />
              <Tooltip formatter={tooltip} />
              {series.map((s, i) => (
                <Line key={s} dataKey={s} stroke={COLORS[i % COLORS.length]} isAnimationActive={false} dot />
              ))}
            </LineChart>
          ) : (
            <BarChart data={data} margin={{ left: 0, right: 16, top: 4, bottom: 4 }}>
              <CartesianGrid vertical={false} stroke="#e2e8f0" />
              <XAxis dataKey="key" fontSize={11} interval={0} />
              <YAxis fontSize={11} tickFormatter={tick} width={64} />
              <Tooltip formatter={tooltip} />
              {series.map((s, i) => (
                <Bar key={s} dataKey={s} fill={COLORS[i % COLORS.length]} isAnimationActive={false} />
              ))}
            </BarChart>
          )}
        </ResponsiveContainer>
      </div>
    </figure>
  );
}

function ListView({ shape }: { shape: AnswerShape }) {
  const locale = useLocale();
  const [shown, setShown] = useState(PREVIEW_ROWS);
  const values = shape.rows.map((r) => formatCell(r[0], shape.units?.[0], locale, { column: shape.columns[0] }));
  const visible = values.slice(0, shown);
  return (
    <div className="mt-3" data-testid="answer-list">
      <p className="text-sm text-slate-600">
        <span className="font-semibold text-slate-900" data-testid="answer-count">
          {formatInteger(values.length, locale)} {values.length === 1 ? "value" : "values"}
        </span>{" "}
        <span className="text-slate-500">({shape.columns[0]})</span>
      </p>
      <ol className="mt-2 flex flex-wrap gap-1.5" aria-label={count(values.length, "value")}>
        {visible.map((v, i) => (
          <li key={i} className="rounded bg-slate-100 px-2 py-0.5 text-sm text-slate-800" data-testid="answer-list-item">
            {v}
          </li>
        ))}
      </ol>
      {values.length > shown && (
        <button
          type="button"
          onClick={() => setShown(shown === PREVIEW_ROWS ? Math.min(values.length, PAGE_ROWS) : shown + PAGE_ROWS)}
          className="mt-2 text-sm font-medium text-brand-700 hover:underline"
          data-testid="answer-show-all"
        >
          {shown === PREVIEW_ROWS
            ? `Show all ${formatInteger(values.length, locale)}`
            : `Show ${Math.min(PAGE_ROWS, values.length - shown)} more`}
        </button>
      )}
      <CapNote shape={shape} />
    </div>
  );
}

function TableView({ shape }: { shape: AnswerShape }) {
  const locale = useLocale();
  const [shown, setShown] = useState(PREVIEW_ROWS);
  const visible = shape.rows.slice(0, shown);
  const unit = (i: number) => shape.units?.[i] ?? null;
  const numeric = (i: number) => shape.rows.some((r) => typeof r[i] === "number") || !!unit(i) || shape.totalRow?.values[i] != null;
  const total = shape.totalRow;
  return (
    <div className="mt-3" data-testid="answer-table">
      <p className="text-sm text-slate-600">
        <span className="font-semibold text-slate-900" data-testid="answer-count">
          {formatInteger(shape.rows.length, locale)} {shape.rows.length === 1 ? "row" : "rows"}
        </span>
      </p>
      <div className="mt-2 overflow-x-auto rounded border border-slate-200">
        <table className="min-w-full text-sm">
          <thead className="bg-slate-50 text-left text-xs uppercase tracking-wide text-slate-500">
            <tr>
              {shape.columns.map((c, i) => (
                <th key={i} scope="col" className={`px-3 py-1.5 font-semibold ${numeric(i) ? "text-right" : ""}`}>
                  {columnHeader(c, unit(i))}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {visible.map((r, i) => (
              <tr key={i} className="border-t border-slate-100" data-testid="answer-table-row">
                {r.map((v, j) => (
                  <td key={j} className={`px-3 py-1.5 ${numeric(j) ? "text-right tabular-nums" : ""}`}>
                    {formatCell(v, unit(j), locale, { unit: false, column: shape.columns[j] })}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
          {total && shown >= shape.rows.length && (
            <tfoot>
              <tr className="border-t-2 border-slate-300 font-semibold" data-testid="answer-total-row">
                {shape.columns.map((_, j) => (
                  <td key={j} className={`px-3 py-1.5 ${numeric(j) ? "text-right tabular-nums" : ""}`}>
                    {j === 0 ? (
                      <span title={total.stated ? "As the source states it" : "The sum of the rows above"}>{total.label}</span>
                    ) : total.values[j] === null || total.values[j] === undefined ? (
                      ""
                    ) : (
                      formatQuantity(total.values[j]!, unit(j), locale, { unit: false, decimals: columnDecimals(shape.rows, j) })
                    )}
                  </td>
                ))}
              </tr>
            </tfoot>
          )}
        </table>
      </div>
      {shape.rows.length > shown && (
        <button
          type="button"
          onClick={() => setShown(shown === PREVIEW_ROWS ? Math.min(shape.rows.length, PAGE_ROWS) : shown + PAGE_ROWS)}
          className="mt-2 text-sm font-medium text-brand-700 hover:underline"
          data-testid="answer-show-all"
        >
          {shown === PREVIEW_ROWS
            ? `Show all ${formatInteger(shape.rows.length, locale)} rows`
            : `Show ${count(Math.min(PAGE_ROWS, shape.rows.length - shown), "more row")}`}
        </button>
      )}
      <CapNote shape={shape} />
      <ShapeChart shape={shape} />
    </div>
  );
}

const LANGUAGE_NAMES: Record<string, string> = { sql: "an SQL query", sparql: "a SPARQL query", cypher: "a Cypher query" };

/** The query whose result is the answer, and where it ran: the evidence of a result-shaped answer. */
function QuerySource({ shape }: { shape: AnswerShape }) {
  const guide = shape.source.guide;
  return (
    <>
      {guide && (
        <p className="mt-3 text-sm text-slate-700" data-testid="answer-guide">
          Answered with the analyst&apos;s guide <span className="font-medium text-slate-900">&lsquo;{guide.question}&rsquo;</span>
        </p>
      )}
      <details className="mt-3 text-sm" data-testid="answer-query">
        <summary className="cursor-pointer text-slate-600 hover:text-slate-900">
          {shape.source.language === "search"
            ? "Read from a table in"
            : `Computed by ${LANGUAGE_NAMES[shape.source.language] ?? shape.source.language} on`}{" "}
          <span className="font-medium text-slate-800">{shape.source.kbName}</span>
        </summary>
        <pre className="mt-2 max-h-60 overflow-auto whitespace-pre-wrap rounded bg-slate-900 p-3 font-mono text-xs text-slate-100">
          {shape.source.query}
        </pre>
        <QueryParamList params={shape.source.params} language={shape.source.language} tone="light" testId="answer-query-params" />
      </details>
    </>
  );
}

export function AnswerShapeView({ shape }: { shape: AnswerShape }) {
  return (
    <div data-testid="answer-shape" data-shape={shape.kind}>
      {shape.kind === "list" && <ListView shape={shape} />}
      {shape.kind === "table" && <TableView shape={shape} />}
      <QuerySource shape={shape} />
    </div>
  );
}
