// Helpers every `npm run bench` phase shares: its --name value flags, nearest-rank percentiles, an even sample.

/** The value after `--name` in the phase's arguments, if given. */
export function flag(args: string[], name: string): string | undefined {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
}

/** Nearest-rank percentile of an ascending list (NaN when empty): p50 is a measured value, never an interpolation. */
export function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** Deterministic sample: every k-th item, so runs are comparable. */
export function spread<T>(items: T[], n: number): T[] {
  if (items.length <= n) return items;
  const step = items.length / n;
  return Array.from({ length: n }, (_, i) => items[Math.floor(i * step)]!);
}
