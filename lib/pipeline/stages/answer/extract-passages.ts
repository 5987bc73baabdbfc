import { splitSentences } from "../../../backends/documents/sentences";
import type { EvidencePiece, PassageData } from "../../../backends/types";
import { answerFormOf } from "../../contracts";
import { answerComplement } from "./complement";
import type { Occurrence } from "./occurrence";
import { type Span, sentenceSpans, spanNumber } from "./passage-spans";
import { type QuestionFocus, isQuestionEntityValue, questionStates, termSet } from "./question-focus";
import { valueKey } from "./value-key";
import { NUMERIC_TYPES, typeFit } from "./value-types";

/** Sentences tied for the most question terms are all read, up to this many. */
const MAX_BEST_SENTENCES = 2;
/** A sentence matching few of the question's terms still weighs this much (it did win its passage). */
const SENTENCE_FLOOR = 0.5;
/** A span fitting at least this well gives its sentence the shape of an answer (value-types.ts: 0.7 = plausible). */
const MIN_SHAPE_FIT = 0.5;
/** A whole sentence answers "text" questions (what does the policy cover?) but is long: keep it readable. */
const MAX_SENTENCE_CHARS = 400;

export function isPassagePiece(piece: EvidencePiece): piece is EvidencePiece & { data: PassageData } {
  return piece.kind === "passage" && "documentId" in piece.data;
}

/** The passage's sentences: as the backend split them, else split here (the text without its "Title / Section:" heading). */
export function passageSentences(piece: EvidencePiece & { data: PassageData }, language: string): string[] {
  if (piece.data.sentences && piece.data.sentences.length > 0) return piece.data.sentences;
  const title = piece.data.documentTitle ?? "";
  let body = piece.text;
  const separator = title && body.startsWith(title) ? body.indexOf(": ", title.length) : -1;
  if (separator >= 0) body = body.slice(separator + 2);
  return splitSentences(body, language).map((s) => s.text);
}

/** Where the question's terms sit in a sentence (character offsets of the matching words). */
function questionTermTokens(sentence: string, focus: QuestionFocus): { start: number; end: number }[] {
  const wanted = new Set([...focus.questionTerms, ...focus.focusTerms]);
  return [...sentence.matchAll(/\S+/g)]
    .filter((m) => [...termSet(m[0], focus.language)].some((t) => wanted.has(t)))
    .map((m) => ({ start: m.index, end: m.index + m[0].length }));
}

/** Share of a span's weight that depends on its closeness to the question's words (classical QA's proximity feature). */
const PROXIMITY_SHARE = 0.3;
/** Words between a span and the nearest question word at which the proximity bonus halves. */
const PROXIMITY_HALF_GAP = 3;

/**
 * Within a sentence, the value next to the question's words is the likelier answer: "EBITDA improved
 * from $62.6 million in FY18 to $85.1 million in FY19" answers "EBITDA in FY19" with the second amount.
 * 1 for a span adjacent to a question word, falling towards 1 − PROXIMITY_SHARE with the number of words
 * in between (or when no question word lies outside the span).
 */
function proximity(sentence: string, span: Span, anchors: { start: number; end: number }[]): number {
  const gaps = anchors
    .filter((a) => a.end <= span.start || a.start >= span.end)
    .map((a) => (a.end <= span.start ? sentence.slice(a.end, span.start) : sentence.slice(span.end, a.start)))
    .map((between) => between.split(/\s+/).filter(Boolean).length);
  if (gaps.length === 0) return 1 - PROXIMITY_SHARE;
  return 1 - PROXIMITY_SHARE + PROXIMITY_SHARE / (1 + Math.min(...gaps) / PROXIMITY_HALF_GAP);
}

/** A level reached or left ("to 48.2 million", "from 43.0") is not the change a "by how much did X grow" question asks for. */
const LEVEL_NOT_CHANGE = 0.5;

