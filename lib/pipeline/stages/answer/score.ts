import type { ScoredEvidence } from "../../contracts";
import type { Occurrence } from "./occurrence";
import { type QuestionFocus, isQuestionEntityValue, questionStates } from "./question-focus";
import { isBareNumber } from "./value-key";
import { type ValueType, typeFit } from "./value-types";
import { type ExpectedUnit, unitAgreement } from "../../units";

/**
 * Candidate scoring. Each supporting piece is treated as a noisy witness for the value: a piece at the
 * top of the evidence (normalized score 1) that points squarely at the value (weight 1) vouches for it
 * with probability PIECE_RELIABILITY; weaker or less targeted pieces proportionally less. Witnesses
 * combine by noisy-OR (1 − Π(1 − p)), so agreement raises the score with diminishing returns and the
 * score stays in [0, 1]. Repeats are not independent: another row of the same query counts a quarter,
 * another piece of the same KB half, a piece of another KB in full (agreement across sources is the
 * strongest signal). The support is then multiplied by the answer-type fit and, for a value the
 * question itself names, by ENTITY_PENALTY.
 */
export const PIECE_RELIABILITY = 0.65;
const SAME_QUERY_DISCOUNT = 0.25;
const SAME_KB_DISCOUNT = 0.5;
/** A value the question already names ("Aurora" for "who runs Aurora?") is almost never the answer. */
export const ENTITY_PENALTY = 0.15;

export interface ScoredCandidate {
  key: string;
  display: string;
  type: ValueType;
  score: number;
  /** Noisy-OR support before type fit and penalty. */
  support: number;
  fit: number;
  penalized: boolean;
  /** Every piece supporting it mentions nothing the question is about (Occurrence.offSubject). */
  offSubject: boolean;
  /** Supporting pieces, strongest contribution first. */
  pieces: { index: number; contribution: number }[];
  /** The slot of the strongest occurrence (list answers gather values of this slot). */
  slot: string;
  slots: Set<string>;
}

/**
 * Evidence scores mapped to [0, 1] relative to the best piece, so the scale of the last re-ranker
 * (BM25, entity overlap, a cross-encoder's logits) does not matter. Non-positive or uniform scores fall
 * back to rank (1, 1/2, 1/3…): the list is best first.
 */
export function normalizeEvidenceScores(evidence: ScoredEvidence[]): number[] {
  const scores = evidence.map((e) => (Number.isFinite(e.score) ? e.score : 0));
  const max = Math.max(...scores);
  const min = Math.min(...scores);
  if (max > 0 && min >= 0) return scores.map((s) => s / max);
  if (max > min) return scores.map((s) => 0.05 + (0.95 * (s - min)) / (max - min));
  return scores.map((_, i) => 1 / (1 + i));
}

/** Below this unit agreement an occurrence's wording is not shown (units.ts: "2 years" for "how many products"). */
const UNIT_AGREES = 0.5;

function chooseDisplay(occurrences: Occurrence[], expected: ExpectedUnit | null): string {
  const agreeing = occurrences.filter((o) => unitAgreement(o.display, expected) >= UNIT_AGREES);
  const pool = agreeing.length > 0 ? agreeing : occurrences;
  const strongest = pool[0].display;
  if (!isBareNumber(strongest)) return strongest;
  // "48.2" says less than "48.2 million euros": show the unit some piece gave, if it fits the question.
  return pool.find((o) => !isBareNumber(o.display))?.display ?? strongest;
}

