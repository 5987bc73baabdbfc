import type { ModelFiles } from "./files";
import { ShippedModelMissingError, shippedModelDir, shippedModelFiles } from "./shipped-model";
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

export function schemaLinkerDir(): string {
  return shippedModelDir("schema-linker");
}

export const SCHEMA_LINKER_SPEC: CrossEncoderSpec = {
  task: "cross-encoder",
  name: SCHEMA_LINKER_NAME,
  repo: "",
  revision: "",
  // Trained on pairs of at most 64 tokens (a question and one column's words fit in far fewer).
  maxTokens: 64,
};

/** The shipped model's files are missing or not the trained ones. */
export { ShippedModelMissingError as SchemaLinkerMissingError };

/** The shipped files, checked against its training report's checksum (shipped-model.ts). */
export function schemaLinkerFiles(dir = schemaLinkerDir()): Promise<ModelFiles> {
  return shippedModelFiles(dir, "The schema linker");
}
