import { describe, expect, it } from "vitest";
import artefact from "@/lib/data/answer-caution.json";
import { cautionArtefactSchema, defaultCaution, heldKinds } from "@/lib/pipeline/calibration/caution";
import { cautionCurve, chooseCaution, type JudgedAnswer } from "@/lib/pipeline/calibration/caution-curve";
import { shippedCalibrator } from "@/lib/pipeline/calibration/calibrator";
import { doubtsOf } from "@/lib/pipeline/calibration/doubts";
import { FEATURE_NAMES, type FeatureName, type Features } from "@/lib/pipeline/calibration/features";
import type { Answer } from "@/lib/pipeline/contracts";
import { heldBelowTarget } from "@/lib/pipeline/run/caution-gate";
import { cautionInputSchema } from "@/lib/settings/caution.validation";

const zeros = Object.fromEntries(FEATURE_NAMES.map((n) => [n, 0])) as Features;
const answered = (confidence: number, correct: boolean): JudgedAnswer => ({ confidence, correct, answered: true });

describe("choosing the default caution target from a risk–coverage curve", () => {
  it("takes the lowest target whose shown answers are right at least 90 % of the time", () => {
    // 10 answers at 0.95 (all right), 10 at 0.75 (5 right), 10 at 0.55 (2 right).
    const items = [
      ...Array.from({ length: 10 }, () => answered(0.95, true)),
      ...Array.from({ length: 10 }, (_, i) => answered(0.75, i < 5)),
      ...Array.from({ length: 10 }, (_, i) => answered(0.55, i < 2)),
    ];
    const curve = cautionCurve(items);
    expect(curve[0]).toMatchObject({ percent: 50, shown: 30, right: 17 });
    expect(curve.find((p) => p.percent === 76)).toMatchObject({ shown: 10, right: 10, precision: 1, coverage: 10 / 30 });
    const choice = chooseCaution(curve);
    expect(choice).toMatchObject({ percent: 76, reachedPrecision: true });
    expect(choice.rule).toMatch(/lowest target/);
  });

  it("does not let a handful of lucky answers decide: at least 10 must be shown", () => {
    const items = [...Array.from({ length: 5 }, () => answered(0.9, true)), ...Array.from({ length: 20 }, (_, i) => answered(0.6, i < 10))];
    const choice = chooseCaution(cautionCurve(items));
    expect(choice.reachedPrecision).toBe(false);
  });

  it("when no target reaches 90 %, takes the most precise one that still shows at least 10 % of the questions, and says so", () => {
    const items = [
      ...Array.from({ length: 20 }, (_, i) => answered(0.6, i < 15)), // 75 %
      ...Array.from({ length: 20 }, (_, i) => answered(0.52, i < 8)),
      ...Array.from({ length: 3 }, () => answered(0.9, false)),
      ...Array.from({ length: 60 }, () => ({ confidence: 0.99, correct: true, answered: false })), // refrained: never shown
    ];
    const choice = chooseCaution(cautionCurve(items));
    expect(choice.reachedPrecision).toBe(false);
    expect(choice.percent).toBe(53);
    expect(choice.rule).toMatch(/no target reaches 90 %.*highest precision/);
  });

  it("ships a default chosen by that rule from the curve it records", () => {
    const parsed = cautionArtefactSchema.parse(artefact);
    expect(chooseCaution(parsed.curve).percent).toBe(parsed.defaultPercent);
    expect(defaultCaution().percent).toBe(parsed.defaultPercent);
    // Measured with the calibrator the product ships, or one of its models: the kinds that one judges are the ones it holds back.
    const shipped = shippedCalibrator()!;
    expect([shipped.sha256, ...shipped.parts.map((p) => p.sha256)]).toContain(parsed.calibrator.sha256);
    expect([...heldKinds(shipped)]).toEqual(shipped.parts.find((p) => p.sha256 === parsed.calibrator.sha256)?.kinds ?? shipped.kinds);
    expect(parsed.reports.length).toBeGreaterThan(0);
  });
});

