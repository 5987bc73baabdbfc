import { catalogDeps } from "@/lib/deps";
import { registerKbSchema } from "@/lib/catalog/knowledge-bases.validation";
import { db } from "@/lib/db/client";
import { withAuthRoute } from "@/lib/http/route";
import { requestActor } from "@/lib/audit/request-actor";
import { registerKnowledgeBaseAudited } from "@/lib/server/register-kb";

export const runtime = "nodejs";
// Registration may ingest documents or load RDF: allow it time.
export const maxDuration = 300;

// Registers a knowledge base: JSON settings in `payload`, uploads in `files` (multipart/form-data).
export const POST = withAuthRoute(
  { name: "kb.register", roles: ["ADMIN"], input: registerKbSchema, multipart: true },
  async ({ req, user, input, files }) => {
    const prisma = await db();
    const result = await registerKnowledgeBaseAudited(prisma, catalogDeps(), requestActor(user, req.headers), user.id, input, files);
    return Response.json(result, { status: 201 });
  },
);
