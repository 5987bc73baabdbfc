import { catalogDeps } from "@/lib/deps";
import { registerKbSchema } from "@/lib/catalog/knowledge-bases.validation";
import { registerKnowledgeBase } from "@/lib/ingest/register";
import { db } from "@/lib/db/client";
import { withAuthRoute } from "@/lib/http/route";

export const runtime = "nodejs";
// Registration may ingest documents or load RDF: allow it time.
export const maxDuration = 300;

// Registers a knowledge base: JSON settings in `payload`, uploads in `files` (multipart/form-data).
export const POST = withAuthRoute(
  { name: "kb.register", roles: ["ADMIN"], input: registerKbSchema, multipart: true },
  async ({ user, input, files }) => {
    const result = await registerKnowledgeBase(await db(), catalogDeps(), user.id, input, files);
    return Response.json(result, { status: 201 });
  },
);