describe("the caution setting's input", () => {
  it("takes a whole percent from 50 to 99, or empty for the default", () => {
    expect(cautionInputSchema.safeParse({ targetPercent: 80 }).success).toBe(true);
    expect(cautionInputSchema.safeParse({ targetPercent: null }).success).toBe(true);
    expect(cautionInputSchema.safeParse({ targetPercent: 49 }).error?.issues[0].message).toMatch(/At least 50/);
    expect(cautionInputSchema.safeParse({ targetPercent: 100 }).error?.issues[0].message).toMatch(/At most 99/);
    expect(cautionInputSchema.safeParse({ targetPercent: 80.5 }).success).toBe(false);
  });
});

describe("an answer below the target", () => {
  const weights = Object.fromEntries(FEATURE_NAMES.map((n) => [n, 0])) as Record<FeatureName, number>;
  const answer: Answer = { text: "Berlin: 10", refrained: false, reason: null, confidence: 0.42, citations: ["e1"], candidates: [] };

  it("says why, the costliest doubts first, only those that mean something for this run", () => {
    const w = { ...weights, linkStrength: 0.9, shapeMismatch: -2, criticAccepted: 0.3, margin: 1, linkedShare: 0.5 };
    const f = { ...zeros, hasEntities: 1, linkedShare: 1, linkStrength: 0.4, shapeMismatch: 1, criticAccepted: 0 };
    const doubts = doubtsOf(f, w);
    expect(doubts.map((d) => d.feature)).toEqual(["shapeMismatch", "linkStrength", "criticAccepted"]);
    expect(doubts[1].words).toMatch(/matched to the data only loosely \(link strength 40 %\)/);
    // No evidence scores at all: "sources disagree" is not said; a question with no names has no weak link.
    expect(doubtsOf({ ...zeros }, w).map((d) => d.feature)).toEqual(["criticAccepted"]);
    // A query that found nothing is not said to have been read from passages.
    const fromQuery = { ...weights, queryResult: 2.8, emptyResult: -1.7 };
    expect(doubtsOf({ ...zeros }, fromQuery).map((d) => d.words)).toEqual(["it was read from passages, not computed by a query"]);
    expect(doubtsOf({ ...zeros, emptyResult: 1 }, fromQuery).map((d) => d.words)).toEqual(["the query returned nothing"]);
    // A passage that stands barely above other documents' is a reason; with no comparable relevance measured, it is not.
    const fromPassages = { ...weights, citedRelevance: 1.2, documentMargin: 3 };
    expect(doubtsOf({ ...zeros, citedRelevance: 0.7, documentMargin: 0.02 }, fromPassages).map((d) => d.words)).toEqual([
      "other documents match the question about as well as the one it is read from",
      "the passage or row it is read from matches the question only loosely",
    ]);
    expect(doubtsOf({ ...zeros }, fromPassages)).toEqual([]);
  });

  it("is shown as not certain with what it found, how likely it is, the target and why; text, citations kept", () => {
    const held = heldBelowTarget(answer, 0.8, [
      { feature: "shapeMismatch", cost: 2, words: "the result's shape does not fit the question" },
    ]);
    expect(held.certainty).toBe("uncertain");
    expect(held.refrained).toBe(false);
    expect(held.text).toBe("Berlin: 10");
    expect(held.citations).toEqual(["e1"]);
    expect(held.reason).toBe(
      "Not certain — the closest answer found is 'Berlin: 10', about 42 % likely right; this workspace shows an answer only at 80 % or more. Why it is not sure: the result's shape does not fit the question.",
    );
  });

  it("never reads as reaching the target it was held under", () => {
    expect(heldBelowTarget({ ...answer, confidence: 0.549 }, 0.55, []).reason).toMatch(
      /about 54 % likely right; this workspace shows an answer only at 55 % or more\.$/,
    );
  });

  it("keeps the critic's earlier doubt after its own", () => {
    const critic = {
      ...answer,
      certainty: "uncertain" as const,
      reason: "Not certain — the answer could not be checked against the question: x",
    };
    expect(heldBelowTarget(critic, 0.6, []).reason).toMatch(
      /60 % or more\. Also: the answer could not be checked against the question: x$/,
    );
  });
});
