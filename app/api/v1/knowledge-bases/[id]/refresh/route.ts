import { withBackendErrors } from "@/lib/catalog/backend-errors";
import { getKnowledgeBase } from "@/lib/catalog/knowledge-bases";
import { catalogDeps } from "@/lib/deps";
import { db } from "@/lib/db/client";
import { refreshKnowledgeBase } from "@/lib/ingest/refresh";
import { apiRoute } from "@/lib/server/api-v1/route";
import { refreshInputSchema } from "@/lib/server/api-v1/schemas";

export const runtime = "nodejs";
export const maxDuration = 300;

/** Re-describes a knowledge base (or rebuilds its entity index), as its page's Refresh does: admins, with kbs:write. */
export const POST = apiRoute<typeof refreshInputSchema, { id: string }>(
  { name: "v1.kbs.refresh", scope: "kbs:write", roles: ["ADMIN"], input: refreshInputSchema },
  async ({ user, params, input }) => {
    const prisma = await db();
    await getKnowledgeBase(prisma, user, params.id); // 404 for an unknown id, through the access rule
    return withBackendErrors(() =>
      refreshKnowledgeBase(prisma, catalogDeps(), params.id, input.parts === "index" ? { index: true } : { describe: true }),
    );
  },
);