export function scoreCandidates(occurrences: Occurrence[], evidence: ScoredEvidence[], focus: QuestionFocus): ScoredCandidate[] {
  const normalized = normalizeEvidenceScores(evidence);
  const byKey = new Map<string, Occurrence[]>();
  for (const o of occurrences) byKey.set(o.key, [...(byKey.get(o.key) ?? []), o]);

  const out: ScoredCandidate[] = [];
  for (const [key, list] of byKey) {
    // One vote per piece: its best occurrence of the value.
    const bestPerPiece = new Map<number, Occurrence>();
    for (const o of list) {
      const prev = bestPerPiece.get(o.pieceIndex);
      if (!prev || o.weight > prev.weight) bestPerPiece.set(o.pieceIndex, o);
    }
    const votes = [...bestPerPiece.values()]
      .map((o) => ({ o, p: PIECE_RELIABILITY * normalized[o.pieceIndex] * Math.max(0, Math.min(1, o.weight)) }))
      .sort((a, b) => b.p - a.p);
    const seenKbs = new Set<string>();
    const seenQueries = new Set<string>();
    let disbelief = 1;
    const pieces: ScoredCandidate["pieces"] = [];
    for (const { o, p } of votes) {
      const prov = evidence[o.pieceIndex].piece.provenance;
      const queryKey = `${prov.kb}\u0000${prov.query}`;
      const discount = seenQueries.has(queryKey) ? SAME_QUERY_DISCOUNT : seenKbs.has(prov.kb) ? SAME_KB_DISCOUNT : 1;
      seenKbs.add(prov.kb);
      seenQueries.add(queryKey);
      disbelief *= 1 - p * discount;
      pieces.push({ index: o.pieceIndex, contribution: p * discount });
    }
    const support = 1 - disbelief;
    const ordered = votes.map((v) => v.o);
    // A unit that contradicts the question ("2 years" for "how many products") makes the occurrence a poor fit.
    const fits = ordered.map((o) => ({ o, fit: typeFit(focus.wanted, o.type, o.display) * unitAgreement(o.display, focus.expectedUnit) }));
    const bestFit = fits.reduce((a, b) => (b.fit > a.fit ? b : a));
    const display = chooseDisplay(ordered, focus.expectedUnit);
    const penalized = isQuestionEntityValue(display, focus) || questionStates(display, focus);
    out.push({
      key,
      display,
      type: bestFit.o.type,
      score: support * bestFit.fit * (penalized ? ENTITY_PENALTY : 1),
      support,
      fit: bestFit.fit,
      penalized,
      offSubject: list.every((o) => o.offSubject === true),
      pieces,
      slot: ordered[0].slot,
      slots: new Set(list.map((o) => o.slot)),
    });
  }
  return out.sort((a, b) => b.score - a.score || a.display.localeCompare(b.display));
}

/**
 * How strongly the best other candidate contests the winner. A value drawn only from the winner's own
 * pieces (the other number in the same sentence, another cell of the same row) is an extraction
 * alternative the type and column scoring already weighed, so it contests at SAME_PIECE_RIVALRY; a
 * value from other pieces is a rival claim and contests in full.
 */
const SAME_PIECE_RIVALRY = 0.5;

/** Whether a candidate is supported by some piece that does not support the winner: a rival claim, not an extraction alternative. */
export function claimedElsewhere(candidate: ScoredCandidate, winner: ScoredCandidate): boolean {
  const winnerPieces = new Set(winner.pieces.map((p) => p.index));
  return candidate.pieces.some((p) => !winnerPieces.has(p.index));
}

export interface Rival {
  candidate: ScoredCandidate;
  /** Its score as a contest of the winner (halved for extraction alternatives). */
  strength: number;
  /** It comes from a source (KB) that does not support the winner: two sources contradict each other. */
  otherSource: boolean;
}

/** The candidate that contests the winner most, if any. */
export function strongestRival(ranked: ScoredCandidate[], evidence: ScoredEvidence[]): Rival | null {
  const [winner, ...others] = ranked;
  if (!winner) return null;
  const winnerKbs = new Set(winner.pieces.map((p) => evidence[p.index].piece.provenance.kb));
  let best: Rival | null = null;
  for (const c of others) {
    const elsewhere = claimedElsewhere(c, winner);
    const strength = c.score * (elsewhere ? 1 : SAME_PIECE_RIVALRY);
    if (!best || strength > best.strength) {
      best = {
        candidate: c,
        strength,
        otherSource: elsewhere && c.pieces.some((p) => !winnerKbs.has(evidence[p.index].piece.provenance.kb)),
      };
    }
  }
  return best;
}

/**
 * Confidence of a single-value answer: the winner's score s1 times its share against its strongest
 * rival r. Against another source the share is s1 / (s1 + r): a contradiction between sources weighs
 * in full, and since one piece alone supports a value with at most PIECE_RELIABILITY (0.65), two
 * single sources that contradict each other with similar support (r ≥ 0.85·s1) land under the default
 * 0.35 threshold: Mosaic then names both values instead of flipping a coin; a value two sources agree on
 * (about 0.88) still beats a lone dissenting one. Against values of the same source (other rows of the
 * same result, other figures of the same report) the share is s1² / (s1² + r²): those are alternatives
 * the evidence ranking already ordered, so a clearly better-ranked value keeps most of its score, while
 * a tie still halves it. A list answer gathers the values that tie, so it keeps the winner's score.
 */
export function answerConfidence(ranked: ScoredCandidate[], list: boolean, evidence: ScoredEvidence[]): number {
  const first = ranked[0];
  if (!first || first.score <= 0) return 0;
  if (list) return clamp01(first.score);
  const rival = strongestRival(ranked, evidence);
  if (!rival || rival.strength <= 0) return clamp01(first.score);
  const s = first.score;
  const r = rival.strength;
  const share = rival.otherSource ? s / (s + r) : (s * s) / (s * s + r * r);
  return clamp01(s * share);
}

function clamp01(x: number): number {
  return Math.max(0, Math.min(1, x));
}
