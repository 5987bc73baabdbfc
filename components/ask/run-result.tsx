"use client";

import Link from "next/link";
import { type ReactNode, useCallback, useMemo, useRef, useState } from "react";
import { flushSync } from "react-dom";
import type { RunView } from "@/lib/runs/types";
import { evidenceKindLabel } from "../evidence/evidence-panel";
import { EvidenceSection } from "../evidence/evidence-section";
import { questionTerms } from "../evidence/highlight-terms";
import { Alert } from "../ui/alert";
import { AnswerCard } from "./answer-card";
import { CandidateSources } from "./candidate-sources";
import { FeedbackForm } from "./feedback-form";
import { progressFromTrace } from "./progress";
import { RefinementPath } from "./refinement-path";
import { StageProgress } from "./stage-progress";
import { TraceView } from "./trace-view";
import { count } from "@/lib/format/count";
import { DateTime } from "../ui/locale";

function Section({ id, title, children, hint }: { id: string; title: string; children: ReactNode; hint?: string }) {
  return (
    <section aria-labelledby={id} className="space-y-3">
      <div>
        <h2 id={id} className="text-base font-semibold">
          {title}
        </h2>
        {hint && <p className="text-xs text-slate-500">{hint}</p>}
      </div>
      {children}
    </section>
  );
}

export function QuestionHeading({ question, meta }: { question: string; meta?: ReactNode }) {
  return (
    <header className="space-y-1">
      <p className="text-xs font-semibold uppercase tracking-wide text-slate-500">Question</p>
      <p className="break-words text-lg font-medium text-slate-900" data-testid="run-question">
        {question}
      </p>
      {/* Two lines reserved, so the answer below sits at the same place while streaming and when done. */}
      <div className="min-h-8 text-xs text-slate-500">{meta}</div>
    </header>
  );
}

/**
 * A finished (or reopened) run: the answer, its citations and the evidence in words; with `details`, also
 * what a reviewer needs (source object ids, native queries, the refinement path, candidate sources with
 * their linked names and match strengths, the trace).
 */
