"use server";

import { z } from "zod";
import { authActionClient } from "@/lib/actions/safe-action";
import type { AuditActor } from "@/lib/audit/audit";
import { auditedChange } from "@/lib/audit/change";
import { kbSnapshot } from "@/lib/audit/snapshots";
import { collectionEmbeddingStatus, enqueueCollectionEmbedding } from "@/lib/ingest/documents/embedding-queue";
import { latestMove, requestMoveToOpenSearch } from "@/lib/ingest/documents/move-to-opensearch";
import { latestReindex, requestReindex } from "@/lib/ingest/documents/reindex";
import { queuedUploads, retryQueuedUploads } from "@/lib/ingest/documents/upload-queue";
import { removeCollectionDocument } from "@/lib/ingest/documents/remove-document";
import { previewKbDocument } from "@/lib/catalog/collection-documents";
import { withBackendErrors } from "@/lib/catalog/backend-errors";
import { catalogDeps } from "@/lib/deps";
import { deleteKnowledgeBase, setPrivilegeRiskAcceptance, updateKnowledgeBase } from "@/lib/catalog/knowledge-bases";
import {
  moveToOpenSearchSchema,
  privilegeRiskSchema,
  testConnectionSchema,
  updateKbSchema,
} from "@/lib/catalog/knowledge-bases.validation";
import { checkKnowledgeBase } from "@/lib/catalog/refresh";
import { refreshKnowledgeBase } from "@/lib/ingest/refresh";
import { testConnection } from "@/lib/catalog/register";
import { db } from "@/lib/db/client";
import type { PrismaClient } from "@/lib/db/generated/client";
import { AppError } from "@/lib/errors";

const ADMIN = ["ADMIN"] as "ADMIN"[];
const idSchema = z.object({ id: z.string().min(1) });

/** Records a change to one knowledge base (with its state before and after when `snapshot`), then runs it. */
async function kbChange<T>(
  actor: AuditActor,
  action: string,
  kbId: string,
  change: (prisma: PrismaClient) => Promise<T>,
  opts: { snapshot?: boolean; detail?: unknown } = {},
) {
  const prisma = await db();
  return auditedChange(
    prisma,
    actor,
    { action, targetType: "kb", targetId: kbId, kbIds: [kbId], snapshot: opts.snapshot ? kbSnapshot : undefined, detail: opts.detail },
    () => change(prisma),
  );
}

export const testConnectionAction = authActionClient
  .metadata({ name: "kb.testConnection", roles: ADMIN })
  .inputSchema(testConnectionSchema)
  .action(async ({ parsedInput }) => withBackendErrors(() => testConnection(catalogDeps(), parsedInput)));

export const checkKbAction = authActionClient
  .metadata({ name: "kb.check", roles: ADMIN })
  .inputSchema(idSchema)
  .action(async ({ parsedInput }) => checkKnowledgeBase(await db(), catalogDeps(), parsedInput.id));

export const refreshKbAction = authActionClient
  .metadata({ name: "kb.refresh", roles: ADMIN })
  .inputSchema(idSchema.extend({ parts: z.enum(["describe", "index"]) }))
  .action(async ({ parsedInput, ctx }) =>
    kbChange(
      ctx.actor,
      "kb.refresh",
      parsedInput.id,
      (prisma) =>
        withBackendErrors(async () =>
          refreshKnowledgeBase(
            prisma,
            catalogDeps(),
            parsedInput.id,
            parsedInput.parts === "describe" ? { describe: true } : { index: true },
          ),
        ),
      { detail: { parts: parsedInput.parts } },
    ),
  );

export const updateKbAction = authActionClient
  .metadata({ name: "kb.update", roles: ADMIN })
  .inputSchema(updateKbSchema)
  .action(async ({ parsedInput, ctx }) => {
    // Name, description and access (the groups that may use it): before and after are recorded.
    await kbChange(ctx.actor, "kb.update", parsedInput.id, (prisma) => updateKnowledgeBase(prisma, parsedInput), { snapshot: true });
    return { ok: true };
  });

export const deleteKbAction = authActionClient
  .metadata({ name: "kb.delete", roles: ADMIN })
  .inputSchema(idSchema.extend({ confirmName: z.string() }))
  .action(async ({ parsedInput, ctx }) => {
    const prisma = await db();
    const kb = await prisma.knowledgeBase.findUnique({ where: { id: parsedInput.id }, select: { name: true } });
    if (!kb) throw new AppError("NOT_FOUND", "That knowledge base no longer exists.");
    if (kb.name !== parsedInput.confirmName) {
      throw new AppError("VALIDATION", "Type the knowledge base's name exactly to confirm.", { confirmName: "The name does not match." });
    }
    return kbChange(ctx.actor, "kb.delete", parsedInput.id, (p) => deleteKnowledgeBase(p, catalogDeps(), parsedInput.id), {
      snapshot: true,
    });
  });

