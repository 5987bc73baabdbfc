// How an inference worker opens its onnxruntime sessions (plain JavaScript: worker threads load it without a compiler).

/**
 * onnxruntime session options for `threads` intra-op threads. A worker runs one batch at a time, so
 * operators run one after another (sequential, one inter-op thread). With several intra-op threads the
 * helpers do not spin while they wait for work: a spinning thread burns CPU the other workers (and the
 * rest of the app) need, and on a busy machine it holds a core while the thread it waits for is not
 * running. (Compare shapes with `npm run bench -- models --threads N --threads-per-worker M`.)
 * @param {number} threads
 * @returns {import("onnxruntime-node").InferenceSession.SessionOptions}
 */
export function sessionOptions(threads) {
  /** @type {import("onnxruntime-node").InferenceSession.SessionOptions} */
  const options = {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: "sequential",
    graphOptimizationLevel: "all",
    executionProviders: ["cpu"],
  };
  if (threads > 1) options.extra = { session: { intra_op: { allow_spinning: "0" } } };
  return options;
}