export function RunResult({
  view,
  canSaveGuide,
  details = true,
  onDetails,
}: {
  view: RunView;
  canSaveGuide: boolean;
  details?: boolean;
  onDetails?: (open: boolean) => void;
}) {
  const outcome = view.outcome;
  const [openIds, setOpenIds] = useState<Set<string>>(() => new Set());
  const headers = useRef(new Map<string, HTMLButtonElement>());
  const progress = useMemo(() => progressFromTrace(view.trace), [view.trace]);

  const { cited, closest, others } = useMemo(() => {
    if (!outcome) return { cited: [], closest: [], others: [] };
    const byId = new Map(outcome.evidence.map((e) => [e.piece.id, e]));
    const citedIds = outcome.answer.citations.filter((id) => byId.has(id));
    const cited = citedIds.map((id, i) => ({ evidence: byId.get(id)!, number: i + 1 }));
    const rest = outcome.evidence.filter((e) => !citedIds.includes(e.piece.id));
    const closest = cited.length ? [] : rest.slice(0, 5);
    return { cited, closest, others: rest.slice(closest.length, closest.length + 20) };
  }, [outcome]);

  const terms = useMemo(
    () => questionTerms(outcome?.intent?.completed ?? view.question, outcome?.intent?.keywords ?? []),
    [outcome, view.question],
  );
  const toggle = useCallback(
    (id: string) =>
      setOpenIds((s) => {
        const next = new Set(s);
        if (next.has(id)) next.delete(id);
        else next.add(id);
        return next;
      }),
    [],
  );
  const cite = useCallback((id: string) => {
    flushSync(() => setOpenIds((s) => new Set(s).add(id)));
    const el = headers.current.get(id);
    el?.focus({ preventScroll: true });
    el?.scrollIntoView({ block: "start", behavior: "smooth" });
  }, []);
  // The cell a derivation operand was read from: its row opens and the cell is highlighted.
  const [operandCell, setOperandCell] = useState<{ pieceId: string; column: string } | null>(null);
  const showOperand = useCallback(
    (pieceId: string, column: string) => {
      setOperandCell({ pieceId, column });
      cite(pieceId);
    },
    [cite],
  );
  const operandColumns = useMemo(() => {
    const map = new Map<string, string[]>();
    for (const o of outcome?.answer.derivation?.operands ?? []) map.set(o.evidenceId, [...(map.get(o.evidenceId) ?? []), o.column]);
    return map;
  }, [outcome]);
  const registerHeader = useCallback((id: string, el: HTMLButtonElement | null) => {
    if (el) headers.current.set(id, el);
    else headers.current.delete(id);
  }, []);

  const understood =
    outcome?.intent && outcome.intent.completed.trim().toLowerCase() !== view.question.trim().toLowerCase()
      ? outcome.intent.completed
      : null;
  const meta = (
    <>
      <p>
        {view.viewerIsOwner ? "Asked" : `Asked by ${view.ownerName}`} <DateTime value={view.createdAt} />
        {outcome && details ? ` · ${count(outcome.evidence.length, "evidence piece")} · ${count(outcome.iterations.length, "round")}` : ""}
        {outcome && onDetails && (
          <>
            {" · "}
            <button
              type="button"
              className="font-medium text-brand-700 hover:underline"
              aria-expanded={details}
              aria-controls="run-details"
              onClick={() => onDetails(!details)}
              data-testid="details-toggle"
            >
              {details ? "Hide details" : "Details"}
            </button>
          </>
        )}
      </p>
      {understood && (
        <p className="truncate" data-testid="understood-as" title={understood}>
          Understood as: <span className="font-medium text-slate-700">{understood}</span>
        </p>
      )}
    </>
  );

  return (
    <div
      className="grid gap-6 lg:grid-cols-[minmax(0,1fr)_18rem]"
      data-testid="run-result"
      data-run-id={view.id}
      data-details={details ? "open" : "closed"}
    >
      <div className="min-w-0 space-y-6">
        <QuestionHeading question={view.question} meta={meta} />
        {view.hidden?.wholeResult && (
          <Alert tone="info">
            This run read knowledge bases you may not use, so its answer, evidence and refinement path are hidden. Ask an admin for access,
            or ask the question again.
          </Alert>
        )}
        {view.hidden && !view.hidden.wholeResult && (
          <p className="text-xs text-slate-500">
            Links to {view.hidden.entityLinks} name(s) in knowledge bases you may not use are not shown.
          </p>
        )}
        {view.laterTurns > 0 && view.conversationId && (
          <p className="text-sm text-slate-600">
            This conversation went on with {count(view.laterTurns, "more question")}.{" "}
            <Link
              href={`/ask?conversation=${encodeURIComponent(view.conversationId)}`}
              prefetch={false}
              className="font-medium text-brand-700 hover:underline"
            >
              Open the latest
            </Link>
          </p>
        )}
        {outcome ? (
          <>
            <AnswerCard
              runId={view.id}
              status={view.status}
              outcome={outcome}
              citations={cited.map((c) => ({
                pieceId: c.evidence.piece.id,
                number: c.number,
                label: `${evidenceKindLabel(c.evidence.piece)} from ${c.evidence.piece.provenance.kbName}`,
              }))}
              onCite={cite}
              onOperand={showOperand}
              canSaveGuide={canSaveGuide}
            />
            {outcome.degradations.length > 0 && (
              <div
                role="status"
                className="rounded-md border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900"
                data-testid="degradations"
              >
                <p className="font-medium">Not everything went to plan:</p>
                <ul className="mt-1 list-disc space-y-0.5 pl-5">
                  {outcome.degradations.map((d, i) => (
                    <li key={i}>{d}</li>
                  ))}
                </ul>
              </div>
            )}
          </>
        ) : (
          !view.hidden?.wholeResult && (
            <div
              className="min-h-40 rounded-lg border border-amber-200 bg-white p-5 text-sm text-slate-700"
              data-testid="answer-card"
              data-status={view.status}
            >
              {view.status === "RUNNING" || view.status === "QUEUED"
                ? "This run has not finished (or the server stopped while it ran). Ask the question again."
                : "This run has no stored result."}
            </div>
          )
        )}
        {view.status !== "RUNNING" && view.status !== "QUEUED" && !view.hidden?.wholeResult && (
          <FeedbackForm runId={view.id} initial={view.feedback} />
        )}
        {outcome && (
          <>
            <EvidenceSection
              cited={cited}
              closest={closest}
              others={others}
              openIds={openIds}
              onToggle={toggle}
              registerHeader={registerHeader}
              terms={terms}
              answer={outcome.answer.refrained ? null : outcome.answer.text}
              operandColumns={operandColumns}
              activeOperand={operandCell}
              details={details}
            />
          </>
        )}
        {outcome && details && (
          <div id="run-details" className="space-y-6" data-testid="run-details">
            <Section
              id="refinement-heading"
              title="Refinement path"
              hint="The critic checks each round's answer against the evidence and, when it fails, says what to change."
            >
              <RefinementPath
                iterations={outcome.iterations}
                finalText={outcome.answer.text}
                finalReason={outcome.answer.reason}
                refrained={outcome.answer.refrained}
              />
            </Section>
            <Section
              id="candidates-heading"
              title="Candidate sources"
              hint="The knowledge bases source selection picked for this question, how well each matched and why."
            >
              <CandidateSources outcome={outcome} />
            </Section>
          </div>
        )}
        {(details || !outcome) && (
          <details className="rounded-lg border border-slate-200 bg-white p-4">
            <summary className="cursor-pointer text-sm font-semibold">Trace ({count(view.trace.length, "event")})</summary>
            <div className="mt-3">
              <TraceView events={view.trace} />
            </div>
          </details>
        )}
      </div>
      <aside className="lg:sticky lg:top-4 lg:self-start" aria-label="Run stages">
        <StageProgress progress={progress} live={false} />
        {outcome?.llm && (
          // The run's LLM total (issue 5): calls, tokens and the estimated cost from the price table.
          <p className="mt-2 px-1 text-xs text-slate-600" data-testid="llm-usage">
            LLM: {count(outcome.llm.calls, "call")} · {count(outcome.llm.totalTokens, "token")} · ${outcome.llm.costUsd.toFixed(4)}
            {outcome.llm.priceUnknown.length > 0 ? ` (no price for ${outcome.llm.priceUnknown.join(", ")})` : ""}
          </p>
        )}
      </aside>
    </div>
  );
}
