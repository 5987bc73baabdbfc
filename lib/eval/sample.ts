import { mulberry32 } from "../random";

/**
 * Deterministic sampling: the same seed draws the same questions in the same order, so a report can be
 * reproduced and `--limit N` of a seed is always the first N of that seed's order (a resumed run with a
 * larger limit keeps what it already has).
 */
export { mulberry32 };

/** Fisher–Yates with a seeded generator; the input is not changed. */
export function seededShuffle<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  const rand = mulberry32(seed);
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/** Round-robin over several lists (each already in its own order): a prefix draws evenly from each. */
export function interleave<T>(lists: readonly T[][]): T[] {
  const out: T[] = [];
  const longest = Math.max(0, ...lists.map((l) => l.length));
  for (let i = 0; i < longest; i++) for (const l of lists) if (i < l.length) out.push(l[i]);
  return out;
}
