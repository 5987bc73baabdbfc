import type { Role } from "./generated/enums";
import type { PrismaClient } from "./generated/client";
import { hashPassword } from "../crypto/password";

/**
 * Development-only demo accounts, one per role, created on first start (an empty users table).
 * The README lists them; the e2e tests sign in with them through this same constant.
 */
export const DEMO_USERS: ReadonlyArray<{ email: string; name: string; password: string; role: Role; groups: string[] }> = [
  { email: "admin@mosaic.local", name: "Ada Admin", password: "admin-demo-pass", role: "ADMIN", groups: ["Everyone"] },
  { email: "analyst@mosaic.local", name: "Ana Analyst", password: "analyst-demo-pass", role: "ANALYST", groups: ["Everyone", "Analysts"] },
  { email: "user@mosaic.local", name: "Bo User", password: "user-demo-pass", role: "USER", groups: ["Everyone"] },
];

export const DEMO_GROUPS: ReadonlyArray<{ name: string; description: string }> = [
  { name: "Everyone", description: "Every demo account." },
  { name: "Analysts", description: "People who curate sources and guides." },
];

export interface SeedResult {
  seeded: boolean;
  users: number;
}

/** Seeds only into an empty workspace, so a restart or a deleted demo user is never re-created. */
export async function seedDemoWorkspace(prisma: PrismaClient): Promise<SeedResult> {
  if ((await prisma.user.count()) > 0) return { seeded: false, users: 0 };
  const groupIds = new Map<string, string>();
  for (const g of DEMO_GROUPS) {
    const group = await prisma.group.upsert({ where: { name: g.name }, update: {}, create: g });
    groupIds.set(g.name, group.id);
  }
  for (const u of DEMO_USERS) {
    await prisma.user.create({
      data: {
        email: u.email,
        name: u.name,
        role: u.role,
        passwordHash: await hashPassword(u.password),
        memberships: { create: u.groups.map((name) => ({ groupId: groupIds.get(name)! })) },
      },
    });
  }
  return { seeded: true, users: DEMO_USERS.length };
}
