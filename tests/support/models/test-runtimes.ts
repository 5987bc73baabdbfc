import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { LocalModelRuntime, type LocalRuntimeConfig } from "@/lib/models/local-runtime";
import { EMBEDDER, SHARED_MODELS_DIR } from "./fixtures";

/**
 * In-process model runtimes on the shared embedder for one test file: `runtime(over)` makes one with the
 * file's defaults (a fresh download cache of its own), `close()` (afterAll) stops them all and removes the cache.
 */
export function testRuntimes(defaults: Partial<LocalRuntimeConfig> = {}) {
  const cache = mkdtempSync(path.join(tmpdir(), "mosaic-models-"));
  const made: LocalModelRuntime[] = [];
  return {
    cache,
    runtime(over: Partial<LocalRuntimeConfig> = {}): LocalModelRuntime {
      const r = new LocalModelRuntime({
        precision: "int8",
        embedder: EMBEDDER,
        crossEncoder: null,
        locations: { modelsDir: SHARED_MODELS_DIR, cacheDir: cache },
        threads: 2,
        batchWaitMs: 5,
        batchSize: 8,
        queueLimit: 1000,
        timeoutMs: 20_000,
        ...defaults,
        ...over,
      });
      made.push(r);
      return r;
    },
    async close() {
      await Promise.all(made.map((r) => r.close()));
      rmSync(cache, { recursive: true, force: true });
    },
  };
}
