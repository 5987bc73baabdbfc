import { z } from "zod";
import { queuedUploads, queueUploads } from "@/lib/ingest/documents/upload-queue";
import { db } from "@/lib/db/client";
import { withAuthRoute } from "@/lib/http/route";
import { auditedChange } from "@/lib/audit/change";
import { requestActor } from "@/lib/audit/request-actor";

export const runtime = "nodejs";

// Adds documents to an existing collection: the files are kept in the database and added by a background job.
export const POST = withAuthRoute<z.ZodObject, { id: string }>(
  { name: "kb.documents.add", roles: ["ADMIN"], input: z.object({}), multipart: true },
  async ({ req, user, files, params }) => {
    const prisma = await db();
    await auditedChange(
      prisma,
      requestActor(user, req.headers),
      {
        action: "kb.documents.add",
        targetType: "kb",
        targetId: params.id,
        kbIds: [params.id],
        detail: { files: files.map((f) => ({ name: f.name, bytes: f.bytes.length })) },
      },
      () => queueUploads(prisma, params.id, files),
    );
    return Response.json(await queuedUploads(prisma, params.id), { status: 202 });
  },
);
