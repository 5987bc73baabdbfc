import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import artefact from "@/lib/data/answer-calibrator.json";
import { calibratorFrom, canonicalModel, shippedCalibrator } from "@/lib/pipeline/calibration/calibrator";
import { FEATURE_NAMES, type Features, runFeatures } from "@/lib/pipeline/calibration/features";

const zeros = Object.fromEntries(FEATURE_NAMES.map((n) => [n, 0])) as Features;

function signed(model: { version: string; features: string[]; kinds: string[]; weights: number[]; bias: number }) {
  return { model, sha256: createHash("sha256").update(canonicalModel(model)).digest("hex") };
}

describe("the answer calibrator", () => {
  const model = {
    version: "t",
    features: [...FEATURE_NAMES],
    kinds: ["sql", "none"],
    weights: FEATURE_NAMES.map((n) => (n === "raw" ? 2 : 0)),
    bias: -1,
  };

  it("is logistic regression over the run's features", () => {
    const { calibrator, problem } = calibratorFrom(signed(model));
    expect(problem).toBeNull();
    // σ(−1) and σ(−1 + 2·0.5)
    expect(calibrator!.probability(zeros)).toBeCloseTo(1 / (1 + Math.exp(1)));
    expect(calibrator!.probability({ ...zeros, raw: 0.5 })).toBeCloseTo(0.5);
    // A kind of source it was not fitted on keeps its raw confidence.
    expect(calibrator!.probability({ ...zeros, kindDocuments: 1 })).toBeNull();
    expect(calibrator!.probability({ ...zeros, kindSql: 1 })).not.toBeNull();
  });

  it("is not used when its model does not match its checksum, or names other features", () => {
    const tampered = { ...signed(model), model: { ...model, bias: 3 } };
    expect(calibratorFrom(tampered).calibrator).toBeNull();
    expect(calibratorFrom(tampered).problem).toMatch(/checksum/);
    const other = signed({ ...model, features: [...FEATURE_NAMES.slice(1), "other"] });
    expect(calibratorFrom(other).problem).toMatch(/other features/);
    expect(calibratorFrom({}).calibrator).toBeNull();
  });

  it("ships a fitted artefact whose checksum holds", () => {
    expect(calibratorFrom(artefact).problem).toBeNull();
    expect(shippedCalibrator()?.sha256).toBe(artefact.sha256);
  });

  it("reads the run's features in [0, 1]", () => {
    const f = runFeatures({
      intent: null,
      answer: {
        text: "x",
        refrained: false,
        reason: null,
        confidence: 0.7,
        citations: [],
        candidates: [{ value: "x", score: 0.9, support: [], type: null }],
      },
      iterations: [{ round: 1, candidates: [], queries: [], answer: "x", accepted: true, feedback: null, change: null }],
      candidates: [],
      queries: [],
      winner: null,
      evidence: [],
    });
    expect(f).toMatchObject({ raw: 0.7, criticAccepted: 1, roundAgreement: 1, topScore: 0.9, margin: 0.9, refrained: 0 });
    for (const v of Object.values(f)) expect(v >= 0 && v <= 1).toBe(true);
  });
});
