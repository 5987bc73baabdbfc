import { formatScalar } from "../../../backends/evidence";
import type { EvidencePiece, PassageData, RowData, TripleData } from "../../../backends/types";
import { type Answer, type ScoredEvidence, periodsOf } from "../../contracts";
import type { QuestionFocus } from "./question-focus";
import { columnTotal, perKeyAnswer } from "./per-key";
import { refusal } from "./refusal";
import { periodsIn, yearsOf } from "../../../tables/periods";
import { unitOfValue } from "../../units";
import { NUMERIC_TYPES } from "./value-types";
import { type ScoredCandidate, claimedElsewhere } from "./score";

/**
 * Below the confidence bar, two honest outcomes. When the best value is supported — a piece near the
 * top of the evidence points at it, its kind fits the question, and no other source contradicts it —
 * Mosaic shows it as the closest answer, marked uncertain, with its evidence ("Not certain — the
 * closest answer in the sources is 160 EUR (the Berlin row of …)"). Otherwise it refuses: the answer
 * is not in the evidence, or two sources disagree. Reasons are written for the person who asked: no
 * scores, thresholds or stage names.
 */

/**
 * A value is supported when some piece vouches for it at least this much (score.ts's noisy-OR: one
 * piece in the upper half of the evidence ranking that points squarely at it gives about 0.3).
 */
const MIN_SUPPORT = 0.3;
/** Its kind fits the question at least plausibly (value-types.ts: 0.7 plausible, ≤ 0.4 another kind). */
const MIN_FIT = 0.5;
/** A rival from another source this close makes a disagreement, not an uncertain answer. */
const DISAGREEMENT_SHARE = 0.7;

/** Where a piece sits, as a reader would look it up: "the Berlin row of Hotels and daily allowances", "Travel and Expense Policy". */
export function describePiece(piece: EvidencePiece): string {
  if (piece.kind === "row" && "columns" in piece.data) {
    const row = piece.data as RowData;
    const label = row.values.map((v) => formatScalar(v)).find((v) => v !== "" && !/^[\s$€£¥%()+\-.,\d]*$/.test(v));
    const table = row.table === "Query result" ? piece.provenance.kbName : row.table;
    return label ? `the ${label} row of ${table}` : `a row of ${table}`;
  }
  if (piece.kind === "passage" && "documentId" in piece.data) return (piece.data as PassageData).documentTitle || piece.provenance.kbName;
  if (piece.kind === "triple" && "subject" in piece.data) {
    const t = piece.data as TripleData;
    return `${t.subject.label} in ${piece.provenance.kbName}`;
  }
  return piece.provenance.kbName;
}

/** A question about a period ("in 2025") is only answered, even uncertainly, from evidence that speaks of that period. */
export function aboutAskedPeriod(c: ScoredCandidate, evidence: ScoredEvidence[], focus: QuestionFocus): boolean {
  const asked = new Set(periodsOf(focus.intent).flatMap(yearsOf));
  if (asked.size === 0) return true;
  const piece = evidence[c.pieces[0].index].piece;
  const text = piece.kind === "row" && "columns" in piece.data ? `${piece.text} ${(piece.data as RowData).columns.join(" ")}` : piece.text;
  return periodsIn(text).some((p) => yearsOf(p).some((y) => asked.has(y)));
}

function sameKind(a: ScoredCandidate, b: ScoredCandidate): boolean {
  const numeric = (c: ScoredCandidate) => NUMERIC_TYPES.includes(c.type);
  if (numeric(a) && numeric(b))
    return (
      (unitOfValue(a.display)?.kind ?? null) === (unitOfValue(b.display)?.kind ?? null) ||
      !unitOfValue(a.display) ||
      !unitOfValue(b.display)
    );
  return numeric(a) === numeric(b);
}

function sourceOf(c: ScoredCandidate, evidence: ScoredEvidence[]): string {
  const first = c.pieces[0];
  return first ? evidence[first.index].piece.provenance.kbName : "another source";
}

/**
 * The outcome for a best value below the bar: an uncertain answer when it is supported, else a
 * refusal saying why in plain words.
 */
