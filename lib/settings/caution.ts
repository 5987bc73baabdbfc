import type { PrismaClient } from "../db/generated/client";
import { CAUTION_SETTING_KEY, cautionOverride, defaultCaution, heldKinds } from "../pipeline/calibration/caution";
import { shippedCalibrator } from "../pipeline/calibration/calibrator";
import type { CautionInput } from "./caution.validation";

/**
 * Settings → Caution (issue 32, part 3): "show an answer only when it is at least N % likely right".
 * The pipeline reads the target per run (lib/pipeline/calibration/caution.ts); this module is the admin's
 * view of it and the write. The default comes from lib/data/answer-caution.json, chosen on dev reports.
 */

export interface CautionView {
  /** What applies now, in percent. */
  targetPercent: number;
  /** The admin's own value; null = the default. */
  override: number | null;
  defaults: {
    targetPercent: number;
    /** How the default was chosen, in words, and on how many judged dev answers. */
    rule: string | null;
    judged: number | null;
    reachedPrecision: boolean | null;
  };
  /** The kinds of source whose answers the target holds back, in words (calibrated, and the target chosen on them). */
  heldKinds: string[];
  /** The kinds it does not hold back, in words: not calibrated, or calibrated after the target was chosen. */
  otherKinds: string[];
  updatedAt: string | null;
}

export async function getCautionView(prisma: PrismaClient): Promise<CautionView> {
  const { percent, updatedAt } = await cautionOverride(prisma);
  const def = defaultCaution();
  const held = heldKinds(shippedCalibrator());
  return {
    targetPercent: percent ?? def.percent,
    override: percent,
    defaults: {
      targetPercent: def.percent,
      rule: def.artefact?.rule ?? null,
      judged: def.artefact?.judged ?? null,
      reachedPrecision: def.artefact?.reachedPrecision ?? null,
    },
    heldKinds: Object.keys(KIND_WORDS)
      .filter((k) => held.has(k))
      .flatMap((k) => KIND_WORDS[k]),
    otherKinds: Object.keys(KIND_WORDS)
      .filter((k) => !held.has(k))
      .flatMap((k) => KIND_WORDS[k]),
    updatedAt: updatedAt?.toISOString() ?? null,
  };
}

/** In words for the form ("none", a run that drew on no source, is not a kind to name). */
const KIND_WORDS: Record<string, string[]> = { sql: ["databases (SQL)"], documents: ["documents"], graph: ["graphs (SPARQL, Cypher)"] };

export async function saveCautionSettings(prisma: PrismaClient, input: CautionInput): Promise<void> {
  const value = { targetPercent: input.targetPercent };
  await prisma.setting.upsert({ where: { key: CAUTION_SETTING_KEY }, create: { key: CAUTION_SETTING_KEY, value }, update: { value } });
}
