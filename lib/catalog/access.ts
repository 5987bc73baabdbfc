import type { Prisma } from "../db/generated/client";

export interface AccessSubject {
  id: string;
  role: "ADMIN" | "ANALYST" | "USER";
  groupIds: string[];
}

/**
 * Which knowledge bases a person may use, as a Prisma `where`: admins all; everyone else the KBs
 * with no group restriction plus those shared with one of their groups. Every KB query goes through this.
 */
export function kbAccessWhere(user: AccessSubject): Prisma.KnowledgeBaseWhereInput {
  if (user.role === "ADMIN") return {};
  return {
    OR: [{ groupAccess: { none: {} } }, { groupAccess: { some: { groupId: { in: user.groupIds } } } }],
  };
}

export function sourceObjectAccessWhere(user: AccessSubject): Prisma.SourceObjectWhereInput {
  return user.role === "ADMIN" ? {} : { kb: kbAccessWhere(user) };
}
