import { formatScalar } from "../../../backends/evidence";
import type { EvidencePiece, RowData } from "../../../backends/types";
import { DEFAULT_PIPELINE_CONFIG } from "../../config";
import { countOfOtherNoun, countedNounOfColumn } from "../../units";
import { isAggregateColumn } from "./value-types";
import { normalizeLabel } from "../../text";
import { type Answer, type ScoredEvidence, answerFormOf } from "../../contracts";
import { type Bridge, findBridges, focusWithBridges } from "./bridge";
import { extractOccurrences } from "./extract";
import { type QuestionFocus, buildQuestionFocus, pieceMentionsEntity } from "./question-focus";
import { REFUSAL_TEXT, joinList, noEvidenceReason, quoteList, refusal, unknownEntities } from "./refusal";
import { groupedRowsAnswer } from "./grouped-rows";
import { answerFromResult, withSupportingEvidence } from "./result-answer";
import { answeredWithGuide } from "../select-evidence/commit";
import { type ScoredCandidate, answerConfidence, scoreCandidates } from "./score";
import { withTableAnswer } from "./table-route";
import type { AnswerInput, AnswerResult } from "./types";
import { belowTheBar, notFoundReason, offPeriodRefusal } from "./uncertainty";
import { count } from "../../../format/count";

const MAX_CANDIDATES = 5;
const MAX_CITATIONS = 5;
/** Members of a list answer score at least this share of the winner (the rest is noise from the same slot). */
const LIST_MEMBER_SHARE = 0.2;
/** A list member's type must fit at least this well (a year among product names is not a product). */
const LIST_MEMBER_FIT = 0.5;
const MAX_LIST_MEMBERS = 25;

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}

function publicCandidates(ranked: ScoredCandidate[], evidence: ScoredEvidence[]): Answer["candidates"] {
  return ranked.slice(0, MAX_CANDIDATES).map((c) => ({
    value: c.display,
    score: round3(c.score),
    support: c.pieces.map((p) => evidence[p.index].piece.id),
    type: c.type,
  }));
}

/** Evidence ids behind the chosen values, strongest contribution first. */
function citationsOf(chosen: ScoredCandidate[], evidence: ScoredEvidence[]): string[] {
  const contributions = new Map<string, number>();
  for (const c of chosen) {
    for (const p of c.pieces) {
      const id = evidence[p.index].piece.id;
      contributions.set(id, Math.max(contributions.get(id) ?? 0, p.contribution));
    }
  }
  return [...contributions.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, MAX_CITATIONS)
    .map(([id]) => id);
}

/** The question's linked entities a piece names (a path through two actors names both), by index. */
function linkedEntitiesIn(piece: EvidencePiece, focus: QuestionFocus): number[] {
  return focus.entities.flatMap((e, i) => (e.linked && pieceMentionsEntity(piece, e, focus.language) ? [i] : []));
}

/**
 * HybGRAG's intersection: when some evidence connects several of the question's linked entities at
 * once ("movies of Tom Hanks and Meg Ryan": a path through both), the answer is among the values that
 * such evidence supports; each entity's own ego-graph is background. The largest set of entities any
 * supporting piece joins is the yardstick (not every linked mention: "movies" may also link to a value
 * elsewhere in the catalog).
 */
export function intersectionOnly(ranked: ScoredCandidate[], evidence: ScoredEvidence[], focus: QuestionFocus): ScoredCandidate[] {
  if (ranked.length === 0 || focus.entities.filter((e) => e.linked).length < 2) return ranked;
  const named = new Map<number, number[]>();
  const namedBy = (index: number) => {
    if (!named.has(index)) named.set(index, linkedEntitiesIn(evidence[index].piece, focus));
    return named.get(index)!;
  };
  let joined: number[] = [];
  for (const c of ranked) for (const p of c.pieces) if (namedBy(p.index).length > joined.length) joined = namedBy(p.index);
  if (joined.length < 2) return ranked;
  const joint = ranked.filter((c) => c.pieces.some((p) => joined.every((i) => namedBy(p.index).includes(i))));
  return joint.length > 0 ? joint : ranked;
}

/** The values of a list answer: the winner and the other candidates from the winner's slot (the same column, predicate, relationship, document). */
export function listMembers(ranked: ScoredCandidate[]): ScoredCandidate[] {
  const [winner] = ranked;
  if (!winner) return [];
  const members = ranked.filter(
    (c) =>
      c === winner || (c.slots.has(winner.slot) && !c.penalized && c.fit >= LIST_MEMBER_FIT && c.score >= LIST_MEMBER_SHARE * winner.score),
  );
  return members.slice(0, MAX_LIST_MEMBERS);
}

/**
 * A value drawn from a row about a bridge entity is also supported by the fact that led to the bridge:
 * both are cited, so the answer shows the whole chain (the graph fact, then the table row).
 */
function addBridgeSupport(ranked: ScoredCandidate[], bridges: Bridge[], evidence: ScoredEvidence[]): void {
  for (const c of ranked) {
    for (const b of bridges) {
      const uses = c.pieces.find((p) => rowNames(evidence[p.index].piece, b.entity.mention));
      if (uses && !c.pieces.some((p) => p.index === b.via)) c.pieces.push({ index: b.via, contribution: uses.contribution * 0.99 });
    }
  }
}

