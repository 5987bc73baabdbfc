/**
 * Dynamic batching across concurrent requests. A request's items wait at most `maxWaitMs` for others
 * to share a model call; a window of the oldest waiting items is sorted by length and cut into batches
 * of `maxBatch`, so texts of similar length are padded together (a 20-token question does not run
 * padded to 256 beside a long passage). At most `concurrency` batches run at once (one per worker
 * thread and one more ready), so later requests can still join batches instead of queueing whole ones
 * behind them. The queue is bounded (back-pressure: a request that would overflow it is refused at
 * once) and every request has its own time limit: past it, it fails without waiting for its batch.
 */

export class ModelBusyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ModelBusyError";
  }
}

export class ModelTimeoutError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ModelTimeoutError";
  }
}

export class ModelCancelledError extends Error {
  constructor() {
    super("The model request was cancelled.");
    this.name = "ModelCancelledError";
  }
}

export interface BatcherOptions<I, O> {
  maxWaitMs: number;
  maxBatch: number;
  /** Items waiting or running before new requests are refused. */
  queueLimit: number;
  /** Batches running at once. */
  concurrency: number;
  /** Sort key (a length). */
  sizeOf: (item: I) => number;
  run: (items: I[]) => Promise<O[]>;
  /** What the refusal says ("the embedding model"). */
  label: string;
  /**
   * Whether one batch may hold several requests' items (default true). False for models whose output
   * for an item depends on the rest of its batch: an int8 model quantizes activations with one scale per
   * batch tensor, so a question's vector would change with what other users asked at the same moment
   * (cosine 0.989 measured on all-MiniLM-L6-v2 int8), and so could its answer. Unmixed, a request's
   * items are still batched together, sorted by length.
   */
  mixRequests?: boolean;
}

interface Request<O> {
  results: O[];
  remaining: number;
  settled: boolean;
  resolve: (out: O[]) => void;
  reject: (e: Error) => void;
  cleanup: () => void;
}

interface Item<I, O> {
  input: I;
  size: number;
  index: number;
  request: Request<O>;
}

export interface BatcherStatus {
  /** Items waiting to be batched. */
  waiting: number;
  /** Items in batches that are running. */
  running: number;
  batches: number;
  /** Mean items per batch so far. */
  meanBatchSize: number;
  refused: number;
  timedOut: number;
}

export class DynamicBatcher<I, O> {
  private waiting: Item<I, O>[] = [];
  private runningItems = 0;
  private runningBatches = 0;
  private timer: NodeJS.Timeout | null = null;
  private batches = 0;
  private batchedItems = 0;
  private refused = 0;
  private timedOut = 0;
  private closed = false;

  constructor(private readonly opts: BatcherOptions<I, O>) {}

  submit(inputs: I[], options: { timeoutMs: number; signal?: AbortSignal }): Promise<O[]> {
    if (!inputs.length) return Promise.resolve([]);
    if (this.closed) return Promise.reject(new ModelBusyError(`${this.opts.label} is shutting down.`));
    if (options.signal?.aborted) return Promise.reject(new ModelCancelledError());
    const load = this.waiting.length + this.runningItems;
    if (inputs.length > this.opts.queueLimit || load + inputs.length > this.opts.queueLimit) {
      this.refused++;
      return Promise.reject(
        new ModelBusyError(
          `${this.opts.label} is busy (${load} of ${this.opts.queueLimit} places in its queue taken); the request for ${inputs.length} was refused.`,
        ),
      );
    }
    return new Promise<O[]>((resolve, reject) => {
      const request: Request<O> = {
        results: new Array<O>(inputs.length),
        remaining: inputs.length,
        settled: false,
        resolve,
        reject,
        cleanup: () => undefined,
      };
      const fail = (e: Error) => {
        if (request.settled) return;
        request.settled = true;
        request.cleanup();
        // Items not yet batched leave the queue; items in a running batch finish and are dropped.
        this.waiting = this.waiting.filter((item) => item.request !== request);
        reject(e);
      };
      const timer = setTimeout(() => {
        this.timedOut++;
        fail(new ModelTimeoutError(`${this.opts.label} did not answer within ${options.timeoutMs} ms.`));
      }, options.timeoutMs);
      const onAbort = () => fail(new ModelCancelledError());
      options.signal?.addEventListener("abort", onAbort, { once: true });
      request.cleanup = () => {
        clearTimeout(timer);
        options.signal?.removeEventListener("abort", onAbort);
      };
      request.reject = fail;
      request.resolve = (out) => {
        if (request.settled) return;
        request.settled = true;
        request.cleanup();
        resolve(out);
      };
      inputs.forEach((input, index) => this.waiting.push({ input, size: this.opts.sizeOf(input), index, request }));
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.waiting.length >= this.opts.maxBatch) {
      this.dispatch();
      return;
    }
    if (this.timer || !this.waiting.length) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.dispatch();
    }, this.opts.maxWaitMs);
  }

  private dispatch(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    const free = this.opts.concurrency - this.runningBatches;
    if (free <= 0 || !this.waiting.length) return;
    if (this.opts.mixRequests === false) {
      // The oldest request first (fairness); each batch holds one request's items, sorted by length.
      for (let n = 0; n < free && this.waiting.length; n++) {
        const request = this.waiting[0]!.request;
        const own = this.waiting.filter((item) => item.request === request).sort((a, b) => a.size - b.size);
        const batch = new Set(own.slice(0, this.opts.maxBatch));
        this.waiting = this.waiting.filter((item) => !batch.has(item));
        void this.runBatch([...batch]);
      }
    } else {
      // Oldest first (fairness), sorted by length inside the window (padding).
      const window = this.waiting.splice(0, free * this.opts.maxBatch).sort((a, b) => a.size - b.size);
      for (let i = 0; i < window.length; i += this.opts.maxBatch) void this.runBatch(window.slice(i, i + this.opts.maxBatch));
    }
    if (this.waiting.length) this.schedule();
  }

  private async runBatch(items: Item<I, O>[]): Promise<void> {
    this.runningBatches++;
    this.runningItems += items.length;
    this.batches++;
    this.batchedItems += items.length;
    try {
      const outputs = await this.opts.run(items.map((i) => i.input));
      if (outputs.length !== items.length)
        throw new Error(`${this.opts.label} returned ${outputs.length} results for ${items.length} inputs.`);
      items.forEach((item, i) => {
        const r = item.request;
        if (r.settled) return;
        r.results[item.index] = outputs[i];
        if (--r.remaining === 0) r.resolve(r.results);
      });
    } catch (e) {
      const error = e instanceof Error ? e : new Error(String(e));
      for (const item of items) item.request.reject(error);
    } finally {
      this.runningBatches--;
      this.runningItems -= items.length;
      if (this.waiting.length) this.dispatch();
    }
  }

  status(): BatcherStatus {
    return {
      waiting: this.waiting.length,
      running: this.runningItems,
      batches: this.batches,
      meanBatchSize: this.batches ? this.batchedItems / this.batches : 0,
      refused: this.refused,
      timedOut: this.timedOut,
    };
  }

  /** Refuses new requests and fails the waiting ones; running batches finish. */
  close(reason = `${this.opts.label} was stopped.`): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    const waiting = this.waiting;
    this.waiting = [];
    for (const item of waiting) item.request.reject(new ModelBusyError(reason));
  }
}
