import { tagValue } from "../metrics/aggregate";
import { spiderHardness } from "../metrics/spider-hardness";
import { seededShuffle } from "../sample";
import { text2cypherQuestionsFrom } from "../suites/text2cypher";
import type { RobustnessDataset } from "./overlay";

/**
 * The stratified samples of dev items the robustness suite rewrites (eval/robustness/README.md). Each
 * function takes the dataset's items in file order and returns the chosen items' references, in file
 * order; the same seed always draws the same items, so the sample can be drawn again and checked.
 */

/** The seed the committed overlays were drawn with (the issue that asked for them). */
export const ROBUSTNESS_SEED = 27;

/**
 * Largest-remainder allocation of `target` over strata of the given sizes, at least `min` per stratum
 * (never more than a stratum holds, and never more than `target` in all unless the floors alone exceed it).
 */
export function allocate(sizes: Map<string, number>, target: number, min: number): Map<string, number> {
  const total = [...sizes.values()].reduce((a, b) => a + b, 0);
  const quota = new Map<string, number>();
  const remainders: [string, number][] = [];
  for (const [k, size] of sizes) {
    const exact = (target * size) / total;
    quota.set(k, Math.min(size, Math.max(min, Math.floor(exact))));
    remainders.push([k, exact - Math.floor(exact)]);
  }
  let left = target - [...quota.values()].reduce((a, b) => a + b, 0);
  // The floors can overshoot the target: take the excess back from the largest quotas above the floor.
  while (left < 0) {
    const [k, q] = [...quota.entries()].filter(([, q]) => q > min).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0] ?? [];
    if (k === undefined) break;
    quota.set(k, q! - 1);
    left++;
  }
  remainders.sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  for (const [k] of remainders) {
    if (left <= 0) break;
    if (quota.get(k)! < sizes.get(k)!) {
      quota.set(k, quota.get(k)! + 1);
      left--;
    }
  }
  return quota;
}

/** Takes each stratum's quota from one seeded shuffle of all items (so the strata draw independently of their order). */
function drawStrata<T>(items: readonly T[], stratum: (item: T) => string, quota: Map<string, number>, seed: number): T[] {
  const taken = new Map<string, number>();
  const out: T[] = [];
  for (const item of seededShuffle(items, seed)) {
    const k = stratum(item);
    const n = taken.get(k) ?? 0;
    if (n >= (quota.get(k) ?? 0)) continue;
    taken.set(k, n + 1);
    out.push(item);
  }
  return out;
}

function sizesOf<T>(items: readonly T[], stratum: (item: T) => string): Map<string, number> {
  const sizes = new Map<string, number>();
  for (const item of items) sizes.set(stratum(item), (sizes.get(stratum(item)) ?? 0) + 1);
  return new Map([...sizes.entries()].sort(([a], [b]) => a.localeCompare(b)));
}

/** Spider dev: strata are database × hardness class, proportional, at least one item per stratum. */
export function sampleSpider(
  items: readonly { index: number; db: string; hardness: string }[],
  seed = ROBUSTNESS_SEED,
  target = 200,
): number[] {
  const stratum = (i: { db: string; hardness: string }) => `${i.db}|${i.hardness}`;
  const quota = allocate(sizesOf(items, stratum), target, 1);
  return drawStrata(items, stratum, quota, seed)
    .map((i) => i.index)
    .sort((a, b) => a - b);
}

/**
 * TAT-QA dev quotas per answer type: proportional shares would give the 32 count questions 3 items, too
 * few to say anything, so the rarer types get more than their share.
 */
export const TATQA_QUOTAS: Record<string, number> = { arithmetic: 55, span: 55, "multi-span": 25, count: 15 };

/** TAT-QA dev: the per-type quotas above, at most one question per report, so the sample spreads over as many reports as it has items. */
export function sampleTatQa(
  questions: readonly { uid: string; report: string; answerType: string }[],
  seed = ROBUSTNESS_SEED,
  quotas: Record<string, number> = TATQA_QUOTAS,
): string[] {
  const usedReports = new Set<string>();
  const taken = new Map<string, number>();
  const chosen = new Set<string>();
  for (const q of seededShuffle(questions, seed)) {
    const n = taken.get(q.answerType) ?? 0;
    if (n >= (quotas[q.answerType] ?? 0) || usedReports.has(q.report)) continue;
    taken.set(q.answerType, n + 1);
    usedReports.add(q.report);
    chosen.add(q.uid);
  }
  return questions.filter((q) => chosen.has(q.uid)).map((q) => q.uid);
}

/** Text2Cypher (usable rows only): strata are graph × question type, proportional, at least six per stratum. */
export function sampleText2Cypher(
  rows: readonly { row: number; db: string; type: string }[],
  seed = ROBUSTNESS_SEED,
  target = 150,
): number[] {
  const stratum = (r: { db: string; type: string }) => `${r.db}|${r.type}`;
  const quota = allocate(sizesOf(rows, stratum), target, 6);
  return drawStrata(rows, stratum, quota, seed)
    .map((r) => r.row)
    .sort((a, b) => a - b);
}

/** The references the seed draws from a dev split (Spider: indices; TAT-QA: uids; Text2Cypher: data rows). */
export function drawRobustnessSample(dataset: RobustnessDataset, seed = ROBUSTNESS_SEED): (number | string)[] {
  if (dataset.suite === "spider") {
    return sampleSpider(
      dataset.items.map((q, index) => ({ index, db: q.db_id, hardness: spiderHardness(q.query) ?? "unknown" })),
      seed,
    );
  }
  if (dataset.suite === "tatqa") {
    return sampleTatQa(
      dataset.contexts.flatMap((c) => c.questions.map((q) => ({ uid: q.uid, report: c.table.uid, answerType: q.answer_type }))),
      seed,
    );
  }
  const usable = text2cypherQuestionsFrom(dataset.records, dataset.file).questions;
  return sampleText2Cypher(
    usable.map((q) => ({
      row: Number(q.id.slice(q.id.lastIndexOf(":") + 1)),
      db: tagValue({ tags: q.tags ?? [] }, "db") ?? "",
      type: tagValue({ tags: q.tags ?? [] }, "type") ?? "",
    })),
    seed,
  );
}
