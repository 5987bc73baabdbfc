"use client";

import type { ScoredEvidence } from "@/lib/pipeline/contracts";
import { EvidencePanel } from "./evidence-panel";

export interface EvidenceSectionProps {
  cited: { evidence: ScoredEvidence; number: number }[];
  /** Shown when nothing is cited (a refusal): the closest pieces, so the user sees what was found. */
  closest: ScoredEvidence[];
  others: ScoredEvidence[];
  openIds: ReadonlySet<string>;
  onToggle: (pieceId: string) => void;
  registerHeader: (pieceId: string, el: HTMLButtonElement | null) => void;
  terms: readonly string[];
  answer: string | null;
  /** The columns of each row that a computed answer's operands were read from. */
  operandColumns?: ReadonlyMap<string, string[]>;
  /** The operand the reader last opened: its cell is highlighted. */
  activeOperand?: { pieceId: string; column: string } | null;
  /** Show ids and native queries (the "Details" view). */
  details?: boolean;
}

/** The evidence-explanation panels: one per cited piece, then the rest of what the run considered. */
export function EvidenceSection({
  cited,
  closest,
  others,
  openIds,
  onToggle,
  registerHeader,
  terms,
  answer,
  operandColumns,
  activeOperand,
  details = true,
}: EvidenceSectionProps) {
  const panel = (e: ScoredEvidence, number: number | null) => (
    <EvidencePanel
      key={e.piece.id}
      ref={(el) => registerHeader(e.piece.id, el)}
      evidence={e}
      number={number}
      open={openIds.has(e.piece.id)}
      onToggle={() => onToggle(e.piece.id)}
      terms={terms}
      answer={answer}
      operandColumns={operandColumns?.get(e.piece.id)}
      activeColumn={activeOperand?.pieceId === e.piece.id ? activeOperand.column : null}
      details={details}
    />
  );
  return (
    <section aria-labelledby="evidence-heading" className="space-y-3">
      <h2 id="evidence-heading" className="text-base font-semibold">
        Evidence
      </h2>
      {cited.length > 0 ? (
        <div className="space-y-2" data-testid="cited-evidence">
          {cited.map((c) => panel(c.evidence, c.number))}
        </div>
      ) : closest.length > 0 ? (
        <>
          <p className="text-sm text-slate-600">No piece was cited. These came closest:</p>
          <div className="space-y-2">{closest.map((e) => panel(e, null))}</div>
        </>
      ) : (
        <p className="text-sm text-slate-600">
          The run found no evidence. Try naming the product, place or period you mean, or choose a different knowledge base.
        </p>
      )}
      {others.length > 0 && (
        <details className="group">
          <summary className="cursor-pointer text-sm font-medium text-slate-700">Other evidence considered ({others.length})</summary>
          <div className="mt-2 space-y-2">{others.map((e) => panel(e, null))}</div>
        </details>
      )}
    </section>
  );
}
