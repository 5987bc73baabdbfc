import { getKnowledgeBase } from "@/lib/catalog/knowledge-bases";
import { db } from "@/lib/db/client";
import { apiRoute } from "@/lib/server/api-v1/route";
import { kbApiView } from "@/lib/server/api-v1/views";

export const runtime = "nodejs";

/** One knowledge base and its health; 404 when it does not exist or is not shared with the user (so ids cannot be probed). */
export const GET = apiRoute<undefined, { id: string }>({ name: "v1.kbs.get", scope: "kbs:read" }, async ({ user, params }) =>
  kbApiView(await getKnowledgeBase(await db(), user, params.id), user),
);
