"use server";

import { z } from "zod";
import { authActionClient } from "@/lib/actions/safe-action";
import { auditedChange } from "@/lib/audit/change";
import { groupSnapshot, userSnapshot } from "@/lib/audit/snapshots";
import { SignInThrottle, signInThrottleView } from "@/lib/auth/sign-in-throttle";
import { db } from "@/lib/db/client";
import { createGroup, createUser, listGroups, listUsers, setUserPassword, updateUser } from "@/lib/users/users";
import { createGroupSchema, createUserSchema, setPasswordSchema, updateUserSchema } from "@/lib/users/users.validation";

const ADMIN = ["ADMIN"] as "ADMIN"[];

export const listUsersAction = authActionClient
  .metadata({ name: "users.list", roles: ADMIN })
  .inputSchema(z.object({}))
  .action(async () => {
    const prisma = await db();
    return { users: await listUsers(prisma), groups: await listGroups(prisma) };
  });

export const createUserAction = authActionClient
  .metadata({ name: "users.create", roles: ADMIN })
  .inputSchema(createUserSchema)
  .action(async ({ parsedInput, ctx }) => {
    const prisma = await db();
    // The password is never recorded.
    const detail = { email: parsedInput.email, name: parsedInput.name, role: parsedInput.role, groupIds: parsedInput.groupIds };
    return auditedChange(
      prisma,
      ctx.actor,
      { action: "users.create", targetType: "user", snapshot: userSnapshot, idFrom: (r) => (r as { id: string }).id, detail },
      () => createUser(prisma, parsedInput),
    );
  });

export const updateUserAction = authActionClient
  .metadata({ name: "users.update", roles: ADMIN })
  .inputSchema(updateUserSchema)
  .action(async ({ parsedInput, ctx }) => {
    const prisma = await db();
    return auditedChange(
      prisma,
      ctx.actor,
      { action: "users.update", targetType: "user", targetId: parsedInput.id, snapshot: userSnapshot },
      () => updateUser(prisma, parsedInput),
    );
  });

export const setPasswordAction = authActionClient
  .metadata({ name: "users.setPassword", roles: ADMIN })
  .inputSchema(setPasswordSchema)
  .action(async ({ parsedInput, ctx }) => {
    const prisma = await db();
    // The password itself is never recorded: only that it was set, for whom.
    await auditedChange(prisma, ctx.actor, { action: "users.setPassword", targetType: "user", targetId: parsedInput.id }, () =>
      setUserPassword(prisma, parsedInput),
    );
    return { ok: true };
  });

export const createGroupAction = authActionClient
  .metadata({ name: "groups.create", roles: ADMIN })
  .inputSchema(createGroupSchema)
  .action(async ({ parsedInput, ctx }) => {
    const prisma = await db();
    return auditedChange(
      prisma,
      ctx.actor,
      { action: "groups.create", targetType: "group", snapshot: groupSnapshot, idFrom: (r) => (r as { id: string }).id },
      () => createGroup(prisma, parsedInput),
    );
  });

/** Clears sign-in throttles (the given keys, or all): someone locked out by another's attempts can sign in at once. */
export const clearSignInThrottlesAction = authActionClient
  .metadata({ name: "signInThrottles.clear", roles: ADMIN })
  .inputSchema(z.object({ keys: z.array(z.string().min(1).max(400)).max(500).optional() }))
  .action(async ({ parsedInput, ctx }) => {
    const prisma = await db();
    const throttle = new SignInThrottle(prisma);
    const cleared = await auditedChange(
      prisma,
      ctx.actor,
      { action: "signInThrottles.clear", targetType: "signInThrottle", detail: { keys: parsedInput.keys ?? "all" } },
      () => throttle.clear(parsedInput.keys),
    );
    return { cleared, throttles: signInThrottleView(await throttle.list()) };
  });
