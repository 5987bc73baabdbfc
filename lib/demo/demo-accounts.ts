import { verifyPassword } from "../crypto/password";
import type { PrismaClient } from "../db/generated/client";
import { DEMO_USERS } from "../db/seed";

/**
 * The demo accounts that can still be signed into with the password the README publishes: active, and
 * their stored hash still matches it (issue 29: admins are told while that is so). A changed password,
 * a deactivated or deleted account, or a changed email drops it from the list.
 *
 * argon2 is slow on purpose, so a verdict is kept per stored hash: a hash only changes when the password
 * does, and then the new hash is verified once. The map holds at most one entry per demo account hash.
 */
const verdicts = new Map<string, boolean>();

export async function demoAccountsWithPublishedPasswords(prisma: PrismaClient): Promise<string[]> {
  const rows = await prisma.user.findMany({
    where: { active: true, email: { in: DEMO_USERS.map((u) => u.email) } },
    select: { email: true, passwordHash: true },
  });
  const open: string[] = [];
  for (const row of rows) {
    const published = DEMO_USERS.find((u) => u.email === row.email)!.password;
    const key = `${row.email}\n${row.passwordHash}`;
    let verdict = verdicts.get(key);
    if (verdict === undefined) {
      verdict = await verifyPassword(row.passwordHash, published);
      if (verdicts.size > 64) verdicts.clear();
      verdicts.set(key, verdict);
    }
    if (verdict) open.push(row.email);
  }
  return open.sort();
}
