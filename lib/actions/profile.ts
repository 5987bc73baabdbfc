"use server";

import { authActionClient } from "@/lib/actions/safe-action";
import { createApiKey, listAllApiKeys, listOwnApiKeys, revokeApiKey } from "@/lib/auth/api-keys";
import { createApiKeySchema, revokeApiKeySchema } from "@/lib/auth/api-keys.validation";
import { db } from "@/lib/db/client";
import { z } from "zod";

/** Each person creates keys for themselves only: the owner is the signed-in user, never an input. */
export const createApiKeyAction = authActionClient
  .metadata({ name: "apiKeys.create" })
  .inputSchema(createApiKeySchema)
  .action(async ({ parsedInput, ctx }) => createApiKey(await db(), ctx.user.id, parsedInput));

export const listOwnApiKeysAction = authActionClient
  .metadata({ name: "apiKeys.listOwn" })
  .inputSchema(z.object({}))
  .action(async ({ ctx }) => listOwnApiKeys(await db(), ctx.user.id));

/** The owner revokes their own; admins anyone's (lib/auth/api-keys.ts checks which). */
export const revokeApiKeyAction = authActionClient
  .metadata({ name: "apiKeys.revoke" })
  .inputSchema(revokeApiKeySchema)
  .action(async ({ parsedInput, ctx }) => revokeApiKey(await db(), ctx.user, parsedInput.id));

export const listAllApiKeysAction = authActionClient
  .metadata({ name: "apiKeys.listAll", roles: ["ADMIN"] })
  .inputSchema(z.object({}))
  .action(async () => listAllApiKeys(await db()));
