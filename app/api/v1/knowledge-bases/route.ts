import { requestActor } from "@/lib/audit/request-actor";
import { listKnowledgeBases } from "@/lib/catalog/knowledge-bases";
import { registerKbSchema } from "@/lib/catalog/knowledge-bases.validation";
import { catalogDeps } from "@/lib/deps";
import { db } from "@/lib/db/client";
import { connectionFailureResponse, registerThroughApi } from "@/lib/server/api-v1/register";
import { apiRoute } from "@/lib/server/api-v1/route";
import { kbApiView } from "@/lib/server/api-v1/views";

export const runtime = "nodejs";
// Registration may ingest documents or load RDF: allow it time (as the page's route).
export const maxDuration = 300;

/** The knowledge bases the user may use, with their health from the last check (access checked in the query). */
export const GET = apiRoute({ name: "v1.kbs.list", scope: "kbs:read" }, async ({ user }) => ({
  knowledgeBases: (await listKnowledgeBases(await db(), user)).map((kb) => kbApiView(kb, user)),
}));

/**
 * Registers a knowledge base, as the registration page does (admins, scope kbs:write): from an upload
 * (multipart/form-data: the settings as JSON in `payload`, the files in `files`, bounded by
 * UPLOAD_MAX_BYTES and parsed off the main thread like the page's) or from a connection (a JSON body).
 * Private by default: admins only until `groupIds` or `openToEveryone` say otherwise.
 */
export const POST = apiRoute(
  { name: "v1.kbs.register", scope: "kbs:write", roles: ["ADMIN"], input: registerKbSchema, multipart: "or-json" },
  async ({ req, user, input, files, apiKey }) => {
    try {
      const body = await registerThroughApi(await db(), catalogDeps(), user, requestActor(user, req.headers), input, files, apiKey?.id);
      return Response.json(body, { status: 201 });
    } catch (e) {
      const failed = connectionFailureResponse(e, req.nextUrl.pathname, files.length ? "files" : "connection");
      if (failed) return failed;
      throw e;
    }
  },
);
