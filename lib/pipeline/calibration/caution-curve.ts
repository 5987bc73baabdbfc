import { z } from "zod";

/**
 * The risk–coverage curve the caution target's default is chosen from (issue 32, part 3), and the rule
 * that chooses it. Pure functions: training/calibration/choose_target.ts runs them on dev-split
 * evaluation reports; caution.ts reads what it wrote.
 */

/** The range an admin may choose, in percent. */
export const CAUTION_MIN_PERCENT = 50;
export const CAUTION_MAX_PERCENT = 99;

export const curvePointSchema = z.object({
  percent: z.number(),
  shown: z.number(),
  right: z.number(),
  coverage: z.number(),
  precision: z.number().nullable(),
});
export type CautionCurvePoint = z.infer<typeof curvePointSchema>;

export interface JudgedAnswer {
  /** The calibrated confidence (0–1). */
  confidence: number;
  /** Whether the answer was right. */
  correct: boolean;
  /** The run showed it as an answer (did not refrain); only those can be held back by the target. */
  answered: boolean;
}

/**
 * The curve the default is chosen from: for each whole percent in the admin's range, the answers that
 * would be shown (answered and at least that likely right), their share of the judged questions
 * (coverage) and the share of them that are right (precision; null when none is shown).
 */
export function cautionCurve(items: JudgedAnswer[]): CautionCurvePoint[] {
  const out: CautionCurvePoint[] = [];
  for (let percent = CAUTION_MIN_PERCENT; percent <= CAUTION_MAX_PERCENT; percent++) {
    const shown = items.filter((i) => i.answered && i.confidence >= percent / 100 - 1e-9);
    const right = shown.filter((i) => i.correct).length;
    out.push({
      percent,
      shown: shown.length,
      right,
      coverage: items.length ? shown.length / items.length : 0,
      precision: shown.length ? right / shown.length : null,
    });
  }
  return out;
}

export interface CautionChoice {
  percent: number;
  reachedPrecision: boolean;
  rule: string;
}

/**
 * The default: the lowest target whose shown answers are right at least `goal` of the time (with at
 * least `minShown` of them, so a handful of lucky answers does not decide it). When no target reaches
 * the goal, the one with the highest precision among those that still show at least `coverageFloor` of
 * the questions (the lowest such target on ties), and the rule says so.
 */
export function chooseCaution(curve: CautionCurvePoint[], goal = 0.9, minShown = 10, coverageFloor = 0.1): CautionChoice {
  const reaching = curve.find((p) => p.precision !== null && p.precision >= goal && p.shown >= minShown);
  if (reaching)
    return {
      percent: reaching.percent,
      reachedPrecision: true,
      rule: `the lowest target at which shown answers are right at least ${pct(goal)} of the time (${reaching.right} of ${reaching.shown}, coverage ${pct(reaching.coverage)})`,
    };
  const floor = curve.filter((p) => p.precision !== null && p.coverage >= coverageFloor && p.shown >= minShown);
  if (!floor.length)
    return {
      percent: CAUTION_MAX_PERCENT,
      reachedPrecision: false,
      rule: `no target reaches ${pct(goal)} and none shows at least ${pct(coverageFloor)} of the questions: the most cautious target`,
    };
  const best = floor.reduce((a, b) => (b.precision! > a.precision! ? b : a));
  return {
    percent: best.percent,
    reachedPrecision: false,
    rule: `no target reaches ${pct(goal)}: the target with the highest precision (${pct(best.precision!)}) among those showing at least ${pct(coverageFloor)} of the questions`,
  };
}

const pct = (x: number) => `${Math.round(x * 1000) / 10} %`;
