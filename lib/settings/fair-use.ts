import { z } from "zod";
import type { PrismaClient } from "../db/generated/client";
import type { FairUseInput } from "./fair-use.validation";

/**
 * Fair use (issue 31): how many questions one person (or API key) may have running at once. The
 * environment (RUNS_MAX_CONCURRENT) gives the default, the admin's Settings override it; stored in the
 * `Setting` row "fairUse" and read per request, so every app instance applies a change at once.
 */

export const FAIR_USE_SETTING_KEY = "fairUse";

const storedSchema = z.object({ maxConcurrentRuns: z.number().int().min(1).max(100).nullable().default(null) });

export interface FairUseView {
  /** What applies now. */
  maxConcurrentRuns: number;
  /** The admin's own value; null = the default. */
  override: number | null;
  defaults: { maxConcurrentRuns: number };
  updatedAt: string | null;
}

export async function getFairUseView(prisma: PrismaClient, env: { RUNS_MAX_CONCURRENT: number }): Promise<FairUseView> {
  const row = await prisma.setting.findUnique({ where: { key: FAIR_USE_SETTING_KEY }, select: { value: true, updatedAt: true } });
  const parsed = storedSchema.safeParse(row?.value ?? {});
  const override = parsed.success ? parsed.data.maxConcurrentRuns : null;
  return {
    maxConcurrentRuns: override ?? env.RUNS_MAX_CONCURRENT,
    override,
    defaults: { maxConcurrentRuns: env.RUNS_MAX_CONCURRENT },
    updatedAt: row?.updatedAt.toISOString() ?? null,
  };
}

export async function maxConcurrentRuns(prisma: PrismaClient, env: { RUNS_MAX_CONCURRENT: number }): Promise<number> {
  return (await getFairUseView(prisma, env)).maxConcurrentRuns;
}

export async function saveFairUseSettings(prisma: PrismaClient, input: FairUseInput): Promise<void> {
  const value = { maxConcurrentRuns: input.maxConcurrentRuns };
  await prisma.setting.upsert({ where: { key: FAIR_USE_SETTING_KEY }, create: { key: FAIR_USE_SETTING_KEY, value }, update: { value } });
}
