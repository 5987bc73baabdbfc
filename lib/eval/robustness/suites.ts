import { count } from "../../format/count";
import { seededShuffle } from "../sample";
import { spiderSuite } from "../suites/spider";
import { tatqaSuite } from "../suites/tatqa";
import { text2cypherSuite } from "../suites/text2cypher";
import type { EvalQuestion, SuiteDefinition } from "../types";
import type { RobustnessSet } from "./overlay";

export interface RobustnessRun {
  /** The rewritten questions, scored by the suite's own scorer (its key, scope and gold rules). */
  rewritten: SuiteDefinition;
  /** The dev items those rewrites come from, as worded in dev (same ids as the dev suite). */
  dev: SuiteDefinition;
}

function baseSuite(set: RobustnessSet, datasetsDir: string, questions: EvalQuestion[]): SuiteDefinition {
  if (set.suite === "spider") return spiderSuite(datasetsDir, questions);
  if (set.suite === "tatqa") return tatqaSuite(datasetsDir, questions);
  return text2cypherSuite(datasetsDir, questions);
}

/**
 * The two runs of a robustness set. With a limit, the rewrites are drawn as a run draws its questions
 * (the seed's shuffle, then the first N) and the dev run holds only their dev items, so the pairs stay whole.
 */
export function robustnessRun(set: RobustnessSet, datasetsDir: string, opts: { seed: number; limit: number | null }): RobustnessRun {
  const rewrites = opts.limit ? seededShuffle(set.rewritten, opts.seed).slice(0, opts.limit) : set.rewritten;
  const needed = new Set(rewrites.map((q) => set.pairs.get(q.id)));
  const devItems = set.dev.filter((q) => needed.has(q.id));
  const drawn = opts.limit ? ` (${rewrites.length} of ${set.rewritten.length}, seed ${opts.seed})` : "";
  const classes = Object.entries(set.classCounts)
    .filter(([, n]) => n > 0)
    .map(([c, n]) => `${c} ${n}`)
    .join(", ");
  const rw = baseSuite(set, datasetsDir, rewrites);
  const dev = baseSuite(set, datasetsDir, devItems);
  return {
    rewritten: {
      ...rw,
      label: `${rw.label} · robustness: rewritten${drawn}`,
      description: `${count(rewrites.length, "rewritten dev question")} from ${set.ref.name} (${classes} in the whole set), scored like the dev split. Compare with the dev items' run.`,
    },
    dev: {
      ...dev,
      label: `${dev.label} · robustness: dev items${drawn}`,
      description: `The ${count(devItems.length, "dev item")} the rewrites of ${set.ref.name} come from, as worded in the dev split.`,
    },
  };
}
