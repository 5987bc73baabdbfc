import { DEFAULT_PIPELINE_CONFIG } from "../../config";
import type { Answer, Derivation } from "../../contracts";
import type { AnswerInput, AnswerResult } from "./types";
import { refusal } from "./refusal";
import { type TableAnswer, answerFromTables, asksForLineItems } from "./table-answer";
import { readTableQuestion } from "./table-question";
import { describePiece } from "./uncertainty";
import { parseNumber } from "./value-key";
import { terms } from "../../text";
import { isPassagePiece, passageSentences } from "./extract-passages";
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

/** The question's content words (periods aside: every figure of the period shares them). */
function questionWords(question: string, language: string): Set<string> {
  return new Set(terms(question, language).filter((t) => !/^\d+$/.test(t)));
}

function wordsCovered(words: Set<string>, text: string, language: string): number {
  const own = new Set(terms(text, language));
  let n = 0;
  for (const w of words) if (own.has(w)) n++;
  return n;
}

/**
 * A figure the candidate answer reads from a passage whose sentence names more of the question's words
 * than the located cell's row, caption and headers do ("$9.5 million of hosting related costs … in
 * fiscal year 2018" against a row "Customer related costs"): the sentence is about what was asked,
 * the row only about something that shares a word with it, so the passage's figure stands.
 */
function passageNamesMore(input: AnswerInput, current: Answer, t: TableAnswer): boolean {
  // A bare year is a date, not the figure asked for.
  if (t.kind !== "cell" || current.refrained || parseNumber(current.text) === null || /^\s*(?:19|20)\d{2}\b\W*$/.test(current.text))
    return false;
  const byId = new Map(input.evidence.map((e) => [e.piece.id, e.piece]));
  const source = byId.get(current.citations[0]);
  const row = byId.get(t.citations[0]);
  if (!source || !row || !isPassagePiece(source)) return false;
  const language = input.intent.language || "en";
  const sentence = passageSentences(source, language).find((s) => s.includes(current.text));
  if (!sentence) return false;
  const words = questionWords(input.intent.completed, language);
  return wordsCovered(words, sentence, language) > wordsCovered(words, row.text, language);
}

export function withTableAnswer(input: AnswerInput, result: AnswerResult): AnswerResult {
  if (!asksForFigure(input)) return result;
  const outcome = answerFromTables(input.intent.completed, input.evidence, input.intent.language || "en");
  if (!outcome) return result;
  const current = result.answer;
  if ("problem" in outcome) {
    if (!current.refrained && current.certainty !== "uncertain") return result;
    return {
      ...result,
      answer: refusal(outcome.problem.problem, current.confidence, current.candidates),
      notes: [...result.notes, outcome.problem.problem],
    };
  }
  const t = outcome.answer;
  const currentScore = current.refrained ? 0 : current.confidence;
  if (t.kind !== "computed" && t.confidence < currentScore)
    return { ...result, notes: [...result.notes, `Table reading (not used): ${t.note}`] };
  if (passageNamesMore(input, current, t))
    return {
      ...result,
      notes: [...result.notes, `Table reading (not used: the passage's sentence names more of the question): ${t.note}`],
    };
  const threshold = input.threshold ?? DEFAULT_PIPELINE_CONFIG.answerThreshold;
  // Other evidence stating the same figure (the report's prose for a table cell) agrees with it: cited too.
  const tableFigure = t.kind === "cell" || t.kind === "computed" ? parseNumber(t.text) : null;
  const agreeing =
    tableFigure === null
      ? undefined
      : current.candidates.find((c) => parseNumber(c.value) === tableFigure && c.support.some((id) => !t.citations.includes(id)));
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