/** A collection's embedding progress (its page polls it while a job is waiting or running). */
export const embeddingStatusAction = authActionClient
  .metadata({ name: "kb.embedding.status", roles: ADMIN })
  .inputSchema(idSchema)
  .action(async ({ parsedInput }) => {
    const prisma = await db();
    const kb = await prisma.knowledgeBase.findUnique({ where: { id: parsedInput.id }, select: { id: true, name: true, kind: true } });
    if (!kb || kb.kind !== "DOCUMENTS") throw new AppError("NOT_FOUND", "That document collection no longer exists.");
    return collectionEmbeddingStatus(prisma, catalogDeps(), kb);
  });

export const embedAgainAction = authActionClient
  .metadata({ name: "kb.embedding.retry", roles: ADMIN })
  .inputSchema(idSchema)
  .action(async ({ parsedInput, ctx }) => {
    const prisma = await db();
    const kb = await prisma.knowledgeBase.findUnique({ where: { id: parsedInput.id }, select: { id: true, name: true, kind: true } });
    if (!kb || kb.kind !== "DOCUMENTS") throw new AppError("NOT_FOUND", "That document collection no longer exists.");
    await kbChange(ctx.actor, "kb.embedding.retry", kb.id, (p) => enqueueCollectionEmbedding(p, kb.id));
    return collectionEmbeddingStatus(prisma, catalogDeps(), kb);
  });

/** Moves a collection kept on this server to an OpenSearch cluster (a background job; the page polls it). */
export const moveToOpenSearchAction = authActionClient
  .metadata({ name: "kb.moveToOpenSearch", roles: ADMIN })
  .inputSchema(moveToOpenSearchSchema)
  .action(async ({ parsedInput, ctx }) =>
    kbChange(ctx.actor, "kb.moveToOpenSearch", parsedInput.id, (p) => requestMoveToOpenSearch(p, catalogDeps(), parsedInput), {
      snapshot: true,
    }),
  );

export const moveStatusAction = authActionClient
  .metadata({ name: "kb.moveToOpenSearch.status", roles: ADMIN })
  .inputSchema(idSchema)
  .action(async ({ parsedInput }) => latestMove(await db(), parsedInput.id));

/** Re-indexes a collection in OpenSearch (a background job; the page polls it). */
export const reindexAction = authActionClient
  .metadata({ name: "kb.reindex", roles: ADMIN })
  .inputSchema(idSchema)
  .action(async ({ parsedInput, ctx }) => kbChange(ctx.actor, "kb.reindex", parsedInput.id, (p) => requestReindex(p, parsedInput.id)));

export const reindexStatusAction = authActionClient
  .metadata({ name: "kb.reindex.status", roles: ADMIN })
  .inputSchema(idSchema)
  .action(async ({ parsedInput }) => latestReindex(await db(), parsedInput.id));

/** Documents waiting to be added to a collection, and the job adding them. */
export const queuedUploadsAction = authActionClient
  .metadata({ name: "kb.documents.queue", roles: ADMIN })
  .inputSchema(idSchema)
  .action(async ({ parsedInput }) => queuedUploads(await db(), parsedInput.id));

/** Tries the waiting documents again now (after the job gave up, or to skip its wait). */
export const retryUploadsAction = authActionClient
  .metadata({ name: "kb.documents.retry", roles: ADMIN })
  .inputSchema(idSchema)
  .action(async ({ parsedInput, ctx }) =>
    kbChange(ctx.actor, "kb.documents.retry", parsedInput.id, (p) => retryQueuedUploads(p, parsedInput.id)),
  );

/** An admin accepts (or withdraws) the risk of a PostgreSQL role that may do more than read; the connection is checked again. */
export const setPrivilegeRiskAction = authActionClient
  .metadata({ name: "kb.privilegeRisk", roles: ADMIN })
  .inputSchema(privilegeRiskSchema)
  .action(async ({ parsedInput, ctx }) =>
    kbChange(ctx.actor, "kb.privilegeRisk", parsedInput.id, (p) => setPrivilegeRiskAcceptance(p, catalogDeps(), ctx.user, parsedInput), {
      snapshot: true,
    }),
  );

const documentSchema = idSchema.extend({ documentId: z.string().min(1).max(500) });

/** The first sentences of one document of a collection (its preview on the collection's page). */
export const documentPreviewAction = authActionClient
  .metadata({ name: "kb.documents.preview", roles: ADMIN })
  .inputSchema(documentSchema)
  .action(async ({ parsedInput, ctx }) => previewKbDocument(await db(), catalogDeps(), ctx.user, parsedInput.id, parsedInput.documentId));

/** Removes one document from a collection (the page asks for confirmation first); the collection is described again. */
export const removeDocumentAction = authActionClient
  .metadata({ name: "kb.documents.remove", roles: ADMIN })
  .inputSchema(documentSchema)
  .action(async ({ parsedInput, ctx }) =>
    kbChange(
      ctx.actor,
      "kb.documents.remove",
      parsedInput.id,
      (prisma) =>
        withBackendErrors(async () => {
          const { refresh } = await removeCollectionDocument(prisma, catalogDeps(), parsedInput.id, parsedInput.documentId);
          return { removed: parsedInput.documentId, status: refresh.status, message: refresh.message };
        }),
      { detail: { documentId: parsedInput.documentId } },
    ),
  );
