import { z } from "zod";
import { queuedUploads, queueUploads } from "@/lib/ingest/documents/upload-queue";
import { db } from "@/lib/db/client";
import { withAuthRoute } from "@/lib/http/route";

export const runtime = "nodejs";

// Adds documents to an existing collection: the files are kept in the database and added by a background job.
export const POST = withAuthRoute<z.ZodObject, { id: string }>(
  { name: "kb.documents.add", roles: ["ADMIN"], input: z.object({}), multipart: true },
  async ({ files, params }) => {
    const prisma = await db();
    await queueUploads(prisma, params.id, files);
    return Response.json(await queuedUploads(prisma, params.id), { status: 202 });
  },
);
