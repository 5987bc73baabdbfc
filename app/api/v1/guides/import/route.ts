import { requestActor } from "@/lib/audit/request-actor";
import { catalogDeps } from "@/lib/deps";
import { db } from "@/lib/db/client";
import { importGuidesThroughApi } from "@/lib/server/api-v1/guides";
import { apiRoute } from "@/lib/server/api-v1/route";
import { guideImportSchema } from "@/lib/server/api-v1/schemas";

export const runtime = "nodejs";
// Every item's query runs against its source before anything is imported.
export const maxDuration = 300;

/**
 * Imports guides from the array npm run guides:export writes, checking each item by the CLI's rules
 * (lib/guides/files.ts: the source's safety rules, it runs, it returns rows): analysts and admins,
 * scope guides:write, only into knowledge bases the key's user may use.
 */
export const POST = apiRoute(
  { name: "v1.guides.import", scope: "guides:write", roles: ["ADMIN", "ANALYST"], input: guideImportSchema },
  async ({ req, user, input, apiKey }) =>
    importGuidesThroughApi(await db(), catalogDeps(), user, requestActor(user, req.headers), input, {
      signal: req.signal,
      instance: req.nextUrl.pathname,
      apiKeyId: apiKey?.id,
    }),
);
