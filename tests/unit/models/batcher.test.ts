import { describe, expect, it } from "vitest";
import { DynamicBatcher, ModelBusyError, ModelCancelledError, ModelTimeoutError } from "@/lib/models/batcher";

/** A model stand-in that records every batch it is given and answers after `ms`. */
function recorder(ms = 5) {
  const batches: string[][] = [];
  const run = async (items: string[]) => {
    batches.push(items);
    await new Promise((r) => setTimeout(r, ms));
    return items.map((t) => t.toUpperCase());
  };
  return { batches, run };
}

const make = (over: Partial<ConstructorParameters<typeof DynamicBatcher<string, string>>[0]> = {}) => {
  const model = recorder();
  const batcher = new DynamicBatcher<string, string>({
    label: "The test model",
    maxWaitMs: 20,
    maxBatch: 4,
    queueLimit: 100,
    concurrency: 1,
    sizeOf: (t) => t.length,
    run: model.run,
    ...over,
  });
  return { batcher, model };
};

describe("dynamic batching", () => {
  it("puts concurrent requests into one model call and gives each its own results in order", async () => {
    const { batcher, model } = make();
    const [a, b] = await Promise.all([batcher.submit(["x", "yy"], { timeoutMs: 1000 }), batcher.submit(["zzz"], { timeoutMs: 1000 })]);
    expect(a).toEqual(["X", "YY"]);
    expect(b).toEqual(["ZZZ"]);
    expect(model.batches).toHaveLength(1);
    expect(batcher.status()).toMatchObject({ batches: 1, meanBatchSize: 3, waiting: 0, running: 0 });
  });

  it("keeps each request in batches of its own when requests must not mix, still sorted by length", async () => {
    const { batcher, model } = make({ mixRequests: false, concurrency: 2 });
    const [a, b, c] = await Promise.all([
      batcher.submit(["xxx", "y"], { timeoutMs: 1000 }),
      batcher.submit(["zz"], { timeoutMs: 1000 }),
      batcher.submit(["p", "qqqq", "rr", "s", "tttttt"], { timeoutMs: 1000 }),
    ]);
    expect([a, b, c]).toEqual([["XXX", "Y"], ["ZZ"], ["P", "QQQQ", "RR", "S", "TTTTTT"]]);
    expect(model.batches).toEqual([["y", "xxx"], ["zz"], ["p", "s", "rr", "qqqq"], ["tttttt"]]);
  });

  it("cuts a window of waiting items into batches sorted by length, so similar lengths are padded together", async () => {
    const { batcher, model } = make({ concurrency: 2 });
    const texts = ["aaaaaaaa", "b", "cccccc", "dd", "eeeeeee", "fff", "g", "hhhh"];
    const out = await batcher.submit(texts, { timeoutMs: 1000 });
    expect(out).toEqual(texts.map((t) => t.toUpperCase()));
    expect(model.batches).toEqual([
      ["b", "g", "dd", "fff"],
      ["hhhh", "cccccc", "eeeeeee", "aaaaaaaa"],
    ]);
  });

  it("refuses a request that would overflow the queue (back-pressure) without touching the model", async () => {
    const { batcher, model } = make({ queueLimit: 5 });
    const first = batcher.submit(["a", "b", "c", "d"], { timeoutMs: 1000 });
    await expect(batcher.submit(["e", "f"], { timeoutMs: 1000 })).rejects.toBeInstanceOf(ModelBusyError);
    await expect(batcher.submit(["e", "f"], { timeoutMs: 1000 })).rejects.toThrow(/busy \(4 of 5 places/);
    await first;
    expect(model.batches.flat()).toEqual(["a", "b", "c", "d"]);
    expect(batcher.status().refused).toBe(2);
  });

  it("fails a request past its own time limit at once, while the batch it was in goes on for the others", async () => {
    const model = recorder(300);
    const batcher = new DynamicBatcher<string, string>({
      label: "The slow model",
      maxWaitMs: 1,
      maxBatch: 8,
      queueLimit: 100,
      concurrency: 1,
      sizeOf: (t) => t.length,
      run: model.run,
    });
    let patientDone = false;
    const patient = batcher.submit(["a"], { timeoutMs: 5000 }).finally(() => (patientDone = true));
    const hurried = batcher.submit(["b"], { timeoutMs: 20 });
    await expect(hurried).rejects.toBeInstanceOf(ModelTimeoutError);
    // Failed while the model call it was part of still ran (ordering, not wall-clock time: load cannot flip it).
    expect(patientDone).toBe(false);
    expect(await patient).toEqual(["A"]);
    expect(batcher.status().timedOut).toBe(1);
  });

  it("drops a waiting request whose signal aborts", async () => {
    const { batcher, model } = make({ maxWaitMs: 50 });
    const controller = new AbortController();
    const p = batcher.submit(["gone"], { timeoutMs: 1000, signal: controller.signal });
    controller.abort();
    await expect(p).rejects.toBeInstanceOf(ModelCancelledError);
    await new Promise((r) => setTimeout(r, 70));
    expect(model.batches).toEqual([]);
  });

  it("fails every request of a batch whose model call fails, and keeps serving the next ones", async () => {
    let fail = true;
    const batcher = new DynamicBatcher<string, string>({
      label: "The flaky model",
      maxWaitMs: 1,
      maxBatch: 8,
      queueLimit: 100,
      concurrency: 1,
      sizeOf: (t) => t.length,
      run: async (items) => {
        if (fail) throw new Error("worker crashed");
        return items;
      },
    });
    const results = await Promise.allSettled([batcher.submit(["a"], { timeoutMs: 500 }), batcher.submit(["b"], { timeoutMs: 500 })]);
    expect(results.map((r) => r.status)).toEqual(["rejected", "rejected"]);
    fail = false;
    expect(await batcher.submit(["c"], { timeoutMs: 500 })).toEqual(["c"]);
  });
});
