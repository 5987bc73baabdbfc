import { z } from "zod";
import artefact from "../../data/answer-caution.json";
import type { PrismaClient } from "../../db/generated/client";
import { log } from "../../log";
import type { Calibrator } from "./calibrator";
import { CAUTION_MAX_PERCENT, CAUTION_MIN_PERCENT, curvePointSchema } from "./caution-curve";

export { CAUTION_MAX_PERCENT, CAUTION_MIN_PERCENT } from "./caution-curve";

/**
 * How cautious answers are (issue 32, part 3): the workspace's target "show an answer only when it is
 * at least N % likely right". A run whose calibrated confidence (calibrator.ts) is below the target is
 * shown as "not certain", with what it found and why it is not sure (doubts.ts). The target applies
 * only where a calibrated confidence exists, and only to the kinds of source it was chosen on
 * (heldKinds): answers from other kinds keep their confidence and are not held back by it.
 *
 * The default is not a guess: training/calibration/choose_target.ts reads dev-split evaluation reports,
 * takes the lowest target whose shown answers are right at least 90 % of the time, and writes it with
 * the curve and the reports' checksums to lib/data/answer-caution.json. An admin's own value is stored
 * in the `Setting` row "answerCaution" (lib/settings/caution.ts writes it).
 */

export const CAUTION_SETTING_KEY = "answerCaution";
/** Used only when the shipped artefact cannot be read (the log says so). */
const FALLBACK_PERCENT = 50;

export const cautionArtefactSchema = z.object({
  version: z.string(),
  /** The target in percent the product uses by default. */
  defaultPercent: z.number().int().min(CAUTION_MIN_PERCENT).max(CAUTION_MAX_PERCENT),
  /** How it was chosen, in words (which rule applied). */
  rule: z.string(),
  reachedPrecision: z.boolean(),
  precisionGoal: z.number(),
  judged: z.number().int(),
  calibrator: z.object({ version: z.string(), sha256: z.string() }),
  reports: z.array(z.object({ file: z.string(), suite: z.string(), sha256: z.string().regex(/^[0-9a-f]{64}$/), judged: z.number().int() })),
  curve: z.array(curvePointSchema),
});
export type CautionArtefact = z.infer<typeof cautionArtefactSchema>;

let shipped: { percent: number; artefact: CautionArtefact | null } | undefined;

/** The default target from the shipped artefact (or 50 % with a logged reason when it cannot be read). */
export function defaultCaution(): { percent: number; artefact: CautionArtefact | null } {
  if (shipped) return shipped;
  const parsed = cautionArtefactSchema.safeParse(artefact);
  if (!parsed.success) log.warn({ problem: parsed.error.message }, "answer caution artefact not usable; the default target is 50 %");
  shipped = parsed.success ? { percent: parsed.data.defaultPercent, artefact: parsed.data } : { percent: FALLBACK_PERCENT, artefact: null };
  return shipped;
}

const heldKindsOf = new WeakMap<Calibrator, ReadonlySet<string>>();

/**
 * The kinds of source whose answers the target holds back: those judged by the calibrator the default was
 * chosen with (the artefact records its checksum: the shipped set, or one of its models). A model added
 * later (documents, fitted after the target was chosen on database answers) gives its answers a calibrated
 * confidence, but does not put them under a target no one measured on them until choose_target.ts is run
 * with it. Without a readable caution artefact, every calibrated kind.
 */
export function heldKinds(calibrator: Calibrator | null): ReadonlySet<string> {
  if (!calibrator) return new Set();
  // Both the calibrator and the caution artefact are loaded once: each run asks again, the answer is kept.
  const known = heldKindsOf.get(calibrator);
  if (known) return known;
  const chosenWith = defaultCaution().artefact?.calibrator.sha256;
  const held =
    !chosenWith || chosenWith === calibrator.sha256
      ? new Set(calibrator.kinds)
      : new Set(calibrator.parts.filter((p) => p.sha256 === chosenWith).flatMap((p) => p.kinds));
  heldKindsOf.set(calibrator, held);
  return held;
}

export const storedCautionSchema = z.object({
  targetPercent: z.number().int().min(CAUTION_MIN_PERCENT).max(CAUTION_MAX_PERCENT).nullable().default(null),
});

/** The admin's own target in percent (null = the default), read per run so a change applies at once. */
export async function cautionOverride(prisma: PrismaClient): Promise<{ percent: number | null; updatedAt: Date | null }> {
  const row = await prisma.setting.findUnique({ where: { key: CAUTION_SETTING_KEY }, select: { value: true, updatedAt: true } });
  const parsed = storedCautionSchema.safeParse(row?.value ?? {});
  return { percent: parsed.success ? parsed.data.targetPercent : null, updatedAt: row?.updatedAt ?? null };
}

/** The target that applies now, as a probability (0.5–0.99). */
export async function cautionTarget(prisma: PrismaClient): Promise<number> {
  const { percent } = await cautionOverride(prisma);
  return (percent ?? defaultCaution().percent) / 100;
}
