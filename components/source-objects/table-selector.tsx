"use client";

import type { Scalar } from "@/lib/backends/types";
import { count } from "@/lib/format/count";
import { ScrollArea } from "../ui/scroll-area";

function cell(v: Scalar): string {
  return v === null || v === undefined ? "" : String(v);
}

function toggle(list: number[], i: number): number[] {
  return list.includes(i) ? list.filter((x) => x !== i) : [...list, i].sort((a, b) => a - b);
}

/**
 * A table preview whose rows and columns can be selected for "Pick table cells" (SelectCoordinates).
 * Every selection is a labelled checkbox (Tab and Space work; a screen reader hears "Row 2: United
 * Kingdom"), and the selected cells are highlighted so the analyst sees exactly what the action will read.
 * Rows are numbered from 1 on screen; the selection keeps AU-RAG's positions, from 0.
 */
export function TableSelector({
  title,
  columns,
  rows,
  totalRows,
  truncated,
  selectedRows,
  selectedColumns,
  onChange,
}: {
  title: string;
  columns: string[];
  rows: Scalar[][];
  totalRows?: number;
  truncated: boolean;
  selectedRows: number[];
  selectedColumns: number[];
  onChange: (next: { rows: number[]; columns: number[] }) => void;
}) {
  const allRows = rows.length > 0 && selectedRows.length === rows.length;
  const allColumns = columns.length > 0 && selectedColumns.length === columns.length;
  return (
    <div>
      <ScrollArea label={`${title}: preview, scrolls sideways`} className="max-h-[28rem]">
        <table className="min-w-full text-left text-xs" aria-label={`Preview of ${title}`}>
          <thead className="sticky top-0 z-30 bg-slate-100">
            <tr>
              <th scope="col" className="sticky left-0 z-20 whitespace-nowrap bg-slate-100 px-2 py-1.5 align-top font-semibold">
                <label className="inline-flex items-center gap-1.5">
                  <input
                    type="checkbox"
                    aria-label="Select all rows"
                    checked={allRows}
                    onChange={() => onChange({ rows: allRows ? [] : rows.map((_, i) => i), columns: selectedColumns })}
                    className="h-3.5 w-3.5 accent-brand-600"
                  />
                  Row
                </label>
              </th>
              {columns.map((c, j) => (
                <th
                  key={j}
                  scope="col"
                  className={`min-w-24 max-w-48 px-2 py-1.5 align-top font-semibold ${selectedColumns.includes(j) ? "bg-brand-100 text-brand-700" : ""}`}
                >
                  {/* Headers wrap so a table of several columns fits beside the list without scrolling sideways. */}
                  <label className="flex items-start gap-1.5">
                    <input
                      type="checkbox"
                      aria-label={`Column ${c}`}
                      checked={selectedColumns.includes(j)}
                      onChange={() => onChange({ rows: selectedRows, columns: toggle(selectedColumns, j) })}
                      className="mt-0.5 h-3.5 w-3.5 shrink-0 accent-brand-600"
                    />
                    {c}
                  </label>
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((row, i) => {
              const rowOn = selectedRows.includes(i);
              return (
                <tr key={i} className={`border-t border-slate-100 ${rowOn ? "bg-brand-50/60" : "bg-white"}`}>
                  <th
                    scope="row"
                    className={`sticky left-0 z-10 whitespace-nowrap px-2 py-1 font-normal text-slate-500 ${rowOn ? "bg-brand-50" : "bg-white"}`}
                  >
                    <label className="inline-flex items-center gap-1.5 tabular-nums">
                      <input
                        type="checkbox"
                        aria-label={`Row ${i + 1}: ${cell(row[0] ?? null)}`}
                        checked={rowOn}
                        onChange={() => onChange({ rows: toggle(selectedRows, i), columns: selectedColumns })}
                        className="h-3.5 w-3.5 accent-brand-600"
                      />
                      {i + 1}
                    </label>
                  </th>
                  {row.map((v, j) => {
                    const on = rowOn && selectedColumns.includes(j);
                    return (
                      <td
                        key={j}
                        className={`max-w-xs truncate px-2 py-1 ${on ? "bg-brand-100 font-medium text-brand-700" : ""}`}
                        title={cell(v)}
                      >
                        {cell(v)}
                      </td>
                    );
                  })}
                </tr>
              );
            })}
          </tbody>
        </table>
      </ScrollArea>
      <p className="mt-1 flex flex-wrap items-center gap-x-3 text-xs text-slate-500">
        <span>
          {count(rows.length, "row")} shown{totalRows !== undefined ? ` of ${totalRows.toLocaleString("en")}` : ""}
          {truncated ? " (more not shown)" : ""}.
        </span>
        <span aria-live="polite">
          {count(selectedRows.length, "row")} × {count(selectedColumns.length, "column")} selected.
        </span>
        {!allColumns && columns.length > 1 && (
          <button
            type="button"
            className="text-brand-700 underline-offset-2 hover:underline"
            onClick={() => onChange({ rows: selectedRows, columns: columns.map((_, j) => j) })}
          >
            Select all columns
          </button>
        )}
      </p>
    </div>
  );
}
