import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ModelUnavailableError, cacheFolder } from "@/lib/models/files";
import { LocalModelRuntime, type LocalRuntimeConfig } from "@/lib/models/local-runtime";
import { embedderSpec } from "@/lib/models/specs";
import { EMBEDDER, SHARED_MODELS_DIR, fixtureModels, sharedModelsAvailable } from "@/tests/support/models/fixtures";
import { type LoopbackHub, startLoopbackHub } from "@/tests/support/models/hub-server";

const dirs: string[] = [];
const runtimes: LocalModelRuntime[] = [];
const temp = (name: string) => {
  const d = mkdtempSync(path.join(tmpdir(), `mosaic-${name}-`));
  dirs.push(d);
  return d;
};

function runtime(over: Partial<LocalRuntimeConfig>): LocalModelRuntime {
  const r = new LocalModelRuntime({
    precision: "int8",
    embedder: EMBEDDER,
    crossEncoder: null,
    locations: { modelsDir: temp("empty-models"), cacheDir: temp("cache") },
    threads: 1,
    batchWaitMs: 2,
    batchSize: 8,
    queueLimit: 100,
    timeoutMs: 20_000,
    ...over,
  });
  runtimes.push(r);
  return r;
}

describe.skipIf(!sharedModelsAvailable())("downloading a missing model from a Hugging Face–compatible hub", () => {
  let hub: LoopbackHub;
  beforeAll(async () => {
    hub = await startLoopbackHub(SHARED_MODELS_DIR);
  });
  afterAll(async () => {
    await Promise.all(runtimes.map((r) => r.close()));
    await hub.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it("fetches the tokenizer and the int8 file, checks them against the hub's checksums, caches them, and runs", async () => {
    const cacheDir = temp("cache");
    const embedder = await runtime({ locations: { modelsDir: temp("empty-models"), cacheDir, hubUrl: hub.url } }).embedder();
    expect(embedder.info).toMatchObject({
      source: "hub",
      sha256: "d43d6b239de5449c25ff53670d9718f9ea4ae4c7d237858853b68d074163e062",
      precision: "int8",
    });
    expect(hub.requests).toEqual([
      "/Xenova/all-MiniLM-L6-v2/resolve/main/tokenizer.json",
      "/Xenova/all-MiniLM-L6-v2/resolve/main/tokenizer_config.json",
      "/Xenova/all-MiniLM-L6-v2/resolve/main/onnx/model_quantized.onnx",
      "/storage/all-MiniLM-L6-v2/onnx/model_quantized.onnx",
    ]);
    const [v] = await embedder.embed(["downloaded and verified"], "query");
    expect(v).toHaveLength(384);

    // A second start finds the cache and asks the hub for nothing.
    hub.requests.length = 0;
    const again = await runtime({ locations: { modelsDir: temp("empty-models"), cacheDir, hubUrl: hub.url } }).embedder();
    expect(again.info.source).toBe("cache");
    expect(hub.requests).toEqual([]);
  });

  it("refuses a file whose checksum does not match what the hub states, and keeps nothing of it", async () => {
    hub.tamper.add("onnx/model_quantized.onnx");
    try {
      const cacheDir = temp("cache");
      const error = await runtime({ locations: { modelsDir: temp("empty-models"), cacheDir, hubUrl: hub.url } })
        .embedder()
        .catch((e: Error) => e);
      expect(error).toBeInstanceOf(ModelUnavailableError);
      expect((error as Error).message).toMatch(/model_quantized\.onnx does not match its checksum \(sha256 0{64}, got d43d6b23/);
      const folder = path.join(cacheFolder(embedderSpec(EMBEDDER), { cacheDir }), "onnx");
      expect(existsSync(folder) ? readdirSync(folder) : []).toEqual([]);
    } finally {
      hub.tamper.clear();
    }
  });

  it.skipIf(!fixtureModels().dir)(
    "downloads a cross-encoder named by its hub repository, taking the precision the repository has",
    async () => {
      const fixtureHub = await startLoopbackHub(fixtureModels().dir!);
      try {
        // The fixture repository has only the int8 file; fp32 is asked for.
        const r = runtime({
          precision: "fp32",
          crossEncoder: "fixtures/tiny-cross-encoder",
          locations: { modelsDir: temp("empty-models"), cacheDir: temp("cache"), hubUrl: fixtureHub.url },
        });
        const model = (await r.crossEncoder())!;
        expect(model.info).toMatchObject({
          task: "cross-encoder",
          precision: "int8",
          source: "hub",
          note: "fixtures/tiny-cross-encoder has no fp32 file on the hub (onnx/model.onnx); the int8 file is used.",
        });
        expect(await model.score([["a question", "a passage"]])).toHaveLength(1);
      } finally {
        await fixtureHub.close();
      }
    },
  );

  it("says the hub cannot be reached when it is down", async () => {
    const down = await startLoopbackHub(SHARED_MODELS_DIR);
    await down.close();
    const error = await runtime({ locations: { modelsDir: temp("empty-models"), cacheDir: temp("cache"), hubUrl: down.url } })
      .embedder()
      .catch((e: Error) => e);
    expect(error).toBeInstanceOf(ModelUnavailableError);
    expect((error as Error).message).toMatch(
      /the download from http:\/\/127\.0\.0\.1:\d+ failed: .*tokenizer\.json could not be reached \(ECONNREFUSED\)/,
    );
  });
});
