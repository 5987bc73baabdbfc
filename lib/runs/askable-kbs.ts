import { type AccessSubject, kbAccessWhere } from "../catalog/access";
import type { PrismaClient } from "../db/generated/client";
import type { AskableKb } from "./types";

/** The knowledge bases a person may ask (the Ask page's picker): exactly those the access rules allow. */
export async function listAskableKbs(prisma: PrismaClient, user: AccessSubject): Promise<AskableKb[]> {
  const rows = await prisma.knowledgeBase.findMany({
    where: kbAccessWhere(user),
    orderBy: { name: "asc" },
    select: { id: true, name: true, kind: true, description: true, status: true },
  });
  return rows.map((r) => ({ ...r, description: r.description.slice(0, 300) }));
}
