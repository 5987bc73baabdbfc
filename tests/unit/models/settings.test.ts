import { describe, expect, it } from "vitest";
import { parseModelsEnv } from "@/lib/models-env";
import { runtimeChoice } from "@/lib/models/runtime";
import { checkModelName, crossEncoderSpec, embedderSpec } from "@/lib/models/specs";
import { resolveModelSettings } from "@/lib/models/settings";
import { modelSettingsInputSchema } from "@/lib/settings/model-settings.validation";

describe("model settings", () => {
  const env = parseModelsEnv({});

  it("defaults to the shared embedder in int8, no cross-encoder, models on, MODELS_DIR beside the repository", () => {
    expect(resolveModelSettings({ enabled: null, precision: null, embedder: null, crossEncoder: null }, env)).toEqual({
      enabled: true,
      precision: "int8",
      embedder: "all-MiniLM-L6-v2",
      crossEncoder: null,
    });
    expect(env.MODELS_DIR).toBe("../shared/models");
  });

  it("lets the admin's settings override the environment", () => {
    const fromEnv = parseModelsEnv({ MODELS_PRECISION: "int8", CROSS_ENCODER_MODEL: "cross-encoder/ms-marco-MiniLM-L-6-v2" });
    expect(resolveModelSettings({ enabled: false, precision: "fp32", embedder: null, crossEncoder: null }, fromEnv)).toEqual({
      enabled: false,
      precision: "fp32",
      embedder: "all-MiniLM-L6-v2",
      crossEncoder: "cross-encoder/ms-marco-MiniLM-L-6-v2",
    });
  });

  it("sizes the worker pool to the cores unless MODEL_WORKERS says otherwise, and caches downloads under DATA_DIR", () => {
    const choice = runtimeChoice(
      { enabled: true, precision: "int8", embedder: "all-MiniLM-L6-v2", crossEncoder: null },
      parseModelsEnv({ MODEL_WORKERS: "3" }),
      "/data",
    );
    expect(choice.local.threads).toBe(3);
    expect(choice.local.locations.cacheDir).toBe("/data/models");
    expect(choice.inferenceUrl).toBeNull();
  });

  it("gives each worker one onnxruntime thread unless MODEL_THREADS_PER_WORKER says otherwise", () => {
    const settings = { enabled: true, precision: "int8", embedder: "all-MiniLM-L6-v2", crossEncoder: null } as const;
    expect(runtimeChoice(settings, parseModelsEnv({}), "/data").local.threadsPerWorker).toBe(1);
    expect(runtimeChoice(settings, parseModelsEnv({ MODEL_WORKERS: "1", MODEL_THREADS_PER_WORKER: "2" }), "/data").local).toMatchObject({
      threads: 1,
      threadsPerWorker: 2,
    });
    expect(() => parseModelsEnv({ MODEL_THREADS_PER_WORKER: "0" })).toThrow(/MODEL_THREADS_PER_WORKER/);
  });

  it("refuses bad values with messages naming the variable or the field", () => {
    expect(() => parseModelsEnv({ MODELS_PRECISION: "int4" })).toThrow(/MODELS_PRECISION/);
    expect(() => parseModelsEnv({ INFERENCE_URL: "ftp://x" })).toThrow(/INFERENCE_URL: must be the http\(s\) URL of an inference service/);
    const parsed = modelSettingsInputSchema.safeParse({ enabled: true, precision: "int8", embedder: "../etc/passwd", crossEncoder: "" });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]).toMatchObject({
      path: ["embedder"],
      message: expect.stringMatching(/Use a folder name under MODELS_DIR or a hub repository/),
    });
  });

  it("knows how each embedder pools, and takes any sequence-classification model as a cross-encoder", () => {
    expect(embedderSpec("all-MiniLM-L6-v2")).toMatchObject({ dimensions: 384, pooling: "mean", maxTokens: 256, queryPrefix: "" });
    expect(embedderSpec("bge-small-en-v1.5")).toMatchObject({ pooling: "cls", maxTokens: 512 });
    expect(() => embedderSpec("my-embedder")).toThrow(
      /not one this runtime knows how to pool; choose one of all-MiniLM-L6-v2, bge-small-en-v1.5/,
    );
    expect(crossEncoderSpec("cross-encoder/ms-marco-MiniLM-L-6-v2")).toMatchObject({
      repo: "cross-encoder/ms-marco-MiniLM-L-6-v2",
      revision: "main",
      maxTokens: 512,
    });
    expect(() => checkModelName("a/../../b")).toThrow(/is not a model name/);
  });
});
