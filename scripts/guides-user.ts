import type { AccessSubject } from "../lib/catalog/access";
import type { PrismaClient } from "../lib/db/generated/client";

/** Who a guides command acts as: --user <email>, or the first active admin. Guides are owned by that user. */
export async function cliUser(prisma: PrismaClient, email: string | undefined): Promise<{ email: string; subject: AccessSubject }> {
  const row = email
    ? await prisma.user.findUnique({ where: { email: email.toLowerCase() }, include: { memberships: true } })
    : await prisma.user.findFirst({
        where: { role: "ADMIN", active: true },
        orderBy: { createdAt: "asc" },
        include: { memberships: true },
      });
  if (!row || !row.active) throw new Error(email ? `No active user ${email}.` : "No active admin exists; pass --user <email>.");
  if (row.role === "USER") throw new Error(`${row.email} is a business user; guides are written by analysts and admins.`);
  return { email: row.email, subject: { id: row.id, role: row.role, groupIds: row.memberships.map((m) => m.groupId) } };
}
