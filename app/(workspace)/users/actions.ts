"use server";

import { z } from "zod";
import { authActionClient } from "@/lib/actions/safe-action";
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
  .action(async ({ parsedInput }) => createUser(await db(), parsedInput));

export const updateUserAction = authActionClient
  .metadata({ name: "users.update", roles: ADMIN })
  .inputSchema(updateUserSchema)
  .action(async ({ parsedInput }) => updateUser(await db(), parsedInput));

export const setPasswordAction = authActionClient
  .metadata({ name: "users.setPassword", roles: ADMIN })
  .inputSchema(setPasswordSchema)
  .action(async ({ parsedInput }) => {
    await setUserPassword(await db(), parsedInput);
    return { ok: true };
  });

export const createGroupAction = authActionClient
  .metadata({ name: "groups.create", roles: ADMIN })
  .inputSchema(createGroupSchema)
  .action(async ({ parsedInput }) => createGroup(await db(), parsedInput));

/** Clears sign-in throttles (the given keys, or all): someone locked out by another's attempts can sign in at once. */
export const clearSignInThrottlesAction = authActionClient
  .metadata({ name: "signInThrottles.clear", roles: ADMIN })
  .inputSchema(z.object({ keys: z.array(z.string().min(1).max(400)).max(500).optional() }))
  .action(async ({ parsedInput }) => {
    const throttle = new SignInThrottle(await db());
    const cleared = await throttle.clear(parsedInput.keys);
    return { cleared, throttles: signInThrottleView(await throttle.list()) };
  });
