import type { EvidencePiece, TermData, TripleData } from "../../../backends/types";
import { normalizeLabel } from "../../text";
import type { Occurrence } from "./occurrence";
import { type QuestionFocus, isQuestionEntityNode, namesFocus } from "./question-focus";
import { valueKey } from "./value-key";
import { type ValueType, classifyValue, hintFromLabel, readableLabel } from "./value-types";

/** rdf:type, rdfs:label and the like describe a resource; they answer "what is X" only, so they weigh less. */
const STRUCTURAL_PREDICATE = /(#type|#label|#comment|#seeAlso|prefLabel|altLabel|\/name)$/;
const STRUCTURAL_FACTOR = 0.5;
/** Weight of the predicate when its words are not the relation asked about (a fact about the entity, maybe not the one asked). */
const UNMATCHED_RELATION = 0.6;
/** The question names the class of its answer ("which city") and this resource is of another class. */
const OTHER_CLASS = 0.5;
/** Neither end is a question entity: the triple is background, each end a weak candidate. */
const UNANCHORED_FACTOR = 0.5;

export function isTriplePiece(piece: EvidencePiece): piece is EvidencePiece & { data: TripleData } {
  return piece.kind === "triple" && "predicate" in piece.data;
}

/** Which end of a triple names a question entity, by label or by IRI. */
export function tripleEnds(data: TripleData, focus: QuestionFocus): { subject: boolean; object: boolean } {
  return {
    subject: isQuestionEntityNode(data.subject.label, [data.subject.value], focus),
    object: isQuestionEntityNode(data.object.label, [data.object.value], focus),
  };
}

const XSD_TYPES: [RegExp, ValueType][] = [
  [/#(date|dateTime|gYear|gYearMonth|gMonthDay)$/, "date"],
  [/#(integer|int|long|short|decimal|double|float|nonNegativeInteger|positiveInteger|unsignedInt)$/, "number"],
  [/#boolean$/, "boolean"],
];

function termType(term: TermData, hint: ValueType | null, nameKinds: boolean): ValueType {
  const fromDatatype = term.datatype ? XSD_TYPES.find(([re]) => re.test(term.datatype ?? ""))?.[1] : undefined;
  if (fromDatatype === "date") return "date";
  if (fromDatatype === "number") return classifyValue(Number(term.value), hint);
  return classifyValue(term.label, hint, nameKinds);
}

/**
 * Candidates from a triple: the object when a question entity is the subject ("Summit 2 Tent — weight
 * in grams — 2100" for the tent's weight), the subject when it is the object ("Maria Lindqvist — chief
 * executive of — Aurora" for Aurora's chief executive). A predicate read "P of" describes its subject
 * (the chief executive), any other predicate its object (made by → an organisation).
 */
export function tripleOccurrences(piece: EvidencePiece & { data: TripleData }, pieceIndex: number, focus: QuestionFocus): Occurrence[] {
  const { subject, predicate, object } = piece.data;
  const ends = tripleEnds(piece.data, focus);
  if (ends.subject && ends.object) return [];
  const predicateLabel = predicate.label || readableLabel(predicate.value);
  const matched = namesFocus(predicateLabel, focus);
  let weight = focus.focusTerms.size === 0 || matched ? 1 : UNMATCHED_RELATION;
  if (STRUCTURAL_PREDICATE.test(predicate.value) && !matched) weight *= STRUCTURAL_FACTOR;
  const describesSubject = /\bof$/i.test(predicateLabel.trim());
  const hint = hintFromLabel(predicateLabel);
  const occurrence = (term: TermData, role: "subject" | "object", w: number): Occurrence => {
    const type = termType(term, (role === "subject") === describesSubject ? hint : null, focus.wantsNameKind);
    const display = term.label || term.value;
    const classFit =
      focus.answerClasses.size === 0 || !term.classLabel || focus.answerClasses.has(normalizeLabel(term.classLabel)) ? 1 : OTHER_CLASS;
    return {
      display,
      key: valueKey(display, type),
      type,
      pieceIndex,
      weight: w * classFit,
      slot: [piece.provenance.kb, predicate.value, role].join("|"),
    };
  };
  if (ends.subject) return [occurrence(object, "object", weight)];
  if (ends.object) return [occurrence(subject, "subject", weight)];
  if (focus.entities.length > 0)
    return [occurrence(object, "object", weight * UNANCHORED_FACTOR), occurrence(subject, "subject", weight * UNANCHORED_FACTOR)];
  // No entity in the question ("which products weigh more than 2 kg?"): the subject is what such triples list.
  return [occurrence(subject, "subject", weight), occurrence(object, "object", weight * UNANCHORED_FACTOR)];
}
