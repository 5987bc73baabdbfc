import { catalogDeps } from "@/lib/deps";
import { registerKbSchema } from "@/lib/catalog/knowledge-bases.validation";
import { registerKnowledgeBase } from "@/lib/ingest/register";
import { db } from "@/lib/db/client";
import { withAuthRoute } from "@/lib/http/route";
import { auditedChange } from "@/lib/audit/change";
import { requestActor } from "@/lib/audit/request-actor";
import { kbSnapshot } from "@/lib/audit/snapshots";

export const runtime = "nodejs";
// Registration may ingest documents or load RDF: allow it time.
export const maxDuration = 300;

// Registers a knowledge base: JSON settings in `payload`, uploads in `files` (multipart/form-data).
export const POST = withAuthRoute(
  { name: "kb.register", roles: ["ADMIN"], input: registerKbSchema, multipart: true },
  async ({ req, user, input, files }) => {
    const prisma = await db();
    const result = await auditedChange(
      prisma,
      requestActor(user, req.headers),
      {
        action: "kb.register",
        targetType: "kb",
        snapshot: kbSnapshot,
        idFrom: (r) => (r as { id?: string }).id,
        detail: { files: files.map((f) => ({ name: f.name, bytes: f.bytes.length })) },
      },
      () => registerKnowledgeBase(prisma, catalogDeps(), user.id, input, files),
    );
    return Response.json(result, { status: 201 });
  },
);
