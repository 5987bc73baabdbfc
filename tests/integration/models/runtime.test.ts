import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ModelBusyError, ModelTimeoutError } from "@/lib/models/batcher";
import { ModelUnavailableError } from "@/lib/models/files";
import { ModelLoadError } from "@/lib/models/local-runtime";
import { EMBEDDER, fixtureModels, sharedModelsAvailable } from "@/tests/support/models/fixtures";
import { testRuntimes } from "@/tests/support/models/test-runtimes";

const runtimes = testRuntimes();
const { cache, runtime } = runtimes;
afterAll(() => runtimes.close());

const LONG = Array(12)
  .fill(
    "The lighthouse keeper recorded a storm surge of 3.4 metres on the night of 12 March, and the survey team measured erosion along the northern cliffs.",
  )
  .join(" ");
const SENTENCES = ["The cat sits outside.", "How many oders were retruned?", LONG];
const head = (v: Float32Array) => Array.from(v.slice(0, 4));
const cosine = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, k) => sum + x * b[k], 0);

describe.skipIf(!sharedModelsAvailable())("model runtime on onnxruntime-node worker threads", () => {
  it("embeds like Python onnxruntime with sentence-transformers' pooling (mean over tokens, L2), int8 by default", async () => {
    const embedder = await runtime().embedder();
    expect(embedder.info).toMatchObject({
      name: EMBEDDER,
      precision: "int8",
      sha256: "d43d6b239de5449c25ff53670d9718f9ea4ae4c7d237858853b68d074163e062",
      dimensions: 384,
      source: "models-dir",
      id: "all-MiniLM-L6-v2@int8:d43d6b239de5",
    });
    const vectors = await embedder.embed(SENTENCES, "passage");
    const exact = await (await runtime({ precision: "fp32" }).embedder()).embed(SENTENCES, "passage");
    // tools/common.py ort_embed on the fp32 file (tokenizers truncating at 256): Python onnxruntime 1.23.2 on an
    // AVX2-only AMD EPYC; its first row is also what 1.32.0 gave on an AVX-512 VNNI machine.
    const python = [
      [0.13884, 0.00013, 0.04263, 0.04575],
      [0.03047, 0.10817, 0.03724, 0.07684],
      [-0.00999, 0.01719, 0.04457, -0.02009],
    ];
    exact.forEach((v, i) => head(v).forEach((x, j) => expect(x).toBeCloseTo(python[i][j], 4)));
    // int8's integer kernels are the CPU's own (VNNI or AVX2, whose 16-bit sums saturate), so its figures
    // move by up to 1e-2 from one machine to another; its direction holds: cosine to fp32 at least 0.985
    // (the models README measured 0.9888 at worst over 20 sentences; 0.992–0.995 on both kinds of CPU here).
    vectors.forEach((v, i) => expect(cosine(v, exact[i])).toBeGreaterThan(0.985));
    for (const v of vectors) expect(Math.hypot(...v)).toBeCloseTo(1, 5);
  });

  it("gives the same vectors from one worker with two onnxruntime threads (MODEL_THREADS_PER_WORKER) as from single-thread workers", async () => {
    const single = await (await runtime({ threads: 2 }).embedder()).embed(SENTENCES, "passage");
    const shared = await (await runtime({ threads: 1, threadsPerWorker: 2 }).embedder()).embed(SENTENCES, "passage");
    shared.forEach((v, i) => {
      let dot = 0;
      for (let k = 0; k < v.length; k++) dot += v[k] * single[i][k];
      expect(dot).toBeGreaterThan(0.99999);
    });
  });

  it("uses the fp32 file when the settings ask for it", async () => {
    const embedder = await runtime({ precision: "fp32" }).embedder();
    expect(embedder.info).toMatchObject({ precision: "fp32", sha256: "978114613d39280dc521e41078af64b14bcf00dadce9eed6aba7e57d631dcdb5" });
    const [cat] = await embedder.embed(["The cat sits outside."], "query");
    // fp32 does not depend on the batch: alone or padded beside others, the same vector (Python: 0.13884, 0.00013, 0.04263, 0.04575).
    head(cat).forEach((x, j) => expect(x).toBeCloseTo([0.13884, 0.00013, 0.04263, 0.04575][j], 4));
  });

  it("gives an int8 question the same vector whatever other requests run beside it (one request per batch)", async () => {
    const r = runtime({ batchWaitMs: 30 });
    const embedder = await r.embedder();
    const question = "In which city is the returns warehouse?";
    const [alone] = await embedder.embed([question], "query");
    const before = (await r.status()).queues.embedder!.batches;
    // Mixed into one batch with these, int8's per-batch activation scale moved the question's vector (cosine 0.989).
    const [[beside]] = await Promise.all([
      embedder.embed([question], "query"),
      embedder.embed(["How many orders were returned?", LONG], "query"),
      embedder.embed(["Which customers are located in Munich?"], "query"),
    ]);
    expect(Array.from(beside!)).toEqual(Array.from(alone!));
    expect((await r.status()).queues.embedder!.batches - before).toBe(3);
  });

  it("batches concurrent requests into shared model calls (fp32, whose vectors do not depend on the batch)", async () => {
    const r = runtime({ batchWaitMs: 30, precision: "fp32" });
    const embedder = await r.embedder();
    const before = (await r.status()).queues.embedder!.batches;
    const out = await Promise.all(Array.from({ length: 12 }, (_, i) => embedder.embed([`request number ${i} about storms`], "query")));
    expect(out).toHaveLength(12);
    const status = await r.status();
    expect(status.queues.embedder!.batches - before).toBeLessThanOrEqual(3);
    expect(status.pool).toMatchObject({ threads: 2, maxThreads: 2 });
  });

  it("refuses work past the queue limit and fails a request past its time limit, without waiting for the model", async () => {
    const r = runtime({ queueLimit: 16, timeoutMs: 1 });
    const embedder = await r.embedder();
    await expect(embedder.embed(Array(17).fill(LONG), "passage", { timeoutMs: 60_000 })).rejects.toBeInstanceOf(ModelBusyError);
    await expect(embedder.embed(Array(16).fill(LONG), "passage")).rejects.toBeInstanceOf(ModelTimeoutError);
  });

  it("fails over the requests of a worker thread that dies, replaces the thread, and serves the next request", async () => {
    // workers/inference-worker.mjs: with MOSAIC_INFERENCE_FAULTS=1 a batch holding this text kills its thread mid-batch.
    process.env.MOSAIC_INFERENCE_FAULTS = "1";
    // fp32, so the bystander's request shares the doomed batch (int8 keeps each request in its own batches).
    const r = runtime({ batchWaitMs: 30, precision: "fp32" });
    const embedder = await r.embedder();
    delete process.env.MOSAIC_INFERENCE_FAULTS;
    const started = Date.now();
    const [doomed, bystander] = await Promise.allSettled([
      embedder.embed(["__mosaic_inference_crash__"], "passage"),
      embedder.embed(["shares the batch"], "passage"),
    ]);
    expect(doomed.status).toBe("rejected");
    expect(bystander.status).toBe("rejected");
    expect(Date.now() - started).toBeLessThan(10_000);
    const [after] = await embedder.embed(["still here"], "query");
    expect(after).toHaveLength(384);
    const status = r.inferencePool!.status();
    expect(status.replacedThreads).toBeGreaterThanOrEqual(1);
    expect(status.threads).toBe(2);
  });

  it("says where it looked when a model is missing and no hub is configured", async () => {
    const r = runtime({ embedder: "bge-small-en-v1.5" });
    await expect(r.embedder()).rejects.toBeInstanceOf(ModelUnavailableError);
    await expect(r.embedder()).rejects.toThrow(/bge-small-en-v1\.5 \(int8\) is not in .*no model hub is configured \(MODELS_HUB_URL\)/);
    expect((await r.status()).embedder).toMatchObject({ state: "unavailable", reason: expect.stringMatching(/no model hub/) });
  });
});

