import { db } from "@/lib/db/client";
import { listChatModels } from "@/lib/server/api-v1/chat";
import { apiRoute } from "@/lib/server/api-v1/route";

export const runtime = "nodejs";

/** OpenAI-compatible model list: "mosaic" (every knowledge base the user may use) and "mosaic/<id>" per knowledge base. */
export const GET = apiRoute({ name: "v1.models", scope: "kbs:read" }, async ({ user }) => listChatModels(await db(), user));
