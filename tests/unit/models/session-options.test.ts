import { describe, expect, it } from "vitest";
// The worker's own module: the options the inference threads open their sessions with.
import { sessionOptions } from "@/workers/inference/session-options.mjs";

describe("onnxruntime session options of an inference worker", () => {
  it("runs operators one after another on the worker's own thread when it has one", () => {
    const one = sessionOptions(1);
    expect(one).toMatchObject({ intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: "sequential", graphOptimizationLevel: "all" });
    expect(one.extra).toBeUndefined();
  });

  it("keeps the extra threads of a multi-thread session from spinning while they wait", () => {
    expect(sessionOptions(2)).toMatchObject({ intraOpNumThreads: 2, extra: { session: { intra_op: { allow_spinning: "0" } } } });
  });
});
