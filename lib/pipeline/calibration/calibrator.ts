import { createHash } from "node:crypto";
import { z } from "zod";
import documentArtefact from "../../data/document-calibrator.json";
import sqlArtefact from "../../data/answer-calibrator.json";
import { log } from "../../log";
import { FEATURE_NAMES, type FeatureName, type Features } from "./features";

/**
 * The answer calibrators (issue 32): logistic regression over the run's features (features.ts), fitted
 * offline on evaluation runs (training/calibration/fit_calibrator.py), one artefact per kind of source:
 * lib/data/answer-calibrator.json for databases (SQL; fitted on Spider's training questions) and
 * lib/data/document-calibrator.json for documents (no training split here: fitted on TAT-QA dev, its
 * figures those of the folds held out by report). An answer from a kind no artefact covers (graphs) keeps
 * the answer stage's own confidence. Its output is the probability that the answer (or, when the run
 * refrained, the value it held back) is right: the confidence the answer card, History and the API show.
 *
 * Each artefact carries the SHA-256 of its model (the canonical text of version, features, weights and
 * bias, numbers with six decimals as the training script writes them); a file whose model does not match
 * its checksum, or that names other features than this product computes, is not used: the answer stage's
 * own confidence stands for its kinds, and the log says why.
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
  /** The model's checksum; for the shipped set, the checksum of its models' checksums in order (what the caution target was measured with). */
  sha256: string;
  /** The answering source kinds it was fitted on ("sql", "documents", "graph", "none"). */
  kinds: string[];
  /**
   * Each feature's weight in the model that judges this answer (how much it moves the log-odds of being
   * right): doubts.ts reads it to say why a run is not sure. Null where no model covers the answer's kind.
   */
  weightsFor(features: Features): Record<FeatureName, number> | null;
  /** Null for an answer from a kind of source the calibrator was not fitted on: its raw confidence stands. */
  probability(features: Features): number | null;
  /** Its models, each with the kinds it judges (one for a single artefact): what a caution target chosen with one of them covers. */
  parts: { sha256: string; kinds: string[] }[];
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
  // A model reads the features it names (an artefact fitted before a feature was added does not read it); each must be one the product computes.
  const known = new Set<string>(FEATURE_NAMES);
  if (
    model.features.length !== model.weights.length ||
    new Set(model.features).size !== model.features.length ||
    !model.features.every((f) => known.has(f))
  )
    return { calibrator: null, problem: "the calibrator was fitted on other features than the product computes" };
  const read = model.features as FeatureName[];
  const weights = Object.fromEntries(FEATURE_NAMES.map((name) => [name, model.weights[read.indexOf(name)] ?? 0])) as Record<
    FeatureName,
    number
  >;
  return {
    calibrator: {
      version: model.version,
      sha256,
      kinds: model.kinds,
      weightsFor: (features) => (model.kinds.includes(kindOf(features)) ? weights : null),
      parts: [{ sha256, kinds: model.kinds }],
      probability(features) {
        if (!model.kinds.includes(kindOf(features))) return null;
        const z = model.bias + read.reduce((s, name, i) => s + model.weights[i] * features[name], 0);
        return 1 / (1 + Math.exp(-z));
      },
    },
    problem: null,
  };
}

/**
 * Several calibrators as one: an answer is judged by the first whose kinds include its source's kind
 * (the list's order settles a kind two cover).
 */
export function combinedCalibrator(parts: Calibrator[]): Calibrator | null {
  if (!parts.length) return null;
  if (parts.length === 1) return parts[0];
  const judge = (features: Features) => parts.find((p) => p.kinds.includes(kindOf(features))) ?? null;
  return {
    version: parts.map((p) => p.version).join("+"),
    sha256: createHash("sha256")
      .update(parts.map((p) => p.sha256).join("\n"))
      .digest("hex"),
    kinds: [...new Set(parts.flatMap((p) => p.kinds))],
    weightsFor: (features) => judge(features)?.weightsFor(features) ?? null,
    probability: (features) => judge(features)?.probability(features) ?? null,
    parts: parts.flatMap((p) => p.parts),
  };
}

/** The shipped artefacts, the databases' first (it also judges runs that drew on no source). */
export const SHIPPED_CALIBRATORS: { file: string; artefact: unknown }[] = [
  { file: "answer-calibrator.json", artefact: sqlArtefact },
  { file: "document-calibrator.json", artefact: documentArtefact },
];

let loaded: Calibrator | null | undefined;

/** The shipped calibrators as one, or null (with a logged reason) when no file can be trusted; a file that cannot is left out, with its reason. */
export function shippedCalibrator(): Calibrator | null {
  if (loaded !== undefined) return loaded;
  const parts: Calibrator[] = [];
  for (const { file, artefact } of SHIPPED_CALIBRATORS) {
    const { calibrator, problem } = calibratorFrom(artefact);
    if (problem) log.warn({ file, problem }, "answer calibrator not used; confidences from its kinds of source are the answer stage's own");
    if (calibrator) parts.push(calibrator);
  }
  loaded = combinedCalibrator(parts);
  return loaded;
}
