import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import onnxProto from "onnx-proto";
import * as ort from "onnxruntime-node";
import { afterAll, describe, expect, it } from "vitest";
import { EMBEDDER, SHARED_MODELS_DIR, sharedModelsAvailable } from "@/tests/support/models/fixtures";
import { testRuntimes } from "@/tests/support/models/test-runtimes";
// The worker's own module: the rewrite the inference threads apply at load.
import { fuseAttention } from "@/workers/inference/attention-fusion.mjs";

const { onnx } = onnxProto;
const onnxFile = (precision: "int8" | "fp32") =>
  path.join(SHARED_MODELS_DIR, EMBEDDER, "onnx", precision === "int8" ? "model_quantized.onnx" : "model.onnx");
const SHAPE = { hiddenSize: 384, heads: 12 };

/** A padded batch: three rows of 40, 17 and 5 real tokens (the rest padding), CLS first. */
function paddedBatch(lengths = [40, 17, 5], width = 40) {
  const ids = new BigInt64Array(lengths.length * width);
  const mask = new BigInt64Array(lengths.length * width);
  lengths.forEach((n, r) => {
    for (let j = 0; j < n; j++) {
      ids[r * width + j] = BigInt(j === 0 ? 101 : 1000 + ((r * 7919 + j * 104_729) % 20_000));
      mask[r * width + j] = 1n;
    }
  });
  const dims = [lengths.length, width];
  return {
    lengths,
    width,
    feeds: {
      input_ids: new ort.Tensor("int64", ids, dims),
      attention_mask: new ort.Tensor("int64", mask, dims),
      token_type_ids: new ort.Tensor("int64", new BigInt64Array(ids.length), dims),
    },
  };
}

/** last_hidden_state at the real tokens only (what pooling reads). */
async function realTokens(model: string | Uint8Array, batch: ReturnType<typeof paddedBatch>): Promise<number[]> {
  const session = await ort.InferenceSession.create(model as Uint8Array, { logSeverityLevel: 3 });
  const out = (await session.run(batch.feeds)).last_hidden_state;
  await session.release();
  const data = out.data as Float32Array;
  const hidden = Number(out.dims[2]);
  const values: number[] = [];
  batch.lengths.forEach((n, r) => values.push(...data.subarray(r * batch.width * hidden, (r * batch.width + n) * hidden)));
  return values;
}

const maxDifference = (a: number[], b: number[]) => a.reduce((m, x, i) => Math.max(m, Math.abs(x - b[i])), 0);

describe.skipIf(!sharedModelsAvailable())("self-attention fused into onnxruntime's MultiHeadAttention", () => {
  it.each(["int8", "fp32"] as const)(
    "rewrites every layer of the %s embedder, with the head count and scale the export computes with",
    (precision) => {
      const result = fuseAttention(readFileSync(onnxFile(precision)), SHAPE);
      expect(result).toMatchObject({ layers: 6, reason: null });
      const model = onnx.ModelProto.decode(result.fused!);
      const ops = model.graph!.node!.map((n) => n.opType);
      expect(ops.filter((o) => o === "MultiHeadAttention")).toHaveLength(6);
      // The softmax, the NaN guard and the per-layer mask are gone with the attention they belonged to.
      expect(ops).not.toContain("Softmax");
      expect(ops).not.toContain("IsNaN");
      const mha = model.graph!.node!.find((n) => n.opType === "MultiHeadAttention")!;
      expect(mha.domain).toBe("com.microsoft");
      expect(mha.input).toHaveLength(5);
      expect(mha.attribute!.find((a) => a.name === "num_heads")!.i).toEqual(expect.objectContaining({ low: 12 }));
      // 384 wide, 12 heads: 1/sqrt(32), which the export applies as two factors of 32^-1/4.
      expect(mha.attribute!.find((a) => a.name === "scale")!.f).toBeCloseTo(1 / Math.sqrt(32), 6);
      expect(model.opsetImport!.some((o) => o.domain === "com.microsoft")).toBe(true);
    },
  );

  it("gives the published fp32 graph's hidden states, padded or not", async () => {
    const bytes = readFileSync(onnxFile("fp32"));
    const padded = paddedBatch();
    expect(
      maxDifference(await realTokens(onnxFile("fp32"), padded), await realTokens(fuseAttention(bytes, SHAPE).fused!, padded)),
    ).toBeLessThan(1e-4);
    // Without padding, the copy without a mask computes the same.
    const even = paddedBatch([24, 24], 24);
    const unmasked = fuseAttention(bytes, { ...SHAPE, mask: false });
    expect(onnx.ModelProto.decode(unmasked.fused!).graph!.node!.find((n) => n.opType === "MultiHeadAttention")!.input).toHaveLength(3);
    expect(maxDifference(await realTokens(onnxFile("fp32"), even), await realTokens(unmasked.fused!, even))).toBeLessThan(1e-4);
  });

  it("leaves a graph it does not recognise as it is, and says why", () => {
    /** A one-node model reading one input. */
    const oneNode = (opType: string, input: string) =>
      onnx.ModelProto.encode(
        onnx.ModelProto.create({
          irVersion: 7,
          opsetImport: [{ domain: "", version: 14 }],
          graph: { name: "g", node: [{ opType, input: [input], output: ["y"] }], input: [{ name: input }], output: [{ name: "y" }] },
        }),
      ).finish();
    const noMask = oneNode("Identity", "input_ids");
    expect(fuseAttention(noMask)).toEqual({ fused: null, layers: 0, reason: "the graph takes no attention_mask" });
    const noAttention = oneNode("Softmax", "attention_mask");
    expect(fuseAttention(noAttention)).toMatchObject({ fused: null, layers: 0, reason: expect.stringMatching(/no self-attention/) });
  });
});

