import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { type ModelFiles, sha256File } from "./files";

/**
 * A model Mosaic trains itself and ships in the repository (models/<name>: int8 ONNX, tokenizer, and the
 * training report that records the file's checksum), not in MODELS_DIR: it is part of the product, like a
 * lexicon. The training scripts are under training/.
 */

/** The folder in the repository; the server and the tests run from the repository root. */
export function shippedModelDir(name: string): string {
  // Ignored by the bundler's file tracing: read at run time from the checkout, never bundled.
  return path.resolve(/* turbopackIgnore: true */ process.cwd(), "models", name);
}

const artefactSchema = z.object({ bytes: z.number(), sha256: z.string().regex(/^[0-9a-f]{64}$/) });
const reportSchema = z.object({ artefacts: z.object({ "model_quantized.onnx": artefactSchema }) });

export class ShippedModelMissingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ShippedModelMissingError";
  }
}

/** The training report of a shipped model (its figures, its checksums), read as it is. */
export function readTrainingReport(dir: string, label: string): unknown {
  const reportPath = path.join(/* turbopackIgnore: true */ dir, "training-report.json");
  if (!existsSync(/* turbopackIgnore: true */ reportPath))
    throw new ShippedModelMissingError(`${label}'s file ${path.relative(process.cwd(), reportPath)} is missing.`);
  return JSON.parse(readFileSync(/* turbopackIgnore: true */ reportPath, "utf8"));
}

/**
 * The shipped files, checked against the checksum its training report records: a file that is not the
 * one trained (a broken checkout, a Git LFS pointer) is refused, and the caller falls back to what it
 * did without the model. `label` names the model in the error ("The schema linker").
 */
export async function shippedModelFiles(dir: string, label: string): Promise<ModelFiles> {
  const onnxPath = path.join(/* turbopackIgnore: true */ dir, "onnx", "model_quantized.onnx");
  const tokenizerPath = path.join(/* turbopackIgnore: true */ dir, "tokenizer.json");
  const tokenizerConfigPath = path.join(/* turbopackIgnore: true */ dir, "tokenizer_config.json");
  for (const f of [onnxPath, tokenizerPath])
    if (!existsSync(/* turbopackIgnore: true */ f)) throw new ShippedModelMissingError(`${label}'s file ${path.relative(process.cwd(), f)} is missing.`);
  const expected = reportSchema.parse(readTrainingReport(dir, label)).artefacts["model_quantized.onnx"];
  const sha256 = await sha256File(onnxPath);
  if (sha256 !== expected.sha256)
    throw new ShippedModelMissingError(
      `${label}'s model file does not match its training report (sha256 ${sha256.slice(0, 12)}…, expected ${expected.sha256.slice(0, 12)}…).`,
    );
  return {
    onnxPath,
    tokenizerPath,
    tokenizerConfigPath: existsSync(tokenizerConfigPath) ? tokenizerConfigPath : null,
    precision: "int8",
    sha256,
    bytes: statSync(onnxPath).size,
    source: "repository",
    note: null,
  };
}
