import { listAllApiKeys } from "@/lib/auth/api-keys";
import { db } from "@/lib/db/client";
import { apiRoute } from "@/lib/server/api-v1/route";

export const runtime = "nodejs";

/** Every API key in the workspace (never a token: only prefixes). Admins, with the admin scope. */
export const GET = apiRoute({ name: "v1.admin.apiKeys.list", scope: "admin", roles: ["ADMIN"] }, async () => ({
  apiKeys: await listAllApiKeys(await db()),
}));
