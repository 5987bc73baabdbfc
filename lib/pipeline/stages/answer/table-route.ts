import { DEFAULT_PIPELINE_CONFIG } from "../../config";
import type { Answer, Derivation } from "../../types";
import type { AnswerInput, AnswerResult } from "./answer";
import { refusal } from "./refusal";
import { type TableAnswer, answerFromTables, asksForLineItems } from "./table-answer";
import { readTableQuestion } from "./table-question";
import { describePiece } from "./uncertainty";
import { parseNumber } from "./value-key";
import type { ValueType } from "./value-types";

/**
 * Where the table reading (located cells, computed operations) and the candidate scoring meet: a
 * computed answer or a located cell replaces the candidate answer when it is at least as sure; a
 * question that asks for an operation the evidence cannot support is refused with what was missing.
 * A table answer below the confidence bar is shown as uncertain, like any other.
 */

const FIGURE_TYPES = new Set(["number", "money", "percent", "count"]);

/**
 * Whether a table figure can answer the question: it asks for an amount, a number, a percentage or a
 * count ("how much"), names a reporting period ("what was X in 2019"), or asks for an operation or a
 * comparison over periods. A question after a name, a place or a passage of text is not answered with
 * a cell of some table.
 */
function asksForFigure(input: AnswerInput): boolean {
  const intent = input.intent;
  const q = readTableQuestion(intent.completed);
  if (q.asksStructure || asksForLineItems(q.text)) return true;
  if (q.asksForProse) return false;
  if (q.cue || q.asksPeriod || q.periods.length > 0) return true;
  if (/^how (much|many)\b/i.test(intent.wh ?? "")) return true;
  return intent.answerTypes.some((t) => FIGURE_TYPES.has(t)) || intent.aggregate !== null;
}

function valueTypeOf(t: TableAnswer): ValueType {
  if (t.kind === "count") return "count";
  if (t.kind === "comparison" || t.kind === "list") return /^\d{4}$/.test(t.text) ? "date" : "entity";
  const d: Derivation | null = t.derivation;
  if (d?.scale === "percent" || /%$/.test(t.text)) return "percent";
  if (d?.unit || /[$€£¥]/.test(t.text)) return "money";
  return "number";
}

export function withTableAnswer(input: AnswerInput, result: AnswerResult): AnswerResult {
  if (!asksForFigure(input)) return result;
  const outcome = answerFromTables(input.intent.completed, input.evidence, input.intent.language || "en");
  if (!outcome) return result;
  const current = result.answer;
  if ("problem" in outcome) {
    if (!current.refrained && current.certainty !== "uncertain") return result;
    return { ...result, answer: refusal(outcome.problem.problem, current.confidence, current.candidates), notes: [...result.notes, outcome.problem.problem] };
  }
  const t = outcome.answer;
  const currentScore = current.refrained ? 0 : current.confidence;
  if (t.kind !== "computed" && t.confidence < currentScore) return { ...result, notes: [...result.notes, `Table reading (not used): ${t.note}`] };
  const threshold = input.threshold ?? DEFAULT_PIPELINE_CONFIG.answerThreshold;
  // Other evidence stating the same figure (the report's prose for a table cell) agrees with it: cited too.
  const tableFigure = t.kind === "cell" || t.kind === "computed" ? parseNumber(t.text) : null;
  const agreeing = tableFigure === null ? undefined : current.candidates.find((c) => parseNumber(c.value) === tableFigure && c.support.some((id) => !t.citations.includes(id)));
  const citations = [...new Set([...t.citations, ...(agreeing?.support ?? [])])].slice(0, 5);
  const confidence = Math.round(Math.max(t.confidence, agreeing ? Math.min(1, agreeing.score) : 0) * 1000) / 1000;
  const uncertain = confidence < threshold;
  const byId = new Map(input.evidence.map((e) => [e.piece.id, e.piece]));
  const main = byId.get(t.citations[0]);
  const where = t.derivation ? `computed as ${t.derivation.expression}` : main ? describePiece(main) : "";
  // The table answer leads the candidates, so whatever reads them (the critic, the refusal panel) sees the value given.
  const lead = { value: t.text, score: confidence, support: citations, type: valueTypeOf(t) };
  const answer: Answer = {
    text: t.text,
    refrained: false,
    reason: uncertain ? `Not certain — the closest answer in the sources is ${t.text}${where ? ` (${where})` : ""}.` : null,
    confidence,
    citations,
    candidates: [lead, ...current.candidates.filter((c) => c.value !== t.text && c !== agreeing)].slice(0, 5),
    ...(t.derivation ? { derivation: t.derivation } : {}),
    ...(uncertain ? { certainty: "uncertain" as const } : {}),
  };
  return { ...result, answer, notes: [...result.notes, t.note] };
}
