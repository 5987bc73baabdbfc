/**
 * Is the confidence a run shows a probability of being right (issue 32)? Each judged question gives a
 * pair (confidence, correct): the confidence the run gave its answer and whether that answer (the one
 * shown, or the one it held back when it refrained) is right. From the pairs:
 *
 * - expected calibration error over equal-width bins: Σ (bin size / n) · |accuracy − mean confidence|;
 * - Brier score: mean (confidence − correct)²;
 * - the risk–coverage curve: answers sorted by confidence, most confident first; at each cut, the share
 *   of questions kept (coverage) and the share of those that are right (precision). Equal confidences
 *   cannot be told apart by any threshold, so the curve only cuts between different confidences;
 * - its area (AURC): the mean risk (1 − precision) over the cuts, each cut weighted by the share of
 *   questions it adds (a perfect ranking of n questions with k right has area ≈ the mean risk of the
 *   wrong tail only; lower is better);
 * - precision and coverage of the answers at confidence ≥ 0.8 (what "high" should mean), and the largest
 *   coverage whose answers are right at least 90 % of the time.
 */

export interface CalibrationPair {
  confidence: number;
  correct: boolean;
}

export interface ReliabilityBin {
  /** The bin's confidence range [lo, hi) (the last bin includes 1). */
  lo: number;
  hi: number;
  n: number;
  /** Mean confidence and share right in the bin; null for an empty bin. */
  confidence: number | null;
  accuracy: number | null;
}

export interface RiskCoveragePoint {
  /** Answers with at least this confidence are kept. */
  threshold: number;
  coverage: number;
  precision: number;
}

export interface CalibrationSummary {
  n: number;
  ece: number | null;
  brier: number | null;
  aurc: number | null;
  /** Share right among answers with confidence ≥ HIGH_CONFIDENCE (null when there are none). */
  precisionHigh: number | null;
  /** Share of questions answered with confidence ≥ HIGH_CONFIDENCE. */
  coverageHigh: number | null;
  /** The largest coverage at which the kept answers are right ≥ TARGET_PRECISION (0 when no cut reaches it). */
  coverageAtTarget: number | null;
  /** The confidence threshold of that cut (null when no cut reaches the target). */
  thresholdAtTarget: number | null;
  reliability: ReliabilityBin[];
  riskCoverage: RiskCoveragePoint[];
}

export const ECE_BINS = 10;
export const HIGH_CONFIDENCE = 0.8;
export const TARGET_PRECISION = 0.9;

const clamp01 = (x: number) => Math.min(1, Math.max(0, x));

/** Equal-width bins over [0, 1]; a confidence of exactly 1 falls in the last bin. */
export function reliabilityBins(pairs: CalibrationPair[], bins = ECE_BINS): ReliabilityBin[] {
  const out = Array.from({ length: bins }, (_, i) => ({ lo: i / bins, hi: (i + 1) / bins, sum: 0, right: 0, n: 0 }));
  for (const p of pairs) {
    const c = clamp01(p.confidence);
    const b = out[Math.min(bins - 1, Math.floor(c * bins))];
    b.n++;
    b.sum += c;
    if (p.correct) b.right++;
  }
  return out.map((b) => ({
    lo: b.lo,
    hi: b.hi,
    n: b.n,
    confidence: b.n ? b.sum / b.n : null,
    accuracy: b.n ? b.right / b.n : null,
  }));
}

export function expectedCalibrationError(pairs: CalibrationPair[], bins = ECE_BINS): number | null {
  if (!pairs.length) return null;
  return reliabilityBins(pairs, bins).reduce((s, b) => (b.n ? s + (b.n / pairs.length) * Math.abs(b.accuracy! - b.confidence!) : s), 0);
}

export function brierScore(pairs: CalibrationPair[]): number | null {
  if (!pairs.length) return null;
  return pairs.reduce((s, p) => s + (clamp01(p.confidence) - (p.correct ? 1 : 0)) ** 2, 0) / pairs.length;
}

/** One point per distinct confidence, most confident first: the answers kept at that threshold. */
export function riskCoverageCurve(pairs: CalibrationPair[]): RiskCoveragePoint[] {
  const sorted = [...pairs].sort((a, b) => b.confidence - a.confidence);
  const out: RiskCoveragePoint[] = [];
  let right = 0;
  for (let i = 0; i < sorted.length; i++) {
    if (sorted[i].correct) right++;
    // Cut only where the next answer's confidence is lower (ties stay together).
    if (i + 1 < sorted.length && sorted[i + 1].confidence === sorted[i].confidence) continue;
    out.push({ threshold: sorted[i].confidence, coverage: (i + 1) / sorted.length, precision: right / (i + 1) });
  }
  return out;
}

/** Area under the risk–coverage curve: each cut's risk weighted by the share of questions it adds. */
export function areaUnderRiskCoverage(curve: RiskCoveragePoint[]): number | null {
  if (!curve.length) return null;
  let prev = 0;
  let area = 0;
  for (const p of curve) {
    area += (p.coverage - prev) * (1 - p.precision);
    prev = p.coverage;
  }
  return area;
}

export function calibrationSummary(pairs: CalibrationPair[]): CalibrationSummary {
  const curve = riskCoverageCurve(pairs);
  const high = pairs.filter((p) => p.confidence >= HIGH_CONFIDENCE);
  const reaching = curve.filter((p) => p.precision >= TARGET_PRECISION);
  const best = reaching.length ? reaching[reaching.length - 1] : null;
  return {
    n: pairs.length,
    ece: expectedCalibrationError(pairs),
    brier: brierScore(pairs),
    aurc: areaUnderRiskCoverage(curve),
    precisionHigh: high.length ? high.filter((p) => p.correct).length / high.length : null,
    coverageHigh: pairs.length ? high.length / pairs.length : null,
    coverageAtTarget: pairs.length ? (best?.coverage ?? 0) : null,
    thresholdAtTarget: best?.threshold ?? null,
    reliability: reliabilityBins(pairs),
    riskCoverage: curve,
  };
}
