import type { KbRecord } from "../backends/registry";
import type { KbKind } from "../backends/types";
import { type AccessSubject, kbAccessWhere } from "../catalog/access";
import type { Prisma, PrismaClient } from "../db/generated/client";
import { AppError } from "../errors";

/**
 * Guides the user may use: every source of the guide must be in a KB they may use (a guide must not
 * leak a restricted KB's queries or contexts).
 */
export function guideAccessWhere(user: AccessSubject): Prisma.ExtractionGuideWhereInput {
  if (user.role === "ADMIN") return {};
  return { sources: { every: { kb: kbAccessWhere(user) } } };
}

/** A guide the user may use, or NOT_FOUND (unknown and restricted guides look the same). */
export async function findVisibleGuide(prisma: PrismaClient, user: AccessSubject, id: string) {
  const g = await prisma.extractionGuide.findFirst({
    where: { AND: [{ id }, guideAccessWhere(user)] },
    select: { id: true, fromRunId: true },
  });
  if (!g) throw new AppError("NOT_FOUND", "That guide does not exist or uses a knowledge base that is not shared with you.");
  return g;
}

/** Loads a KB the user may use, as a backend record; unknown and restricted KBs look the same. */
export async function accessibleKb(prisma: PrismaClient, user: AccessSubject, kbId: string): Promise<KbRecord> {
  const kb = await prisma.knowledgeBase.findFirst({
    where: { AND: [{ id: kbId }, kbAccessWhere(user)] },
    select: { id: true, name: true, kind: true, config: true, secretsCiphertext: true, updatedAt: true, riskAcceptedAt: true },
  });
  if (!kb) throw new AppError("NOT_FOUND", "That knowledge base does not exist or is not shared with you.");
  return { ...kb, kind: kb.kind as KbKind };
}
