import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseModelsEnv } from "@/lib/models-env";
import { ModelUnavailableError } from "@/lib/models/files";
import { LocalModelRuntime } from "@/lib/models/local-runtime";
import { RemoteModelRuntime } from "@/lib/models/remote-runtime";
import { handlesFrom, runtimeChoice, runtimeFor, shutdownModels } from "@/lib/models/runtime";
import { EMBEDDER, SHARED_MODELS_DIR, sharedModelsAvailable } from "@/tests/support/models/fixtures";

/** Starts `npm run worker:inference`'s script on a free port; resolves with its URL once it listens. */
function startService(dataDir: string): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  const child = spawn(process.execPath, ["--import", "tsx", path.resolve("scripts/worker-inference.ts")], {
    env: {
      ...process.env,
      INFERENCE_PORT: "0",
      MODELS_DIR: SHARED_MODELS_DIR,
      MODEL_WORKERS: "1",
      MODELS_PRECISION: "int8",
      DATA_DIR: dataDir,
      INFERENCE_URL: "",
      LOG_LEVEL: "silent",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the inference service did not start:\n${out}`)), 30_000);
    child.stdout!.on("data", (d) => {
      out += d;
      const m = /listening on (http:\/\/[\d.]+:\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: m[1], output: () => out });
      }
    });
    child.stderr!.on("data", (d) => (out += d));
    child.on("exit", (code) => reject(new Error(`the inference service exited with ${code}:\n${out}`)));
  });
}

describe.skipIf(!sharedModelsAvailable())("inference service (npm run worker:inference) and the app's client", () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), "mosaic-inference-"));
  let service: Awaited<ReturnType<typeof startService>>;
  let local: LocalModelRuntime;

  beforeAll(async () => {
    service = await startService(dataDir);
    local = new LocalModelRuntime({
      precision: "int8",
      embedder: EMBEDDER,
      crossEncoder: null,
      locations: { modelsDir: SHARED_MODELS_DIR, cacheDir: dataDir },
      threads: 1,
      batchWaitMs: 0,
      batchSize: 8,
      queueLimit: 100,
      timeoutMs: 20_000,
    });
  });
  afterAll(async () => {
    if (service?.child.exitCode === null) service.child.kill("SIGKILL");
    await local?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const client = (over: Partial<ConstructorParameters<typeof RemoteModelRuntime>[0]> = {}) =>
    new RemoteModelRuntime({ url: service.url, precision: "int8", embedder: EMBEDDER, crossEncoder: null, timeoutMs: 20_000, ...over });

  it("answers its health check with the models it runs and its pool", async () => {
    const res = await fetch(`${service.url}/health`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      status: string;
      runtime: { embedder: { state: string; model: { id: string } }; pool: { threads: number } };
    };
    expect(body.status).toBe("ok");
    expect(body.runtime.embedder).toMatchObject({ state: "ready", model: { id: "all-MiniLM-L6-v2@int8:d43d6b239de5" } });
    expect(body.runtime.pool.threads).toBe(1);
  });

  it("gives the app the same vectors as its in-process workers", async () => {
    const remote = await client().embedder();
    expect(remote.info).toMatchObject({ id: "all-MiniLM-L6-v2@int8:d43d6b239de5", source: "service", dimensions: 384 });
    const texts = ["Which customers are located in Munich?"];
    const [a] = await remote.embed(texts, "query");
    const [b] = await (await local.embedder()).embed(texts, "query");
    expect(Array.from(a)).toEqual(Array.from(b));
  });

  it("refuses malformed requests with a plain message", async () => {
    const res = await fetch(`${service.url}/v1/embed`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ texts: [] }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: { kind: "invalid", message: "texts: Send at least one text." } });
  });

  it("tells the app when it runs another model than the settings ask for, and when there is no cross-encoder", async () => {
    await expect(client({ precision: "fp32" }).embedder()).rejects.toThrow(
      /runs all-MiniLM-L6-v2 \(int8\), but the settings ask for all-MiniLM-L6-v2 \(fp32\)/,
    );
    await expect(client({ crossEncoder: "cross-encoder/ms-marco-MiniLM-L-6-v2" }).crossEncoder()).rejects.toBeInstanceOf(
      ModelUnavailableError,
    );
  });

  it("is what the app uses when INFERENCE_URL is set", async () => {
    const env = parseModelsEnv({ INFERENCE_URL: service.url, MODELS_DIR: SHARED_MODELS_DIR });
    const runtime = runtimeFor(runtimeChoice({ enabled: true, precision: "int8", embedder: EMBEDDER, crossEncoder: null }, env, dataDir));
    try {
      expect(runtime).toBeInstanceOf(RemoteModelRuntime);
      const models = await handlesFrom(runtime);
      expect(models.embedder?.info.source).toBe("service");
      expect(models.notes).toEqual([]);
      expect((await runtime!.status()).mode).toBe("service");
    } finally {
      await shutdownModels();
    }
  });

  it("drains on SIGTERM: the request in flight is answered, then it stops", async () => {
    const remote = await client().embedder();
    const long = Array(40).fill("A long passage about storm surges and erosion along the northern cliffs. ".repeat(8));
    const inFlight = remote.embed(long, "passage");
    await new Promise((r) => setTimeout(r, 100));
    const exited = new Promise<number | null>((resolve) => service.child.on("exit", resolve));
    service.child.kill("SIGTERM");
    expect(await inFlight).toHaveLength(40);
    expect(await exited).toBe(0);
    expect(service.output()).toMatch(/SIGTERM: draining\nstopped/);
    // Gone: the client says the service cannot be reached, and the app ranks classically.
    await expect(remote.embed(["after"], "query")).rejects.toBeInstanceOf(ModelUnavailableError);
  });
});
