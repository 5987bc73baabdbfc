import type { PrismaClient } from "../db/generated/client";
import { dummyPasswordHash, verifyPassword } from "../crypto/password";

/**
 * Checks an email and password. Unknown email, wrong password and a deactivated account all return
 * null after the same amount of work, so the sign-in form cannot be used to discover accounts.
 */
export async function authenticate(prisma: PrismaClient, email: string, password: string) {
  const user = await prisma.user.findUnique({ where: { email: email.trim().toLowerCase() } });
  const ok = await verifyPassword(user?.passwordHash ?? (await dummyPasswordHash()), password);
  if (!user || !ok || !user.active) return null;
  await prisma.user.update({ where: { id: user.id }, data: { lastSignInAt: new Date() } });
  return { id: user.id, email: user.email, name: user.name, role: user.role };
}
