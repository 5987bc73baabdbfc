"use client";

import { forwardRef } from "react";
import type { PassageData, PathData, RowData, TripleData } from "@/lib/backends/types";
import type { ScoredEvidence } from "@/lib/pipeline/contracts";
import { count } from "@/lib/format/count";
import { evidenceHeadline, locationLines } from "./evidence-location";
import { readableAnswerText } from "../ask/figures";
import { useLocale } from "../ui/locale";
import { KindBadge } from "../kb/status-badge";
import { PassageView } from "./passage-view";
import { PathView } from "./path-view";
import { QueryCode } from "./query-code";
import { RowView } from "./row-view";
import { TripleView } from "./triple-view";

export const EVIDENCE_KIND_LABELS: Record<string, string> = {
  passage: "Document passage",
  row: "Table row",
  triple: "Graph fact",
  path: "Graph path",
};

/** What a piece of evidence is, in words: a row that a SPARQL or Cypher query returned is a fact of the graph, not a table row. */
export function evidenceKindLabel(piece: Pick<ScoredEvidence["piece"], "kind" | "provenance">): string {
  if (piece.kind === "row" && (piece.provenance.language === "sparql" || piece.provenance.language === "cypher")) return "Graph fact";
  return EVIDENCE_KIND_LABELS[piece.kind] ?? piece.kind;
}
const KB_KIND_OF_LANGUAGE: Record<string, string> = { search: "DOCUMENTS", sql: "SQL", sparql: "SPARQL", cypher: "CYPHER" };

export function evidenceDomId(pieceId: string): string {
  return `evidence-${pieceId.replace(/[^\w-]/g, "_")}`;
}

/**
 * One piece of evidence explained (its ranking scores are the pipeline's own scale: they stay in the trace): what it says (rendered by kind), where it lives (KB, source object,
 * position) and the native query that produced it. A disclosure: the header toggles it, and a citation
 * marker in the answer opens it and moves focus to its header.
 */
export const EvidencePanel = forwardRef<
  HTMLButtonElement,
  {
    evidence: ScoredEvidence;
    number: number | null;
    open: boolean;
    onToggle: () => void;
    terms: readonly string[];
    answer: string | null;
    operandColumns?: string[];
    activeColumn?: string | null;
    /** With details: the source object's id and the native queries that found it (a business user's default view has neither). */
    details?: boolean;
  }
>(function EvidencePanel({ evidence, number, open, onToggle, terms, answer, operandColumns, activeColumn, details = true }, headerRef) {
  const { piece } = evidence;
  const domId = evidenceDomId(piece.id);
  const locale = useLocale();
  const kindLabel = evidenceKindLabel(piece);
  const location = locationLines(piece.provenance.location, { identifiers: details });
  // Identical evidence that several queries returned is one panel listing each query (lib/pipeline/merge-evidence.ts).
  const queries = [piece.provenance.query, ...(piece.provenance.alsoQueries ?? [])];
  return (
    <section
      id={domId}
      aria-label={`${number ? `Evidence ${number}: ` : ""}${kindLabel} from ${piece.provenance.kbName}`}
      className={`rounded-lg border bg-white ${open ? "border-brand-500/50 shadow-sm" : "border-slate-200"}`}
      data-testid="evidence-panel"
      data-kind={piece.kind}
    >
      <h3 className="text-sm">
        <button
          ref={headerRef}
          type="button"
          aria-expanded={open}
          aria-controls={`${domId}-body`}
          onClick={onToggle}
          className="flex w-full items-start gap-3 rounded-lg px-4 py-3 text-left hover:bg-slate-50"
        >
          {number !== null && (
            <span className="mt-0.5 inline-flex h-6 min-w-6 items-center justify-center rounded bg-brand-600 px-1.5 text-xs font-semibold text-white">
              {number}
            </span>
          )}
          <span className="min-w-0 flex-1">
            <span className="flex flex-wrap items-center gap-2">
              <span className="font-semibold text-slate-900">{kindLabel}</span>
              <span className="text-xs text-slate-500">{piece.provenance.kbName}</span>
              {details && queries.length > 1 && (
                <span className="rounded bg-slate-100 px-1.5 py-0.5 text-xs text-slate-600" data-testid="evidence-query-count">
                  returned by {count(queries.length, "query", "queries")}
                </span>
              )}
            </span>
            <span className={`mt-0.5 block text-slate-600 ${open ? "" : "truncate"}`}>
              {readableAnswerText(evidenceHeadline(piece.text), locale)}
            </span>
          </span>
          <span aria-hidden className={`mt-1 text-slate-400 transition-transform ${open ? "rotate-90" : ""}`}>
            ▶
          </span>
        </button>
      </h3>
      {open && (
        <div id={`${domId}-body`} className="space-y-3 border-t border-slate-100 px-4 py-3">
          {piece.kind === "passage" && <PassageView data={piece.data as PassageData} text={piece.text} terms={terms} />}
          {piece.kind === "row" && (
            <RowView
              data={piece.data as RowData}
              terms={terms}
              answer={answer}
              operandColumns={operandColumns}
              activeColumn={activeColumn}
            />
          )}
          {piece.kind === "triple" && <TripleView data={piece.data as TripleData} />}
          {piece.kind === "path" && <PathView data={piece.data as PathData} />}
          <dl className="grid grid-cols-[auto_minmax(0,1fr)] gap-x-4 gap-y-1 text-xs">
            <dt className="text-slate-500">Knowledge base</dt>
            <dd className="flex items-center gap-2" data-testid="evidence-kb">
              <KindBadge kind={KB_KIND_OF_LANGUAGE[piece.provenance.language] ?? ""} /> {piece.provenance.kbName}
            </dd>
            {details && (
              <>
                <dt className="text-slate-500">Source object</dt>
                <dd className="break-all font-mono" data-testid="evidence-source-object">
                  {piece.provenance.sourceObject ?? "—"}
                </dd>
              </>
            )}
            {location.length > 0 && (
              <>
                <dt className="text-slate-500">Location</dt>
                <dd className="break-all">{location.map((l) => `${l.label}: ${l.value}`).join(" · ")}</dd>
              </>
            )}
          </dl>
          {!details ? null : queries.length === 1 ? (
            <QueryCode text={piece.provenance.query} language={piece.provenance.language} params={piece.provenance.params} />
          ) : (
            queries.map((q, i) => (
              <QueryCode
                key={i}
                text={q}
                language={piece.provenance.language}
                caption={`Query ${i + 1} of ${queries.length}`}
                // The bound values belong to the piece's own query, the first; the others are kept verbatim.
                params={i === 0 ? piece.provenance.params : undefined}
              />
            ))
          )}
        </div>
      )}
    </section>
  );
});
