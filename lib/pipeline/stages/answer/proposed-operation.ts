import type { ProposedComputation } from "./prompt";
import { normalizeLabel } from "../../text";
import type { ScoredEvidence } from "../../contracts";
import { type CellRef, type Computed, computeOverCells } from "./table-answer";
import { type TableView, tablesInEvidence } from "./table-cells";

/**
 * An LLM's proposed operation, checked and computed classically: every operand must name a table row
 * of this run's evidence (by its alias or id) and one of that row's column headers, and the cell must
 * hold a figure as a report writes it; the result is computed by the same code as the classical
 * reading. A proposal that does not resolve is rejected with the reason, never trusted.
 */
export function computeProposal(
  proposal: ProposedComputation,
  evidence: ScoredEvidence[],
  pieceIndexOf: (ref: string) => number | undefined,
): Computed {
  const tables = tablesInEvidence(evidence);
  const rowOf = new Map<number, { table: TableView; row: TableView["rows"][number] }>();
  for (const table of tables) for (const row of table.rows) rowOf.set(row.pieceIndex, { table, row });
  const cells: CellRef[] = [];
  for (const [i, o] of proposal.operands.entries()) {
    const index = pieceIndexOf(o.evidence.trim());
    const located = index === undefined ? undefined : rowOf.get(index);
    if (!located)
      return { ok: false, problem: `operand ${i + 1} (${o.evidence}) is not a table row of this run's evidence`, citations: [] };
    const wanted = normalizeLabel(o.column);
    const column = located.table.columns.findIndex((c) => normalizeLabel(c.name) === wanted);
    if (column < 0) return { ok: false, problem: `'${located.row.label}' has no column '${o.column}'`, citations: [] };
    const cell = located.row.cells[column];
    if (!cell || cell.reading.kind !== "number")
      return { ok: false, problem: `the '${o.column}' cell of '${located.row.label}' holds no figure`, citations: [] };
    cells.push({ table: located.table, row: located.row, column, cell, number: cell.reading.number });
  }
  return computeOverCells(proposal.operation, cells, {
    percentDivision: proposal.percent,
    names: cells.map((c) => `${c.row.label} (${located(c)})`),
    proposedBy: "llm",
  });
}

function located(c: CellRef): string {
  return c.table.columns[c.column]?.name ?? `column ${c.column + 1}`;
}
