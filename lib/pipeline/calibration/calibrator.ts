import { createHash } from "node:crypto";
import { z } from "zod";
import artefact from "../../data/answer-calibrator.json";
import { log } from "../../log";
import { FEATURE_NAMES, type FeatureName, type Features } from "./features";

/**
 * The answer calibrator (issue 32): logistic regression over the run's features (features.ts), fitted
 * offline on evaluation runs of training questions (training/calibration/fit_calibrator.py) and shipped
 * as lib/data/answer-calibrator.json. It covers the kinds of source its training runs answered from
 * (Spider: SQL); an answer from another kind keeps the answer stage's own confidence. Its output is the probability that the answer (or, when the run
 * refrained, the value it held back) is right: the confidence the answer card, History and the API show.
 *
 * The artefact carries the SHA-256 of its model (the canonical text of version, features, weights and
 * bias, numbers with six decimals as the training script writes them); a file whose model does not match its checksum, or that names other features than this
 * product computes, is not used: the answer stage's own confidence stands, and the log says why.
 */

const artefactSchema = z.object({
  model: z.object({
    version: z.string(),
    features: z.array(z.string()),
    /** The answering source kinds the training runs covered ("sql", "documents", "graph", "none"). */
    kinds: z.array(z.string()),
    weights: z.array(z.number()),
    bias: z.number(),
  }),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
});

export interface Calibrator {
  version: string;
  sha256: string;
  /** Each feature's weight (how much it moves the log-odds of being right): doubts.ts reads it to say why a run is not sure. */
  weights: Record<FeatureName, number>;
  /** The answering source kinds it was fitted on ("sql", "documents", "graph", "none"). */
  kinds: string[];
  /** Null for an answer from a kind of source the calibrator was not fitted on: its raw confidence stands. */
  probability(features: Features): number | null;
}

/** The answering source's kind as the one-hot features say it (training/calibration/fit_calibrator.py reads it the same way). */
export function kindOf(features: Features): string {
  return features.kindSql === 1 ? "sql" : features.kindDocuments === 1 ? "documents" : features.kindGraph === 1 ? "graph" : "none";
}

/** The text the checksum is taken of (training/calibration/fit_calibrator.py writes the same). */
export function canonicalModel(model: z.infer<typeof artefactSchema>["model"]): string {
  return [
    model.version,
    model.features.join(","),
    model.kinds.join(","),
    model.weights.map((w) => w.toFixed(6)).join(","),
    model.bias.toFixed(6),
  ].join("\n");
}

export function calibratorFrom(raw: unknown): { calibrator: Calibrator | null; problem: string | null } {
  const parsed = artefactSchema.safeParse(raw);
  if (!parsed.success) return { calibrator: null, problem: "the calibrator file is not in the expected form" };
  const { model, sha256 } = parsed.data;
  const actual = createHash("sha256").update(canonicalModel(model)).digest("hex");
  if (actual !== sha256) return { calibrator: null, problem: `the calibrator's checksum does not match (${actual.slice(0, 12)}…)` };
  if (model.features.length !== model.weights.length || model.features.join() !== FEATURE_NAMES.join())
    return { calibrator: null, problem: "the calibrator was fitted on other features than the product computes" };
  return {
    calibrator: {
      version: model.version,
      sha256,
      kinds: model.kinds,
      weights: Object.fromEntries(FEATURE_NAMES.map((name, i) => [name, model.weights[i]])) as Record<FeatureName, number>,
      probability(features) {
        if (!model.kinds.includes(kindOf(features))) return null;
        const z = model.bias + FEATURE_NAMES.reduce((s, name, i) => s + model.weights[i] * features[name], 0);
        return 1 / (1 + Math.exp(-z));
      },
    },
    problem: null,
  };
}

let loaded: Calibrator | null | undefined;

/** The shipped calibrator, or null (with a logged reason) when its file cannot be trusted. */
export function shippedCalibrator(): Calibrator | null {
  if (loaded !== undefined) return loaded;
  const { calibrator, problem } = calibratorFrom(artefact);
  if (problem) log.warn({ problem }, "answer calibrator not used; confidences are the answer stage's own");
  loaded = calibrator;
  return loaded;
}