const runtimes = testRuntimes({ precision: "fp32", threads: 1, batchWaitMs: 0 });
const { cache, runtime } = runtimes;
afterAll(() => runtimes.close());

const LONG = Array(30).fill("The survey team measured erosion along the northern cliffs after the storm.").join(" ");
const TEXTS = ["Which customers are located in Munich?", "How many oders were retruned?", LONG, LONG.slice(0, 900)];
const cosines = (a: Float32Array[], b: Float32Array[]) => a.map((v, i) => v.reduce((s, x, k) => s + x * b[i][k], 0));

describe.skipIf(!sharedModelsAvailable())("the runtime with fused attention", () => {
  it("runs the fused graph by default, says so, and embeds as the published graph does (padded batches and batches cut at the token limit)", async () => {
    const fused = await runtime().embedder();
    const published = await runtime({ fuseAttention: false }).embedder();
    expect(fused.info.graph).toMatch(
      /^self-attention fused in 6 layers \(onnxruntime MultiHeadAttention\); vectors checked against the published graph, cosine ≥ 1\.0000$/,
    );
    expect(published.info.graph).toBe("as published");
    // Same file, same vectors: the id that stored vectors carry does not change.
    expect(fused.info.id).toBe(published.info.id);
    for (const c of cosines(await fused.embed(TEXTS, "passage"), await published.embed(TEXTS, "passage")))
      expect(c).toBeGreaterThan(0.99999);
    // Two passages past the 256-token limit make a batch without padding: the copy without a mask runs it.
    for (const c of cosines(await fused.embed([LONG, `${LONG} more`], "passage"), await published.embed([LONG, `${LONG} more`], "passage")))
      expect(c).toBeGreaterThan(0.99999);
  });

  it("keeps the published graph when the rewrite would not give its vectors, and says so", async () => {
    // A config.json that misstates the width makes the rewrite split the heads wrongly (6 of 64 instead of 12 of 32).
    const modelsDir = mkdtempSync(path.join(tmpdir(), "mosaic-misstated-"));
    cpSync(path.join(SHARED_MODELS_DIR, EMBEDDER), path.join(modelsDir, EMBEDDER), { recursive: true });
    const configFile = path.join(modelsDir, EMBEDDER, "config.json");
    const config = JSON.parse(readFileSync(configFile, "utf8")) as Record<string, unknown>;
    delete config.num_attention_heads;
    writeFileSync(configFile, JSON.stringify({ ...config, hidden_size: 192 }));
    try {
      const embedder = await runtime({ locations: { modelsDir, cacheDir: cache } }).embedder();
      expect(embedder.info.graph).toMatch(
        /^as published \(the fused graph was not used: its vectors differ from the published graph's, cosine 0\.\d+\)$/,
      );
      const published = await runtime({ fuseAttention: false }).embedder();
      for (const c of cosines(await embedder.embed(TEXTS, "passage"), await published.embed(TEXTS, "passage")))
        expect(c).toBeGreaterThan(0.99999);
    } finally {
      rmSync(modelsDir, { recursive: true, force: true });
    }
  });
});
