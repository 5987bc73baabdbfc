import { revokeApiKey } from "@/lib/auth/api-keys";
import { db } from "@/lib/db/client";
import { apiRoute } from "@/lib/server/api-v1/route";

export const runtime = "nodejs";

/** Revokes anyone's API key. Admins, with the admin scope. */
export const DELETE = apiRoute<undefined, { id: string }>(
  { name: "v1.admin.apiKeys.revoke", scope: "admin", roles: ["ADMIN"] },
  async ({ user, params }) => revokeApiKey(await db(), user, params.id),
);
