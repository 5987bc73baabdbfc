import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";

/**
 * Model files for the model-runtime tests. The shared embedder (../shared/models, present in CI) is
 * used as shipped; the small cross-encoder and the broken embedders are built from it by
 * build_fixture_models.py (needs Python with the `onnx` package: `.ci/run` installs it) into an ignored
 * folder, once per version of the script.
 */

export const SHARED_MODELS_DIR = path.resolve(process.env.MODELS_DIR ?? "../shared/models");
export const EMBEDDER = "all-MiniLM-L6-v2";
export const GENERATED_DIR = path.resolve("tests/support/models/generated");
const SCRIPT = path.resolve("tests/support/models/build_fixture_models.py");
const PYTHON = process.env.MOSAIC_PYTHON ?? "python3";

export function sharedModelsAvailable(): boolean {
  return existsSync(path.join(SHARED_MODELS_DIR, EMBEDDER, "onnx", "model_quantized.onnx"));
}

/**
 * Builds the fixture models if they are missing or older than the script. Returns null (with the
 * reason) when Python or its `onnx` package is missing: tests then skip, except in CI, where that is
 * a failure (CI installs it).
 */
export function fixtureModels(): { dir: string } | { dir: null; reason: string } {
  const stamp = path.join(GENERATED_DIR, ".script-sha256");
  const want = createHash("sha256").update(readFileSync(SCRIPT)).digest("hex");
  if (existsSync(stamp) && readFileSync(stamp, "utf8") === want) return { dir: GENERATED_DIR };
  rmSync(GENERATED_DIR, { recursive: true, force: true });
  mkdirSync(GENERATED_DIR, { recursive: true });
  const r = spawnSync(PYTHON, [SCRIPT, SHARED_MODELS_DIR, GENERATED_DIR], { encoding: "utf8" });
  if (r.status !== 0) {
    const reason = `${PYTHON} ${path.basename(SCRIPT)} failed (${(r.error?.message ?? r.stderr).trim().split("\n").pop()}); install the onnx package: python3 -m pip install onnx==1.23.2`;
    if (process.env.CI) throw new Error(reason);
    return { dir: null, reason };
  }
  writeFileSync(stamp, want);
  return { dir: GENERATED_DIR };
}
