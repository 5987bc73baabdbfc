import { formatScalar } from "../../../backends/evidence";
import type { RowData } from "../../../backends/types";
import { type Answer, type ScoredEvidence, periodsOf } from "../../contracts";
import { documentTitleOf, documentTitles, isRowPiece } from "./extract-rows";
import { terms } from "../../text";
import { type QuestionFocus, focusMatches, matchesQuestionEntity } from "./question-focus";
import { joinList } from "./refusal";
import type { ScoredCandidate } from "./score";

/**
 * A question that does not name the key a table is organised by ("What is the hotel cap?" over a
 * table with one cap per city) is answered by the table's column, key by key ("Stockholm: 190 EUR,
 * Oslo: 210 EUR, …"), rather than refused as ambiguous: that is what the source says.
 */

/** Members of the listing: values of the winner's column, each from its own row. */
const MEMBER_SHARE = 0.2;
const MEMBER_FIT = 0.5;
const MAX_KEYS = 25;

function rowLabel(data: RowData): string | null {
  for (const v of data.values) {
    const t = formatScalar(v);
    if (t && !/^[\s$€£¥%()+\-.,\d]*$/.test(t)) return t;
  }
  return null;
}

/**
 * Whether a table is about what the question asks: every content word of the question is the table's
 * own (its caption, section, source or headers). "In which city is the returns warehouse?" is not
 * answered by listing the city of every customer: the customers table knows neither returns nor warehouses. A document table's context includes its document's title.
 */
function tableOwnsQuestion(data: RowData, focus: QuestionFocus, documentTitle: string): boolean {
  const own = new Set(
    terms([documentTitle, data.table, data.section ?? "", ...data.columns].join(" ").replace(/[_/]+/g, " "), focus.language),
  );
  return [...focus.questionTerms].every((t) => own.has(t) || /^\d+$/.test(t));
}

/** The listing's column must be nearly as strong as the best value overall (a passage's figure may lead it). */
const GROUP_SHARE = 0.7;

/** The strongest column of table values among the candidates: candidates sharing a slot, each from a row. */
function strongestColumn(pool: ScoredCandidate[], evidence: ScoredEvidence[], focus: QuestionFocus): ScoredCandidate[] {
  const lead = pool.find((c) => !c.penalized && c.fit >= MEMBER_FIT && isRowPiece(evidence[c.pieces[0].index].piece));
  if (!lead || lead.score < GROUP_SHARE * pool[0].score) return [];
  // The column must be the thing asked about ("Hotel cap per night (EUR)" for "the hotel cap"), not merely a column of a retrieved table.
  // A question naming a period asks for one figure of it, not a listing.
  if (periodsOf(focus.intent).length > 0) return [];
  const column = (lead.slot.split("|").pop() ?? "").replace(/\d+/g, " ");
  if (focusMatches(column, focus) === 0) return [];
  const piece = evidence[lead.pieces[0].index].piece;
  if (isRowPiece(piece) && !tableOwnsQuestion(piece.data, focus, documentTitleOf(piece, documentTitles(evidence.map((e) => e.piece)))))
    return [];
  return pool.filter(
    (c) => c === lead || (c.slots.has(lead.slot) && !c.penalized && c.fit >= MEMBER_FIT && c.score >= MEMBER_SHARE * lead.score),
  );
}

/**
 * The figure for the whole table when the question names none of its keys: the Total row of the
 * column asked about ("What was revenue in 2024?" over revenue by region).
 */
export function columnTotal(
  pool: ScoredCandidate[],
  evidence: ScoredEvidence[],
  focus: QuestionFocus,
  candidates: Answer["candidates"],
): Answer | null {
  const best = pool[0];
  if (!best) return null;
  const column = pool.filter((c) => c === best || (c.slots.has(best.slot) && !c.penalized && c.fit >= MEMBER_FIT));
  if (column.length < 2) return null;
  const labelled = column.map((c) => {
    const piece = evidence[c.pieces[0].index].piece;
    return { c, piece, label: isRowPiece(piece) ? rowLabel(piece.data) : null };
  });
  if (labelled.some((l) => l.label && matchesQuestionEntity(l.label, focus))) return null;
  const total = labelled.find((l) => l.label && /^total\b/i.test(l.label.trim()));
  if (!total) return null;
  return {
    text: total.c.display,
    refrained: false,
    reason: null,
    confidence: Math.round(Math.min(1, best.score) * 1000) / 1000,
    citations: [total.piece.id],
    candidates,
  };
}

export function perKeyAnswer(
  pool: ScoredCandidate[],
  evidence: ScoredEvidence[],
  focus: QuestionFocus,
  candidates: Answer["candidates"],
): Answer | null {
  const members = strongestColumn(pool, evidence, focus);
  const best = members[0];
  if (!best || members.length < 2) return null;
  const keyed: { label: string; display: string; id: string; row: number }[] = [];
  for (const m of members) {
    const piece = evidence[m.pieces[0].index].piece;
    if (!isRowPiece(piece)) return null;
    const label = rowLabel(piece.data);
    // A key the question names would have singled its row out: this is not a listing question.
    if (!label || matchesQuestionEntity(label, focus)) return null;
    keyed.push({ label, display: m.display, id: piece.id, row: piece.data.rowIndex ?? keyed.length });
  }
  if (new Set(keyed.map((k) => k.label.toLowerCase())).size !== keyed.length) return null;
  const ordered = keyed.sort((a, b) => a.row - b.row).slice(0, MAX_KEYS);
  return {
    text: joinList(ordered.map((k) => `${k.label}: ${k.display}`)),
    refrained: false,
    reason: null,
    confidence: Math.round(Math.min(1, best.score) * 1000) / 1000,
    citations: ordered.map((k) => k.id).slice(0, 10),
    candidates,
  };
}
