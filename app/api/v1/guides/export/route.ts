import { getKnowledgeBase } from "@/lib/catalog/knowledge-bases";
import { db } from "@/lib/db/client";
import { exportGuides } from "@/lib/guides/files";
import { apiRoute } from "@/lib/server/api-v1/route";
import { guideExportQuerySchema } from "@/lib/server/api-v1/schemas";

export const runtime = "nodejs";

/**
 * The guides the key's user may see (on one knowledge base, or every one they may use), as the JSON
 * array npm run guides:export writes: analysts and admins, scope kbs:read.
 */
export const GET = apiRoute(
  { name: "v1.guides.export", scope: "kbs:read", roles: ["ADMIN", "ANALYST"], input: guideExportQuerySchema },
  async ({ user, input }) => {
    const prisma = await db();
    // An id the user may not use is a 404, through the access rule (ids cannot be probed).
    const kbName = input.kb ? (await getKnowledgeBase(prisma, user, input.kb)).name : undefined;
    return exportGuides(prisma, user, kbName);
  },
);