function rowNames(piece: EvidencePiece, label: string): boolean {
  const target = normalizeLabel(label);
  return piece.kind === "row" && (piece.data as RowData).values.some((v) => normalizeLabel(formatScalar(v)) === target);
}

/**
 * The classical answerer: extract candidate values from the evidence, score them (score.ts), and
 * answer with the best (or, for list questions, the best slot's values), citing the supporting pieces;
 * or refrain, saying why: no evidence, a question entity nothing knows, no usable value, or a
 * confidence below the threshold (with the disagreeing sources named when that is the cause).
 */
export function answerQuestion(input: AnswerInput): AnswerResult {
  const result = candidateAnswer(input);
  // A committed query's result, or a breakdown read from table rows, is the answer as it stands: table
  // reading and arithmetic refine answers drawn from candidate values in text and document tables.
  if (input.result || result.answer.shape) return result;
  return withTableAnswer(input, result);
}

/** The answer from scored candidate values (no table reading, no arithmetic). */
export function candidateAnswer(input: AnswerInput): AnswerResult {
  const threshold = input.threshold ?? DEFAULT_PIPELINE_CONFIG.answerThreshold;
  if (input.result) {
    // A committed count of another noun ("number of organisation" for "how many employees") does not answer the count asked.
    const counted = input.result.columns.length === 1 ? input.result.columns[0] : null;
    const expected = answerFormOf(input.intent).unit;
    if (counted && isAggregateColumn(counted) && countOfOtherNoun(counted, expected)) {
      const reason = `${input.result.kbName} counts ${countedNounOfColumn(counted)} records, not ${expected?.noun}; none of the sources states that number.`;
      return { answer: refusal(reason, 0, []), ranked: [], notes: [reason] };
    }
    const answer = withSupportingEvidence(answerFromResult(input.result, threshold, input.sourceTexts ?? []), input.result, input.evidence);
    return {
      answer,
      ranked: [],
      notes: [
        `${input.result.guide ? `${answeredWithGuide(input.result.guide.question)}: ` : ""}Answer read from the committed query on ${input.result.kbName}: ${count(input.result.rows.length, "row")} × ${count(input.result.columns.length, "column")}.`,
      ],
    };
  }
  // A breakdown asked of a document table ("revenue by region"): the table's rows per group are the answer.
  const breakdown = groupedRowsAnswer(input.intent, input.evidence);
  if (breakdown)
    return { answer: breakdown, ranked: [], notes: [`Breakdown read from the table rows: ${breakdown.shape?.rows.length ?? 0} groups.`] };
  const focus = buildQuestionFocus(input.intent);
  const evidence = input.evidence;
  if (evidence.length === 0) {
    const about = focus.entities.length > 0 ? ` about ${quoteList(focus.entities.map((e) => e.mention))}` : "";
    return { answer: refusal(noEvidenceReason(about), 0, []), ranked: [], notes: [] };
  }
  const unknown = unknownEntities(evidence, focus);
  if (unknown.length > 0) {
    return { answer: refusal(`None of the sources found mentions ${quoteList(unknown)}.`, 0, []), ranked: [], notes: [] };
  }

  // A question that crosses sources: facts leading from its entity to a bridge entity another source's rows are about.
  const bridges = findBridges(evidence, focus);
  const answerFocus = focusWithBridges(focus, bridges);
  const { occurrences, notes } = extractOccurrences(evidence, answerFocus);
  const ranked = scoreCandidates(occurrences, evidence, answerFocus);
  for (const b of bridges)
    notes.push(
      `Bridge: '${b.entity.mention}' from ${evidence[b.via].piece.provenance.kbName} ("${evidence[b.via].piece.text.slice(0, 120)}") joins the question to another source's rows.`,
    );
  if (bridges.length > 0) addBridgeSupport(ranked, bridges, evidence);
  const candidates = publicCandidates(ranked, evidence);
  if (ranked.length === 0 || ranked[0].score <= 0) {
    return { answer: refusal(notFoundReason(focus), 0, candidates), ranked, notes };
  }

  const pool = intersectionOnly(ranked, evidence, answerFocus);
  // A sentence (or the part of it that answers) already holds whatever list it states: other values of its document are not more members.
  const members = focus.wantsList && pool[0].type !== "text" ? listMembers(pool) : [pool[0]];
  const confidence = round3(answerConfidence(pool, focus.wantsList && members.length > 1, evidence));
  if (confidence < threshold) {
    return { answer: belowTheBar(pool, confidence, evidence, focus, candidates), ranked, notes };
  }
  const offPeriod = offPeriodRefusal(pool[0], evidence, focus, confidence, candidates);
  if (offPeriod) return { answer: offPeriod, ranked, notes: [...notes, "The best value's evidence is about another period."] };
  if (members.length > 1) notes.push(`List answer: ${members.length} values from the winner's source slot.`);
  return {
    answer: {
      text: joinList(members.map((m) => m.display)) || REFUSAL_TEXT,
      refrained: false,
      reason: null,
      confidence,
      citations: citationsOf(members, evidence),
      candidates,
    },
    ranked,
    notes,
  };
}
