import { describe, expect, it } from "vitest";
import {
  areaUnderRiskCoverage,
  brierScore,
  calibrationSummary,
  expectedCalibrationError,
  reliabilityBins,
  riskCoverageCurve,
} from "@/lib/eval/metrics/calibration";
import { aggregate, flattenMetrics } from "@/lib/eval/metrics/aggregate";
import { result } from "./fixtures";

const p = (confidence: number, correct: boolean) => ({ confidence, correct });

describe("calibration measures (hand-computed)", () => {
  // Four answers: 0.9 right, 0.9 wrong, 0.3 right, 0.1 wrong.
  const four = [p(0.9, true), p(0.9, false), p(0.3, true), p(0.1, false)];

  it("bins confidences into ten equal-width bins, 1.0 in the last", () => {
    const bins = reliabilityBins([p(0.05, false), p(0.1, true), p(0.95, true), p(1, true)]);
    expect(bins).toHaveLength(10);
    expect(bins[0]).toMatchObject({ n: 1, confidence: 0.05, accuracy: 0 });
    expect(bins[1]).toMatchObject({ n: 1, confidence: 0.1, accuracy: 1 });
    expect(bins[9].n).toBe(2);
    expect(bins[9].confidence).toBeCloseTo(0.975);
    expect(bins[5]).toMatchObject({ n: 0, confidence: null, accuracy: null });
  });

  it("expected calibration error weighs each bin's gap by its share", () => {
    // bin 9: conf 0.9, acc 0.5 → gap 0.4, weight 2/4; bin 3: 0.3 vs 1 → 0.7, 1/4; bin 1: 0.1 vs 0 → 0.1, 1/4.
    expect(expectedCalibrationError(four)).toBeCloseTo(0.5 * 0.4 + 0.25 * 0.7 + 0.25 * 0.1);
    // Perfectly calibrated: confidence 0.5, half right.
    expect(expectedCalibrationError([p(0.5, true), p(0.5, false)])).toBeCloseTo(0);
    expect(expectedCalibrationError([])).toBeNull();
  });

  it("Brier score is the mean squared gap between confidence and outcome", () => {
    // (0.1² + 0.9² + 0.7² + 0.1²) / 4 = (0.01 + 0.81 + 0.49 + 0.01) / 4
    expect(brierScore(four)).toBeCloseTo(1.32 / 4);
    expect(brierScore([p(1, true), p(0, false)])).toBe(0);
  });

  it("the risk–coverage curve keeps ties together and its area weighs each cut", () => {
    const curve = riskCoverageCurve(four);
    expect(curve).toEqual([
      { threshold: 0.9, coverage: 0.5, precision: 0.5 },
      { threshold: 0.3, coverage: 0.75, precision: 2 / 3 },
      { threshold: 0.1, coverage: 1, precision: 0.5 },
    ]);
    // 0.5·0.5 + 0.25·(1/3) + 0.25·0.5
    expect(areaUnderRiskCoverage(curve)).toBeCloseTo(0.25 + 0.25 / 3 + 0.125);
    // A ranking that puts the right answers first has the smaller area.
    const good = riskCoverageCurve([p(0.9, true), p(0.8, true), p(0.2, false), p(0.1, false)]);
    expect(areaUnderRiskCoverage(good)!).toBeLessThan(areaUnderRiskCoverage(curve)!);
    expect(areaUnderRiskCoverage(good)).toBeCloseTo(0.25 * (1 / 3) + 0.25 * 0.5);
  });

  it("precision and coverage at confidence ≥ 0.8, and the coverage at 90 % precision", () => {
    const s = calibrationSummary([p(0.95, true), p(0.85, true), p(0.8, false), p(0.6, true), p(0.2, false)]);
    expect(s.precisionHigh).toBeCloseTo(2 / 3);
    expect(s.coverageHigh).toBeCloseTo(3 / 5);
    // Cuts: 1/1, 2/2, 2/3, 3/4, 3/5 → 90 % holds up to 2 of 5.
    expect(s.coverageAtTarget).toBeCloseTo(0.4);
    expect(s.thresholdAtTarget).toBe(0.85);
    // No cut reaches 90 %: coverage 0, no threshold.
    const none = calibrationSummary([p(0.9, false), p(0.5, true)]);
    expect(none.coverageAtTarget).toBe(0);
    expect(none.thresholdAtTarget).toBeNull();
    expect(none.precisionHigh).toBe(0);
    expect(calibrationSummary([p(0.5, true)]).precisionHigh).toBeNull();
  });
});

describe("calibration in the suite metrics", () => {
  it("is measured over the questions with a confidence and a judged answer, per suite too", () => {
    const rs = [
      result({ id: "a", suite: "s1", confidence: 0.9, correct: true }),
      result({ id: "b", suite: "s1", confidence: 0.9, correct: false }),
      result({ id: "c", suite: "s2", confidence: 0.3, correct: true }),
      result({ id: "d", suite: "s2", confidence: 0.1, correct: false }),
      // Recorded before calibration was measured: left out.
      result({ id: "e", suite: "s2" }),
    ];
    const m = aggregate(rs);
    expect(m.calibration!.n).toBe(4);
    expect(m.calibration!.values.ece).toBeCloseTo(0.4);
    expect(m.calibrationCurves!.riskCoverage).toHaveLength(3);
    const flat = flattenMetrics(m);
    expect(flat["calibration.brier"]).toBeCloseTo(0.33);
    expect(m.bySuite.s1.values["calibration.ece"]).toBeCloseTo(0.4);
    expect(m.bySuite.s2.values["calibration.coverageAt90"]).toBeCloseTo(0.5);
  });

  it("is absent from reports whose results carry no confidence", () => {
    const m = aggregate([result({ id: "a" })]);
    expect(m.calibration).toBeUndefined();
    expect(Object.keys(flattenMetrics(m)).some((k) => k.startsWith("calibration."))).toBe(false);
  });
});
