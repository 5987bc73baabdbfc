import type { AccessSubject } from "../catalog/access";
import type { PrismaClient } from "../db/generated/client";
import { findVisibleGuide } from "./access";

export async function deleteGuide(prisma: PrismaClient, user: AccessSubject, id: string): Promise<void> {
  await findVisibleGuide(prisma, user, id);
  // Runs keep their stored results; RunGuideUse rows go with the guide, and resolved reports keep their status.
  await prisma.extractionGuide.delete({ where: { id } });
}