/**
 * In "Revenue grew 12 percent to 48.2 million", the change is the figure after the verb (or after
 * "by"); the figures after "to" and "from" are levels. For a question about a change, levels weigh less.
 */
function changeRole(sentence: string, span: Span, focus: QuestionFocus): number {
  if (!answerFormOf(focus.intent).change) return 1;
  const before = sentence.slice(0, span.start).trimEnd().split(/\s+/).pop()?.toLowerCase() ?? "";
  return before === "to" || before === "from" ? LEVEL_NOT_CHANGE : 1;
}

/** Words that state a reason or a purpose: "due to", "driven by", "as a result of", "to reduce concentration risk". */
const STATES_REASON =
  /\b(?:due\s+to|because|driven\s+by|as\s+a\s+result\s+of|result(?:ed|ing|s)?\s+(?:of|from)|attributable\s+to|attributed\s+to|owing\s+to|reflect(?:s|ed|ing)|(?:primarily|mainly|largely|principally)\s+(?:from|by|on|as)|offset\s+by|caused\s+by|led\s+by|on\s+(?:lower|higher|the\s+back\s+of)|in\s+order\s+to|so\s+as\s+to|to\s+(?:reduce|assess|ensure|avoid|mitigate|manage|provide|support|protect))\b/i;
/** A sentence that names what a reason question asks about but states no reason weighs this much: it restates the change, not its cause. */
const NO_REASON_WEIGHT = 0.6;

/** "Title / Section" of a passage, as the documents backend writes it before the text. */
export function passageHeading(piece: EvidencePiece & { data: PassageData }): string {
  const title = piece.data.documentTitle ?? "";
  const separator = title && piece.text.startsWith(title) ? piece.text.indexOf(": ", title.length) : -1;
  return separator >= 0 ? piece.text.slice(0, separator) : title;
}

/** Terms saying what is asked (relation, keywords) weigh more than entity terms, which only say about what. */
const FOCUS_TERM_WEIGHT = 2;

function termWeight(term: string, focus: QuestionFocus): number {
  return focus.focusTerms.has(term) ? FOCUS_TERM_WEIGHT : 1;
}

/** A question term found only in the passage's heading (document title, section) counts this much: context, not the sentence itself. */
const HEADING_TERM_SHARE = 0.5;

/**
 * The question's terms a sentence contains, weighted (see FOCUS_TERM_WEIGHT); terms that only the
 * passage heading holds ("Aurora Outfitters Annual Report 2025") count at HEADING_TERM_SHARE, since the
 * heading says what every sentence below it is about.
 */
export function sentenceMatch(sentence: string, focus: QuestionFocus, heading = ""): number {
  const sentenceTerms = termSet(sentence, focus.language);
  const headingTerms = termSet(heading, focus.language);
  let n = 0;
  for (const t of new Set([...focus.questionTerms, ...focus.focusTerms])) {
    if (sentenceTerms.has(t)) n += termWeight(t, focus);
    else if (headingTerms.has(t)) n += HEADING_TERM_SHARE * termWeight(t, focus);
  }
  return n;
}

function totalWeight(focus: QuestionFocus): number {
  let n = 0;
  for (const t of new Set([...focus.questionTerms, ...focus.focusTerms])) n += termWeight(t, focus);
  return Math.max(1, n);
}

interface SentenceCandidate {
  text: string;
  match: number;
  spans: Span[];
}

/** Whether a sentence holds a value that could answer: a span of a fitting type that the question does not already name. */
function holdsAnswerShape(s: SentenceCandidate, focus: QuestionFocus): boolean {
  if (focus.wanted.includes("text")) return true;
  return s.spans.some(
    (span) =>
      typeFit(focus.wanted, span.type, span.text) >= MIN_SHAPE_FIT &&
      !isQuestionEntityValue(span.text, focus) &&
      !questionStates(span.text, focus),
  );
}

