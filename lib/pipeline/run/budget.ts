/** The run's time budget and cancellation as promises: racing work against an abort signal. */

/** Rejects with `error()` as soon as `signal` aborts; otherwise settles as `work` does. */
export function raceAbort<T>(work: Promise<T>, signal: AbortSignal, error: () => Error): Promise<T> {
  if (signal.aborted) {
    // The work may already be failing because of the same abort: its rejection must not go unhandled.
    work.catch(() => undefined);
    return Promise.reject(error());
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(error());
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
}

/** `work`, or an Error(message) after `ms` (or when `signal` aborts), whichever comes first. */
export function withTimeout<T>(work: Promise<T>, ms: number, message: string, signal: AbortSignal): Promise<T> {
  const timer = new AbortController();
  const t = setTimeout(() => timer.abort(), ms);
  const both = AbortSignal.any([timer.signal, signal]);
  return raceAbort(work, both, () => new Error(message)).finally(() => clearTimeout(t));
}

/** The run's budget ran out before `stage` (the run keeps what it has). */
export class BudgetSpent extends Error {
  constructor(public readonly stage: string) {
    super(`time budget spent before ${stage}`);
  }
}
