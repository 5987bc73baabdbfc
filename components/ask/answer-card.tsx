"use client";

import Link from "next/link";
import type { RunOutcome } from "@/lib/pipeline/run";
import type { RunStatusName } from "@/lib/runs/types";
import { DerivationPanel } from "../evidence/derivation-panel";
import { AnswerShapeView } from "./answer-shape";
import { shapeSentence } from "./figures";
import { useLocale } from "../ui/locale";

/**
 * The confidence is the calibrated probability that the answer is right (lib/pipeline/calibration): said
 * in words a reader acts on, the figure on hover.
 */
function confidenceWord(c: number): "high" | "medium" | "low" {
  return c >= 0.7 ? "high" : c >= 0.45 ? "medium" : "low";
}
const WORDS = { high: "likely right", medium: "may be right", low: "not certain" } as const;

const BAR = { high: "bg-emerald-500", medium: "bg-amber-500", low: "bg-rose-500" } as const;

/**
 * The answer (or the refusal and its reason) with its confidence and inline citation markers; each marker
 * opens the evidence panel it points to.
 */
export function AnswerCard({
  runId,
  status,
  outcome,
  citations,
  onCite,
  onOperand,
  canSaveGuide,
}: {
  runId: string;
  status: RunStatusName;
  outcome: RunOutcome;
  citations: { pieceId: string; number: number; label: string }[];
  onCite: (pieceId: string) => void;
  /** Opens the evidence row an operand of a computed answer was read from, its cell highlighted. */
  onOperand?: (pieceId: string, column: string) => void;
  canSaveGuide: boolean;
}) {
  const locale = useLocale();
  const a = outcome.answer;
  const answered = status === "ANSWERED" && !a.refrained;
  // Supported by the evidence but not firmly: shown as the closest answer, marked, never as plain fact.
  const uncertain = answered && a.certainty === "uncertain";
  const listed = Boolean(a.shape && a.shape.kind !== "scalar");
  const level = confidenceWord(a.confidence);
  const heading = uncertain
    ? "Closest answer — not certain"
    : answered
      ? "Answer"
      : status === "CANCELLED"
        ? "Cancelled"
        : status === "FAILED"
          ? "The run failed"
          : "No answer";
  return (
    <section
      aria-labelledby="answer-heading"
      className={`min-h-40 rounded-lg border bg-white p-5 ${answered && !uncertain ? "border-slate-200" : "border-amber-200"}`}
      data-testid="answer-card"
      data-status={status}
      data-certainty={uncertain ? "uncertain" : undefined}
    >
      <div className="flex flex-wrap items-start justify-between gap-3">
        <h2 id="answer-heading" className="text-xs font-semibold uppercase tracking-wide text-slate-500">
          {heading}
        </h2>
        {/* A refusal has no confidence to show: there is no answer to be confident in. */}
        {answered && (
          <div
            className="flex items-center gap-2 text-xs text-slate-600"
            data-testid="answer-confidence"
            data-confidence={a.confidence.toFixed(3)}
            title={`${Math.round(a.confidence * 100)}% likely to be right`}
          >
            <span aria-hidden className="h-1.5 w-20 overflow-hidden rounded-full bg-slate-100">
              <span className={`block h-full ${BAR[level]}`} style={{ width: `${Math.round(a.confidence * 100)}%` }} />
            </span>
            <span className="font-medium text-slate-800">{uncertain ? WORDS.low : WORDS[level]}</span>
            <span className="sr-only">({Math.round(a.confidence * 100)}% likely to be right)</span>
          </div>
        )}
      </div>
      {answered ? (
        <>
          <p
            className={`mt-2 font-semibold leading-snug ${listed ? "text-lg" : "text-2xl"} ${uncertain ? "text-slate-700" : "text-slate-900"}`}
          >
            {/* A list or a table is shown in full below: the sentence form stays short, its citations visible. */}
            <span data-testid="answer-text" className={listed ? "line-clamp-3" : undefined}>
              {a.shape ? shapeSentence(a.shape, locale) : a.text}
            </span>{" "}
            {citations.map((c) => (
              <button
                key={c.pieceId}
                type="button"
                onClick={() => onCite(c.pieceId)}
                aria-label={`Evidence [${c.number}]: ${c.label}`}
                className="mx-0.5 inline-flex h-6 min-w-6 -translate-y-1 items-center justify-center rounded bg-brand-50 px-1.5 align-middle text-xs font-semibold text-brand-700 ring-1 ring-brand-100 hover:bg-brand-100"
                data-testid="citation"
              >
                [{c.number}]
              </button>
            ))}
          </p>
          {uncertain && a.reason && (
            <p className="mt-1 text-sm text-amber-900" data-testid="uncertainty-note">
              {a.reason}
            </p>
          )}
          {a.derivation && (
            <DerivationPanel
              derivation={a.derivation}
              citationNumbers={new Map(citations.map((c) => [c.pieceId, c.number]))}
              onOperand={(id, column) => (onOperand ? onOperand(id, column) : onCite(id))}
            />
          )}
        </>
      ) : (
        <div className="mt-2 space-y-1">
          <p className="text-lg font-semibold text-slate-900" data-testid="answer-text">
            {status === "CANCELLED" ? "You cancelled this run." : "Mosaic did not find an answer it can stand behind."}
          </p>
          {a.reason && status !== "CANCELLED" && (
            <p className="text-sm text-slate-700" data-testid="refusal-reason">
              <span className="font-medium">Why: </span>
              {a.reason}
            </p>
          )}
        </div>
      )}
      {answered && a.shape && <AnswerShapeView shape={a.shape} />}
      {outcome.winner && answered && (
        <p className="mt-3 text-sm text-slate-600">
          From{" "}
          <span className="font-medium text-slate-800" data-testid="answer-source">
            {outcome.winner.kbName}
          </span>
          : {outcome.winner.reason}
        </p>
      )}
      {!answered && a.candidates.length > 0 && (
        <div className="mt-3 text-sm">
          <p className="text-slate-600">Values the evidence points to:</p>
          <ul className="mt-1 flex flex-wrap gap-2">
            {a.candidates.slice(0, 6).map((c) => (
              <li key={c.value} className="rounded bg-slate-100 px-2 py-0.5 text-slate-800">
                {c.value}
              </li>
            ))}
          </ul>
        </div>
      )}
      {canSaveGuide && (status === "ANSWERED" || status === "REFRAINED") && (
        <div className="mt-4 border-t border-slate-100 pt-3">
          <Link
            href={`/guides/new?fromRun=${encodeURIComponent(runId)}`}
            prefetch={false}
            className="inline-flex items-center rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm font-medium text-slate-800 hover:bg-slate-50"
          >
            Save as guide
          </Link>
          <span className="ml-2 text-xs text-slate-500">Review and correct it, then future similar questions follow it.</span>
        </div>
      )}
    </section>
  );
}