/**
 * Sentence-level matching: the sentences with the most (weighted) question terms win, among those that
 * hold a value of the asked type when any does ("2025 was a strong year for Aurora" names the company
 * but holds no revenue; "Revenue grew … to 48.2 million euros" does). Ties are all kept, up to two.
 */
export function bestSentences(
  sentences: string[],
  focus: QuestionFocus,
  heading = "",
): { sentences: SentenceCandidate[]; strength: number } {
  // A sentence must share a term with the question itself; the heading only adds to its strength.
  const matching = sentences
    .filter((text) => sentenceMatch(text, focus) > 0)
    .map((text) => ({ text, match: sentenceMatch(text, focus, heading), spans: [] as Span[] }));
  for (const s of matching) s.spans = sentenceSpans(s.text, focus.language, focus.wantsNameKind);
  const shaped = matching.filter((s) => holdsAnswerShape(s, focus));
  let pool = shaped.length > 0 ? shaped : matching;
  // A reason question is answered by a sentence that gives one ("… primarily due to …"), when the passage has such a sentence about the question.
  if (answerFormOf(focus.intent).reason) {
    const top = Math.max(0, ...pool.map((s) => s.match));
    const reasons = pool.filter((s) => STATES_REASON.test(s.text) && s.match >= top / 2);
    if (reasons.length > 0) pool = reasons;
  }
  const best = Math.max(0, ...pool.map((s) => s.match));
  if (best === 0) return { sentences: [], strength: 0 };
  return { sentences: pool.filter((s) => s.match === best).slice(0, MAX_BEST_SENTENCES), strength: Math.min(1, best / totalWeight(focus)) };
}

/**
 * Candidates from a passage: the typed spans (dates, money, percentages, numbers with units, names) of
 * the best sentence(s), weighted by how much of the question that sentence matches. For "text"
 * questions the sentence itself is a candidate. A passage none of whose sentences shares a term with
 * the question yields nothing.
 */
export function passageOccurrences(piece: EvidencePiece & { data: PassageData }, pieceIndex: number, focus: QuestionFocus): Occurrence[] {
  const { sentences, strength } = bestSentences(passageSentences(piece, focus.language), focus, passageHeading(piece));
  if (sentences.length === 0) return [];
  const asksReason = answerFormOf(focus.intent).reason;
  const baseWeight = SENTENCE_FLOOR + (1 - SENTENCE_FLOOR) * strength;
  const slot = [piece.provenance.kb, piece.data.documentId].join("|");
  const out: Occurrence[] = [];
  for (const sentence of sentences) {
    const weight = asksReason && !STATES_REASON.test(sentence.text) ? baseWeight * NO_REASON_WEIGHT : baseWeight;
    const anchors = questionTermTokens(sentence.text, focus);
    const closeness = sentence.spans.map((span) => proximity(sentence.text, span, anchors) * changeRole(sentence.text, span, focus));
    // Relative to the closest span: proximity orders the values of a sentence, it does not weaken the sentence.
    const closest = Math.max(...closeness, Number.EPSILON);
    sentence.spans.forEach((span, i) => {
      const number = NUMERIC_TYPES.includes(span.type) ? spanNumber(span) : null;
      const key = number !== null ? `n:${Number(number.toPrecision(12))}` : valueKey(span.text, span.type, span.iso);
      out.push({ display: span.text, key, type: span.type, pieceIndex, weight: (weight * closeness[i]) / closest, slot });
    });
    if (focus.wanted.includes("text")) {
      // The part that answers, when the sentence restates the question first ("Goodwill consists of …");
      // a reason is read with what it explains, so "why" keeps the whole sentence.
      const asksWhy = answerFormOf(focus.intent).why;
      const complement = asksWhy ? null : answerComplement(sentence.text, focus.intent.completed, focus.language);
      const text = (complement ?? sentence.text.trim()).slice(0, MAX_SENTENCE_CHARS);
      out.push({ display: text, key: valueKey(text, "text"), type: "text", pieceIndex, weight, slot });
    }
  }
  return out;
}
