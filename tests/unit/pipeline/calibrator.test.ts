import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import artefact from "@/lib/data/answer-calibrator.json";
import documentArtefact from "@/lib/data/document-calibrator.json";
import { calibratorFrom, canonicalModel, combinedCalibrator, shippedCalibrator } from "@/lib/pipeline/calibration/calibrator";
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

  it("reads only the features its model names, so an artefact fitted before a feature was added still holds", () => {
    const older = { ...model, features: ["raw", "kindSql"], weights: [2, 1] };
    const { calibrator, problem } = calibratorFrom(signed(older));
    expect(problem).toBeNull();
    // σ(−1 + 2·0.5 + 1): the features it does not name (documentMargin, …) do not move it.
    expect(calibrator!.probability({ ...zeros, raw: 0.5, kindSql: 1, documentMargin: 1, guide: 1 })).toBeCloseTo(1 / (1 + Math.exp(-1)));
    expect(calibrator!.weightsFor({ ...zeros, kindSql: 1 })).toMatchObject({ raw: 2, kindSql: 1, documentMargin: 0 });
    expect(calibrator!.weightsFor({ ...zeros, kindGraph: 1 })).toBeNull();
    expect(calibratorFrom(signed({ ...older, features: ["raw", "raw"] })).problem).toMatch(/other features/);
  });

  it("judges each answer by the model fitted on its kind of source, and leaves other kinds raw", () => {
    const sql = calibratorFrom(signed(model)).calibrator!;
    const documents = calibratorFrom(signed({ ...model, kinds: ["documents"], weights: FEATURE_NAMES.map(() => 0), bias: 2 })).calibrator!;
    const both = combinedCalibrator([sql, documents])!;
    expect(both.kinds).toEqual(["sql", "none", "documents"]);
    expect(both.probability({ ...zeros, kindSql: 1 })).toBeCloseTo(1 / (1 + Math.exp(1)));
    expect(both.probability({ ...zeros, kindDocuments: 1 })).toBeCloseTo(1 / (1 + Math.exp(-2)));
    expect(both.probability({ ...zeros, kindGraph: 1 })).toBeNull();
    expect(both.weightsFor({ ...zeros, kindDocuments: 1 })!.raw).toBe(0);
    expect(both.weightsFor({ ...zeros, kindSql: 1 })!.raw).toBe(2);
    // Its checksum names both models, in order.
    expect(both.sha256).toBe(createHash("sha256").update(`${sql.sha256}\n${documents.sha256}`).digest("hex"));
    expect(combinedCalibrator([sql])).toBe(sql);
    expect(combinedCalibrator([])).toBeNull();
  });

  it("ships fitted artefacts, databases' and documents', whose checksums hold", () => {
    expect(calibratorFrom(artefact).problem).toBeNull();
    expect(calibratorFrom(documentArtefact).problem).toBeNull();
    expect(documentArtefact.model.kinds).toEqual(["documents"]);
    const shipped = shippedCalibrator()!;
    expect(shipped.sha256).toBe(createHash("sha256").update(`${artefact.sha256}\n${documentArtefact.sha256}`).digest("hex"));
    expect(shipped.kinds).toEqual(["none", "sql", "documents"]);
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

  it("reads how far the cited document stands above the others, on a scale comparable across questions", () => {
    const piece = (id: string, document: string, scores: Record<string, number>) => ({
      piece: {
        id,
        kind: "passage" as const,
        text: id,
        provenance: {
          kb: "k",
          kbName: "Reports",
          sourceObject: "collection",
          query: "q",
          language: "search" as const,
          location: { document },
        },
        entities: [],
        data: { documentId: document } as never,
      },
      score: 1,
      scores,
    });
    const base = {
      intent: null,
      answer: { text: "x", refrained: false, reason: null, confidence: 0.7, citations: ["a1"], candidates: [] },
      iterations: [],
      candidates: [],
      queries: [],
      winner: null,
    };
    const embedder = [
      piece("a1", "report-a", { "combined-dense:dense": 0.8 }),
      piece("a2", "report-a", { "combined-dense:dense": 0.9 }),
      piece("b1", "report-b", { "combined-dense:dense": 0.5 }),
    ];
    const f = runFeatures({ ...base, evidence: embedder });
    expect(f.kindDocuments).toBe(1);
    expect(f.citedRelevance).toBeCloseTo(0.8);
    // Against the best piece of another report (0.5), not against its own report's other piece.
    expect(f.documentMargin).toBeCloseTo(0.3);
    // A cross-encoder's probability is read first where one scored the pieces; one standing below another report's piece has no margin.
    const reranked = [
      piece("a1", "report-a", { "cross-encoder": 0.4, "combined-dense:dense": 0.8 }),
      piece("b1", "report-b", { "cross-encoder": 0.6 }),
    ];
    expect(runFeatures({ ...base, evidence: reranked })).toMatchObject({ citedRelevance: 0.4, documentMargin: 0 });
    // Nothing scored on such a scale: both 0.
    expect(runFeatures({ ...base, evidence: [piece("a1", "report-a", { bm25: 3 })] })).toMatchObject({
      citedRelevance: 0,
      documentMargin: 0,
    });
  });
});
