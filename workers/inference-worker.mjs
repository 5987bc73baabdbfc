// The inference worker: one thread of the model pool (lib/models/worker-pool.ts, Piscina). It keeps
// the models it was asked for loaded (one onnxruntime session each, one intra-op thread, so the pool's
// threads use the cores side by side) and answers three tasks: load (check a model and describe it),
// embed (texts → pooled, normalised vectors) and score (query/passage pairs → cross-encoder logits).
// The same file serves in-process pools and the inference service (npm run worker:inference).
import { move } from "piscina";
import { LoadedModel, ModelLoadError } from "./inference/model.mjs";

/**
 * Fault injection for the tests of crash handling (MOSAIC_INFERENCE_FAULTS=1 only): a batch holding
 * CRASH_TEXT makes this thread die with the batch in flight, the way an out-of-memory or a bug in a
 * worker would, so the tests see the pool replace the thread and the batch's callers fail over.
 */
const FAULTS = process.env.MOSAIC_INFERENCE_FAULTS === "1";
const CRASH_TEXT = "__mosaic_inference_crash__";

/** @returns {Promise<never>} */
function crash() {
  setImmediate(() => {
    throw new Error("inference worker crashed (injected fault)");
  });
  return new Promise(() => undefined);
}

/** @type {Map<string, Promise<LoadedModel>>} */
const models = new Map();

/** @param {import("./inference/model.mjs").ModelDescriptor} descriptor */
function modelFor(descriptor) {
  let loading = models.get(descriptor.key);
  if (!loading) {
    loading = LoadedModel.load(descriptor);
    // A failed load is not kept: the main thread decides whether to try again (after a settings change).
    loading.catch(() => models.delete(descriptor.key));
    models.set(descriptor.key, loading);
  }
  return loading;
}

/**
 * @param {{ op: "load", model: import("./inference/model.mjs").ModelDescriptor }
 *   | { op: "embed", model: import("./inference/model.mjs").ModelDescriptor, texts: string[] }
 *   | { op: "score", model: import("./inference/model.mjs").ModelDescriptor, pairs: [string, string][] }
 *   | { op: "unload", key: string }} task
 */
export default async function run(task) {
  switch (task.op) {
    case "load":
      // A refused model is an answer, not a crash: its message names the file and the problem.
      try {
        return { ok: true, ...(await modelFor(task.model)).describe() };
      } catch (e) {
        if (e instanceof ModelLoadError) return { ok: false, error: e.message };
        throw e;
      }
    case "embed": {
      const model = await modelFor(task.model);
      if (FAULTS && task.texts.includes(CRASH_TEXT)) return crash();
      return move(await model.embed(task.texts));
    }
    case "score": {
      const scores = await (await modelFor(task.model)).score(task.pairs);
      return move(scores);
    }
    case "unload": {
      const loading = models.get(task.key);
      models.delete(task.key);
      if (loading) await (await loading.catch(() => null))?.release();
      return true;
    }
    default:
      throw new Error(`unknown inference task ${JSON.stringify(/** @type {any} */ (task).op)}`);
  }
}
