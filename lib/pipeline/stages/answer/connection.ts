import { formatScalar } from "../../../backends/evidence";
import type { EvidencePiece } from "../../../backends/types";
import { normalizeLabel } from "../../text";
import { isPassagePiece, passageSentences } from "./extract-passages";
import { entityPositions, isPathPiece } from "./extract-paths";
import { isRowPiece, rowAnchored } from "./extract-rows";
import { isTriplePiece, tripleEnds } from "./extract-triples";
import { type QuestionFocus, mentions } from "./question-focus";
import { parseNumber } from "./value-key";

/** Every number written in a text ("48.2 million euros, up 12%" → 48.2, 12). */
function numbersIn(text: string): number[] {
  return [...text.matchAll(/[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?/g)]
    .map((m) => parseNumber(m[0]))
    .filter((n): n is number => n !== null);
}

/** Whether a text states a value: the same words, or (for numbers) the same number. */
export function statesValue(text: string, value: string): boolean {
  const v = normalizeLabel(value);
  if (v && ` ${normalizeLabel(text)} `.includes(` ${v} `)) return true;
  const n = parseNumber(value);
  return n !== null && /^\s*[-+$€£¥]?\s*[\d.,]/.test(value) && numbersIn(text).includes(n);
}

/**
 * HybGRAG's "a path from the question's entities to the answer exists in the evidence", per kind:
 * - triple: the answer is one end and a question entity the other;
 * - path: a question entity lies on the path and the answer is another node (or a property on it);
 * - row: the row names a question entity or came from a query filtered on one, and holds the answer
 *   (or the row is counted into the answer: `supporting`);
 * - passage: one sentence names a question entity and states the answer.
 * True when the question names no entity (nothing to connect); with several, connecting to one suffices
 * here (the critic asks for each linked one, see `connectsToEntityOf`).
 */
export function connectsToQuestion(piece: EvidencePiece, value: string, focus: QuestionFocus, supporting = false): boolean {
  if (focus.entities.length === 0) return true;
  return focus.entities.some((e) => connectsToEntity(piece, value, { ...focus, entities: [e] }, supporting));
}

/** The same test for one entity: `focus` narrowed to it. */
function connectsToEntity(piece: EvidencePiece, value: string, focus: QuestionFocus, supporting: boolean): boolean {
  if (isTriplePiece(piece)) {
    const ends = tripleEnds(piece.data, focus);
    return (ends.subject && statesValue(piece.data.object.label, value)) || (ends.object && statesValue(piece.data.subject.label, value));
  }
  if (isPathPiece(piece)) {
    const anchors = entityPositions(piece.data, focus);
    if (anchors.length === 0) return false;
    return (
      piece.data.nodes.some(
        (n, i) =>
          (!anchors.includes(i) && statesValue(n.caption, value)) ||
          Object.values(n.properties).some((p) => (Array.isArray(p) ? p : [p]).some((x) => statesValue(formatScalar(x), value))),
      ) ||
      piece.data.edges.some((e) =>
        Object.values(e.properties).some((p) => (Array.isArray(p) ? p : [p]).some((x) => statesValue(formatScalar(x), value))),
      )
    );
  }
  if (isRowPiece(piece)) {
    if (!rowAnchored(piece, focus)) return false;
    return supporting || piece.data.values.some((v) => statesValue(formatScalar(v), value));
  }
  if (isPassagePiece(piece)) {
    return passageSentences(piece, focus.language).some(
      (s) => statesValue(s, value) && focus.entities.some((e) => e.forms.some((f) => mentions(s, f, focus.language))),
    );
  }
  return false;
}

/** Whether a piece connects the answer to one given question entity. */
export function connectsToEntityOf(
  piece: EvidencePiece,
  value: string,
  focus: QuestionFocus,
  entityIndex: number,
  supporting = false,
): boolean {
  const entity = focus.entities[entityIndex];
  return entity !== undefined && connectsToEntity(piece, value, { ...focus, entities: [entity] }, supporting);
}
