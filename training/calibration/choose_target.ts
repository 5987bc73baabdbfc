/**
 * Chooses the default caution target (issue 32, part 3) from dev-split evaluation reports:
 *
 *   npx tsx training/calibration/choose_target.ts --report dev-spider.json [--report dev-tatqa.json …] \
 *     [--goal 0.9] [--min-shown 10] [--coverage-floor 0.1] --out lib/data/answer-caution.json
 *
 * Each report is an `npm run eval -- … --json` file. Its judged questions (perQuestion[].correct is a
 * boolean) whose answer came from a kind of source the shipped calibrator covers give a pair (calibrated
 * confidence, right); an answer counts as one the target can show when the run did not refrain and did not
 * already mark it "not certain". The curve (for each whole percent 50–99: shown, right, coverage,
 * precision) and the rule (caution-curve.ts: the lowest target whose shown answers are right ≥ goal, else
 * the most precise one above a coverage floor, said so) go to the artefact with each report's SHA-256 and
 * the calibrator it was measured with. Same reports, same artefact.
 */
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { basename } from "node:path";
import { parseArgs } from "node:util";
import { z } from "zod";
import { kindOf, shippedCalibrator } from "../../lib/pipeline/calibration/calibrator";
import { cautionCurve, chooseCaution, type JudgedAnswer } from "../../lib/pipeline/calibration/caution-curve";
import type { Features } from "../../lib/pipeline/calibration/features";

const reportSchema = z.object({
  suite: z.string(),
  perQuestion: z.array(
    z.looseObject({
      confidence: z.number().nullish(),
      correct: z.boolean().nullish(),
      refrain: z.object({ refrained: z.boolean() }),
      features: z.record(z.string(), z.number()).nullish(),
    }),
  ),
});

const { values } = parseArgs({
  options: {
    report: { type: "string", multiple: true },
    out: { type: "string" },
    goal: { type: "string", default: "0.9" },
    "min-shown": { type: "string", default: "10" },
    "coverage-floor": { type: "string", default: "0.1" },
  },
});
if (!values.report?.length || !values.out) {
  console.error("Usage: npx tsx training/calibration/choose_target.ts --report FILE [--report FILE …] --out lib/data/answer-caution.json");
  process.exit(2);
}
const calibrator = shippedCalibrator();
if (!calibrator) {
  console.error("The shipped calibrator cannot be used (see the log); the target is chosen on calibrated confidences.");
  process.exit(1);
}
const kinds = new Set(calibrator.kinds);

const items: JudgedAnswer[] = [];
const reports = values.report.map((file) => {
  const bytes = readFileSync(file);
  const report = reportSchema.parse(JSON.parse(bytes.toString("utf8")));
  let judged = 0;
  for (const q of report.perQuestion) {
    if (typeof q.correct !== "boolean" || typeof q.confidence !== "number" || !q.features) continue;
    const features = q.features as Features;
    // Only answers whose confidence the calibrator gave: the target applies to no other.
    if (!kinds.has(kindOf(features))) continue;
    judged++;
    items.push({ confidence: q.confidence, correct: q.correct, answered: !q.refrain.refrained && features.uncertain !== 1 });
  }
  return { file: basename(file), suite: report.suite, sha256: createHash("sha256").update(bytes).digest("hex"), judged };
});

const goal = Number(values.goal);
const curve = cautionCurve(items);
const choice = chooseCaution(curve, goal, Number(values["min-shown"]), Number(values["coverage-floor"]));
const artefact = {
  version: "1",
  defaultPercent: choice.percent,
  rule: choice.rule,
  reachedPrecision: choice.reachedPrecision,
  precisionGoal: goal,
  judged: items.length,
  calibrator: { version: calibrator.version, sha256: calibrator.sha256 },
  reports,
  curve: curve.map((p) => ({ ...p, coverage: round(p.coverage), precision: p.precision === null ? null : round(p.precision) })),
};
writeFileSync(values.out, `${JSON.stringify(artefact, null, 1)}\n`);
console.log(`${items.length} judged answers from ${reports.length} report(s); default target ${choice.percent} %: ${choice.rule}`);
for (const p of curve.filter((p) => p.percent % 5 === 0 || p.percent === choice.percent))
  console.log(
    `  ${p.percent} %: shown ${p.shown}, right ${p.right}, coverage ${(p.coverage * 100).toFixed(1)} %, precision ${p.precision === null ? "–" : (p.precision * 100).toFixed(1) + " %"}`,
  );

function round(x: number) {
  return Math.round(x * 10000) / 10000;
}
