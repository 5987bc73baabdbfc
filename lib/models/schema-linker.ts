import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { type ModelFiles, sha256File } from "./files";
import type { CrossEncoderSpec } from "./specs";

/**
 * Mosaic's own question–schema scorer: all-MiniLM-L6-v2 fine-tuned as a cross-encoder that reads a
 * question beside one column or table in words ("age of singer", lib/catalog/semantic-texts.ts) and
 * gives the log-odds that the query answering the question reads it. Learned from the Spider training
 * databases only (training/schema_linking/train_column_scorer.py; the dev databases were never seen),
 * so it links by meaning on schemas nobody tuned on. Shipped in the repository (models/schema-linker:
 * int8 ONNX, tokenizer, training report with the file's checksum), not in MODELS_DIR: it is part of
 * the product, like a lexicon.
 */
export const SCHEMA_LINKER_NAME = "mosaic-schema-linker";

/** The folder in the repository; the server and the tests run from the repository root. */
export function schemaLinkerDir(): string {
  // Ignored by the bundler's file tracing: read at run time from the checkout, never bundled.
  return path.resolve(/* turbopackIgnore: true */ process.cwd(), "models", "schema-linker");
}

export const SCHEMA_LINKER_SPEC: CrossEncoderSpec = {
  task: "cross-encoder",
  name: SCHEMA_LINKER_NAME,
  repo: "",
  revision: "",
  // Trained on pairs of at most 64 tokens (a question and one column's words fit in far fewer).
  maxTokens: 64,
};

const reportSchema = z.object({
  artefacts: z.object({ "model_quantized.onnx": z.object({ bytes: z.number(), sha256: z.string().regex(/^[0-9a-f]{64}$/) }) }),
});

export class SchemaLinkerMissingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SchemaLinkerMissingError";
  }
}

/**
 * The shipped files, checked against the checksum its training report records: a file that is not the
 * one trained (a broken checkout, a Git LFS pointer) is refused, and linking falls back to the embedder.
 */
export async function schemaLinkerFiles(dir = schemaLinkerDir()): Promise<ModelFiles> {
  const onnxPath = path.join(/* turbopackIgnore: true */ dir, "onnx", "model_quantized.onnx");
  const tokenizerPath = path.join(/* turbopackIgnore: true */ dir, "tokenizer.json");
  const tokenizerConfigPath = path.join(/* turbopackIgnore: true */ dir, "tokenizer_config.json");
  const reportPath = path.join(/* turbopackIgnore: true */ dir, "training-report.json");
  for (const f of [onnxPath, tokenizerPath, reportPath])
    if (!existsSync(/* turbopackIgnore: true */ f)) throw new SchemaLinkerMissingError(`The schema linker's file ${path.relative(process.cwd(), f)} is missing.`);
  const expected = reportSchema.parse(JSON.parse(readFileSync(/* turbopackIgnore: true */ reportPath, "utf8"))).artefacts["model_quantized.onnx"];
  const sha256 = await sha256File(onnxPath);
  if (sha256 !== expected.sha256)
    throw new SchemaLinkerMissingError(
      `The schema linker's model file does not match its training report (sha256 ${sha256.slice(0, 12)}…, expected ${expected.sha256.slice(0, 12)}…).`,
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
