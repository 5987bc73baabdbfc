import { listKnowledgeBases } from "@/lib/catalog/knowledge-bases";
import { db } from "@/lib/db/client";
import { apiRoute } from "@/lib/server/api-v1/route";
import { kbApiView } from "@/lib/server/api-v1/views";

export const runtime = "nodejs";

/** The knowledge bases the user may use, with their health from the last check (access checked in the query). */
export const GET = apiRoute({ name: "v1.kbs.list", scope: "kbs:read" }, async ({ user }) => ({
  knowledgeBases: (await listKnowledgeBases(await db(), user)).map((kb) => kbApiView(kb, user)),
}));
