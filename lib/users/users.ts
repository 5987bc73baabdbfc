import { AppError } from "../errors";
import { hashPassword } from "../crypto/password";
import { Prisma, type PrismaClient } from "../db/generated/client";
import {
  createGroupSchema,
  createUserSchema,
  setPasswordSchema,
  updateUserSchema,
  type CreateGroupInput,
  type CreateUserInput,
  type UpdateUserInput,
} from "./users.validation";

export interface UserRow {
  id: string;
  email: string;
  name: string;
  role: "ADMIN" | "ANALYST" | "USER";
  active: boolean;
  lastSignInAt: string | null;
  createdAt: string;
  groups: { id: string; name: string }[];
}

export async function listUsers(prisma: PrismaClient): Promise<UserRow[]> {
  const users = await prisma.user.findMany({
    orderBy: [{ role: "asc" }, { email: "asc" }],
    select: {
      id: true,
      email: true,
      name: true,
      role: true,
      active: true,
      lastSignInAt: true,
      createdAt: true,
      memberships: { select: { group: { select: { id: true, name: true } } }, orderBy: { group: { name: "asc" } } },
    },
  });
  return users.map((u) => ({
    id: u.id,
    email: u.email,
    name: u.name,
    role: u.role,
    active: u.active,
    lastSignInAt: u.lastSignInAt?.toISOString() ?? null,
    createdAt: u.createdAt.toISOString(),
    groups: u.memberships.map((m) => m.group),
  }));
}

export interface GroupRow {
  id: string;
  name: string;
  description: string;
  memberCount: number;
}

export async function listGroups(prisma: PrismaClient): Promise<GroupRow[]> {
  const groups = await prisma.group.findMany({
    orderBy: { name: "asc" },
    select: { id: true, name: true, description: true, _count: { select: { members: true } } },
  });
  return groups.map((g) => ({ id: g.id, name: g.name, description: g.description, memberCount: g._count.members }));
}

async function assertGroupsExist(tx: Prisma.TransactionClient, groupIds: string[]) {
  if (!groupIds.length) return;
  const found = await tx.group.count({ where: { id: { in: groupIds } } });
  if (found !== new Set(groupIds).size)
    throw new AppError("VALIDATION", "One of the chosen groups no longer exists.", { groupIds: "Unknown group." });
}

function isUniqueViolation(e: unknown): boolean {
  return e instanceof Prisma.PrismaClientKnownRequestError && e.code === "P2002";
}

export async function createUser(prisma: PrismaClient, raw: CreateUserInput) {
  const input = createUserSchema.parse(raw);
  const passwordHash = await hashPassword(input.password);
  try {
    return await prisma.$transaction(async (tx) => {
      await assertGroupsExist(tx, input.groupIds);
      return tx.user.create({
        data: {
          email: input.email,
          name: input.name,
          role: input.role,
          passwordHash,
          memberships: { create: [...new Set(input.groupIds)].map((groupId) => ({ groupId })) },
        },
        select: { id: true, email: true },
      });
    });
  } catch (e) {
    if (isUniqueViolation(e)) {
      throw new AppError("CONFLICT", `A user with the email ${input.email} already exists.`, { email: "This email is taken." });
    }
    throw e;
  }
}

/**
 * Changes role, active flag and groups. The workspace must keep at least one active admin, so an
 * admin cannot demote or deactivate the last one (themselves included).
 */
export async function updateUser(prisma: PrismaClient, raw: UpdateUserInput) {
  const input = updateUserSchema.parse(raw);
  return prisma.$transaction(async (tx) => {
    const current = await tx.user.findUnique({ where: { id: input.id }, select: { role: true, active: true } });
    if (!current) throw new AppError("NOT_FOUND", "That user no longer exists.");
    const losesAdmin = current.role === "ADMIN" && current.active && (input.role !== "ADMIN" || !input.active);
    if (losesAdmin) {
      const otherAdmins = await tx.user.count({ where: { role: "ADMIN", active: true, id: { not: input.id } } });
      if (otherAdmins === 0) {
        throw new AppError("CONFLICT", "This is the last active admin. Make someone else an admin first.", {
          role: "The workspace needs an admin.",
        });
      }
    }
    await assertGroupsExist(tx, input.groupIds);
    await tx.groupMembership.deleteMany({ where: { userId: input.id, groupId: { notIn: input.groupIds } } });
    await tx.groupMembership.createMany({
      data: [...new Set(input.groupIds)].map((groupId) => ({ userId: input.id, groupId })),
      skipDuplicates: true,
    });
    return tx.user.update({ where: { id: input.id }, data: { role: input.role, active: input.active }, select: { id: true } });
  });
}

export async function setUserPassword(prisma: PrismaClient, raw: { id: string; password: string }) {
  const input = setPasswordSchema.parse(raw);
  const passwordHash = await hashPassword(input.password);
  const updated = await prisma.user.updateMany({ where: { id: input.id }, data: { passwordHash } });
  if (updated.count === 0) throw new AppError("NOT_FOUND", "That user no longer exists.");
}

export async function createGroup(prisma: PrismaClient, raw: CreateGroupInput) {
  const input = createGroupSchema.parse(raw);
  try {
    return await prisma.group.create({ data: input, select: { id: true, name: true } });
  } catch (e) {
    if (isUniqueViolation(e))
      throw new AppError("CONFLICT", `A group named "${input.name}" already exists.`, { name: "This name is taken." });
    throw e;
  }
}