const fixtures = sharedModelsAvailable() ? fixtureModels() : { dir: null, reason: "the shared models are missing" };

describe.skipIf(!fixtures.dir)("refusing a model file that is not the model it claims to be", () => {
  // Each broken file is offered under the embedder's name, as a damaged or mistaken download would be.
  it.each([
    ["corrupt-embedder", /all-MiniLM-L6-v2\/onnx\/model_quantized\.onnx is not a loadable ONNX model \(.*Protobuf parsing failed/],
    [
      "wrong-inputs-embedder",
      /all-MiniLM-L6-v2\/onnx\/model_quantized\.onnx has the inputs pixel_values; a text embedder needs input_ids and attention_mask/,
    ],
    [
      "wrong-width-embedder",
      /all-MiniLM-L6-v2\/onnx\/model_quantized\.onnx produces 16-dimensional vectors; all-MiniLM-L6-v2 must produce 384/,
    ],
  ])("%s is refused at load, naming the file and the problem, and the runtime reports it", async (folder, message) => {
    const modelsDir = mkdtempSync(path.join(tmpdir(), "mosaic-broken-"));
    cpSync(path.join(fixtures.dir!, folder), path.join(modelsDir, EMBEDDER), { recursive: true });
    const r = runtime({ locations: { modelsDir, cacheDir: cache } });
    const error = await r.embedder().catch((e: Error) => e);
    expect(error).toBeInstanceOf(ModelLoadError);
    expect((error as Error).message).toMatch(message);
    expect((await r.status()).embedder).toMatchObject({ state: "unavailable", reason: expect.stringMatching(message) });
    rmSync(modelsDir, { recursive: true, force: true });
  });
});
