import type { Prisma } from "../db/generated/client";

export interface AccessSubject {
  id: string;
  role: "ADMIN" | "ANALYST" | "USER";
  groupIds: string[];
}

/**
 * Which knowledge bases a person may use, as a Prisma `where`: admins all; everyone else the KBs an
 * admin opened to everyone plus those shared with one of their groups. A KB with neither is private to
 * admins (issue 29: private by default, so a new HR database is not readable by all until someone says
 * so). Every KB query goes through this, for pages and API keys alike.
 */
export function kbAccessWhere(user: AccessSubject): Prisma.KnowledgeBaseWhereInput {
  if (user.role === "ADMIN") return {};
  return {
    OR: [{ openToEveryone: true }, { groupAccess: { some: { groupId: { in: user.groupIds } } } }],
  };
}

export function sourceObjectAccessWhere(user: AccessSubject): Prisma.SourceObjectWhereInput {
  return user.role === "ADMIN" ? {} : { kb: kbAccessWhere(user) };
}
