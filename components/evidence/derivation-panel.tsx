"use client";

import type { ReactNode } from "react";
import type { Derivation, DerivationOperand } from "@/lib/pipeline/contracts";

const OPERATION_LABELS: Record<Derivation["operation"], string> = {
  sum: "Total",
  difference: "Difference",
  average: "Average",
  multiplication: "Product",
  division: "Ratio",
  "change-ratio": "Percentage change",
  count: "Count",
};

function figure(value: number): string {
  const text = Math.abs(value).toLocaleString("en-US", { maximumFractionDigits: 6 });
  return value < 0 ? `(−${text})` : text;
}

function resultText(d: Derivation): string {
  const text = `${d.result < 0 ? "−" : ""}${Math.abs(d.result).toLocaleString("en-US", { maximumFractionDigits: 2 })}`;
  if (d.scale === "percent") return `${text}%`;
  return d.scale ? `${text} ${d.scale}` : text;
}

/**
 * The explanation of a computed answer: the operation, the expression with every operand as a button
 * that opens its table row in the evidence and highlights the cell it was read from, and where each
 * operand sits (row and column).
 */
export function DerivationPanel({
  derivation,
  citationNumbers,
  onOperand,
}: {
  derivation: Derivation;
  citationNumbers: ReadonlyMap<string, number>;
  onOperand: (evidenceId: string, column: string) => void;
}) {
  const d = derivation;
  const op = (i: number): ReactNode => {
    const o = d.operands[i];
    if (!o) return "?";
    return (
      <button
        key={`op-${i}`}
        type="button"
        onClick={() => onOperand(o.evidenceId, o.column)}
        title={`${o.row} · ${o.column}`}
        aria-label={`${o.text}: ${o.row}, ${o.column} (open the evidence)`}
        className="rounded bg-amber-50 px-1 font-semibold text-amber-900 underline decoration-amber-400 decoration-dotted underline-offset-4 ring-1 ring-amber-200 hover:bg-amber-100"
        data-testid="derivation-operand"
        data-evidence-id={o.evidenceId}
      >
        {figure(o.value)}
      </button>
    );
  };
  const join = (sep: string) => d.operands.flatMap((_, i) => (i === 0 ? [op(i)] : [sep, op(i)]));
  let expression: ReactNode[];
  switch (d.operation) {
    case "sum":
      expression = join(" + ");
      break;
    case "average":
      expression = ["(", ...join(" + "), `) / ${d.operands.length}`];
      break;
    case "difference":
      expression = [op(0), " − ", op(1)];
      break;
    case "multiplication":
      expression = [op(0), " × ", op(1)];
      break;
    case "division":
      expression = [op(0), " / ", op(1), ...(d.scale === "percent" ? [" × 100"] : [])];
      break;
    case "change-ratio":
      expression = ["(", op(0), " − ", op(1), ") / ", op(1), " × 100"];
      break;
    case "count":
      expression = [`${d.operands.length} counted`];
      break;
  }
  return (
    <div className="mt-3 rounded-md border border-amber-200 bg-amber-50/40 p-3" data-testid="derivation-panel" data-operation={d.operation}>
      <p className="text-xs font-semibold uppercase tracking-wide text-slate-500">
        How this was computed · {OPERATION_LABELS[d.operation]}
        {d.proposedBy === "llm" ? " (operation proposed by the model, recomputed here)" : ""}
      </p>
      <p className="mt-1 font-mono text-base text-slate-900" data-testid="derivation-expression">
        {expression.map((part, i) => (typeof part === "string" ? <span key={`t-${i}`}>{part}</span> : part))}
        <span> = </span>
        <span className="font-semibold">{resultText(d)}</span>
      </p>
      <ul className="mt-2 space-y-0.5 text-xs text-slate-700">
        {uniqueOperands(d.operands).map((o) => {
          const n = citationNumbers.get(o.evidenceId);
          return (
            <li key={`${o.evidenceId}-${o.column}`}>
              <span className="font-medium tabular-nums">{o.text}</span> — {o.row}, {o.column}
              {n !== undefined && <span className="text-slate-500"> (evidence [{n}])</span>}
            </li>
          );
        })}
      </ul>
    </div>
  );
}

function uniqueOperands(operands: DerivationOperand[]): DerivationOperand[] {
  const seen = new Set<string>();
  return operands.filter((o) => {
    const key = `${o.evidenceId}\u0000${o.column}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
