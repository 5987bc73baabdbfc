/**
 * Backoff for retryable LLM failures (429, 5xx, timeouts, dropped connections): exponential from
 * BASE_DELAY_MS, capped, with "equal jitter" (half fixed, half random) so parallel calls that failed
 * together do not retry together. A Retry-After from the server wins when it asks for longer.
 */
export const BASE_DELAY_MS = 500;
export const MAX_DELAY_MS = 8_000;
/** A server asking for more than this is effectively down for the run; the caller gives up instead. */
export const MAX_RETRY_AFTER_MS = 30_000;

export function backoffDelayMs(attempt: number, retryAfter: number | null, random: () => number = Math.random): number {
  const exp = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** Math.max(0, attempt));
  const jittered = exp / 2 + random() * (exp / 2);
  if (retryAfter === null) return Math.round(jittered);
  return Math.round(Math.max(retryAfter, jittered));
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