export function belowTheBar(
  pool: ScoredCandidate[],
  confidence: number,
  evidence: ScoredEvidence[],
  focus: QuestionFocus,
  candidates: Answer["candidates"],
): Answer {
  const best = pool[0];
  if (!best) return refusal(notFoundReason(focus), confidence, candidates);
  const rival = pool.slice(1).find((c) => !c.penalized && claimedElsewhere(c, best));
  const bestKbs = new Set(best.pieces.map((p) => evidence[p.index].piece.provenance.kb));
  // Sources disagree when they give different values of the same kind (two amounts, two dates), not a level and a percentage.
  // Two values disagree only when both could answer the question: a fitting kind, not a name the question
  // already gives, from evidence that speaks of what the question is about.
  const answers = (c: ScoredCandidate) => !c.penalized && !c.offSubject && c.fit >= MIN_FIT;
  if (
    rival &&
    answers(best) &&
    answers(rival) &&
    rival.score >= DISAGREEMENT_SHARE * best.score &&
    sameKind(rival, best) &&
    rival.pieces.some((p) => !bestKbs.has(evidence[p.index].piece.provenance.kb))
  ) {
    return refusal(
      `The sources disagree: ${best.display} (${sourceOf(best, evidence)}) vs ${rival.display} (${sourceOf(rival, evidence)}). Check which source is current.`,
      confidence,
      candidates,
    );
  }
  if (best.penalized || best.fit < MIN_FIT || best.support < MIN_SUPPORT || !aboutAskedPeriod(best, evidence, focus)) {
    return refusal(notFoundReason(focus, best.display), confidence, candidates);
  }
  // Several rows of one table, none named by the question: the table's answer is the listing.
  const listing = rival ? (columnTotal(pool, evidence, focus, candidates) ?? perKeyAnswer(pool, evidence, focus, candidates)) : null;
  if (listing) return listing;
  const top = evidence[best.pieces[0].index].piece;
  const also =
    rival && answers(rival) && rival.score >= DISAGREEMENT_SHARE * best.score
      ? ` The same source also gives ${rival.display}; add what tells them apart (a date, a place, a product) to be sure.`
      : "";
  return {
    text: best.display,
    refrained: false,
    reason: `Not certain — the closest answer in the sources is ${best.display} (${describePiece(top)}).${also}`,
    confidence,
    citations: [...new Set(best.pieces.slice(0, 5).map((p) => evidence[p.index].piece.id))],
    candidates,
    certainty: "uncertain",
  };
}

const TYPE_WORDS: Record<string, string> = {
  number: "a number",
  count: "a number",
  money: "an amount",
  percent: "a percentage",
  date: "a date",
  person: "a person's name",
  organisation: "an organisation",
  location: "a place",
  boolean: "a yes or no",
  entity: "a name",
  text: "a statement",
};

/** Why there is no answer, in the asker's terms: what kind of answer was looked for, and (when one was close) what was found instead. */
export function notFoundReason(focus: QuestionFocus, closest?: string): string {
  const kind = focus.wanted.map((t) => TYPE_WORDS[t]).find(Boolean);
  const looked = kind ? `${kind} that answers the question` : "an answer to the question";
  const near = closest
    ? ` The closest thing found, '${closest.length > 80 ? `${closest.slice(0, 77)}…` : closest}', does not clearly answer it.`
    : "";
  return `The sources found do not state ${looked}.${near} Try naming the document, table or period you mean.`;
}

/**
 * A question about a period is not answered from evidence about another one (issue 32): when the best
 * value's evidence never speaks of the asked year, the run says that nothing found covers it.
 */
export function offPeriodRefusal(
  best: ScoredCandidate,
  evidence: ScoredEvidence[],
  focus: QuestionFocus,
  confidence: number,
  candidates: Answer["candidates"],
): Answer | null {
  if (aboutAskedPeriod(best, evidence, focus)) return null;
  const asked = [...new Set(periodsOf(focus.intent).flatMap(yearsOf))].sort((a, b) => a - b);
  const top = evidence[best.pieces[0].index].piece;
  return refusal(
    `Nothing found speaks of ${asked.join(", ")}: the closest value, '${best.display}', comes from ${describePiece(top)}, which is about another period.`,
    confidence,
    candidates,
  );
}
